package mcp

import (
	"context"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/notebook"
)

// session is one named kernel: a notebook of one document without text.
// Each session has its own notebook so that what its kernel reports
// (progress of a start, a pull, an install) goes to the calls waiting on
// it.
type session struct {
	name string
	nb   *notebook.Notebook
	doc  *notebook.Document
	ev   *events

	mu       sync.Mutex
	lastUsed time.Time
	inFlight int
}

func newSession(s *Server, name string) *session {
	x := &session{name: name, ev: &events{log: s.log.With(zap.String("session", name)), calls: map[*call]bool{}}, lastUsed: time.Now()}
	cfg := kernel.Config{Settings: s.opts.Settings, Workspace: s.opts.Workspace, Logger: s.log.With(zap.String("session", name))}
	x.nb = notebook.New(notebook.Options{
		Config:    func(string) kernel.Config { return cfg },
		NewKernel: s.opts.NewKernel,
		// Sessions come and go; the pool is the server's (Close).
		SharedWarm: true,
		Events:     x.ev,
		Logger:     cfg.Logger,
	})
	x.doc = x.nb.Open("session:"+name, 1, "")
	return x
}

func (x *session) touch() {
	x.mu.Lock()
	x.lastUsed = time.Now()
	x.mu.Unlock()
}

// idleFor is how long no call has used the session (0 while one does).
func (x *session) idleFor() time.Duration {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.inFlight > 0 {
		return 0
	}
	return time.Since(x.lastUsed)
}

// begin registers a tool call on the session: progress of its kernel goes
// to it until end is called.
func (x *session) begin(ctx context.Context, req *sdk.CallToolRequest) (end func()) {
	x.mu.Lock()
	x.inFlight++
	x.lastUsed = time.Now()
	x.mu.Unlock()
	c := &call{ctx: ctx}
	if req != nil {
		c.ss, c.token = req.Session, req.Params.GetProgressToken()
	}
	x.ev.add(c)
	return func() {
		x.ev.remove(c)
		x.mu.Lock()
		x.inFlight--
		x.lastUsed = time.Now()
		x.mu.Unlock()
	}
}

func (x *session) close() { x.nb.CloseAll() }

// call is a tool call waiting on a session.
type call struct {
	ctx   context.Context
	ss    *sdk.ServerSession
	token any // the client's progress token; nil: no progress wanted

	mu   sync.Mutex
	sent float64 // progress notifications sent (the progress value)
}

// events is what a session's notebook tells: progress and messages go to
// the calls waiting on it; the rest is not needed by a tool call, which
// gets the whole record at the end.
type events struct {
	log   *zap.Logger
	mu    sync.Mutex
	calls map[*call]bool
}

func (e *events) add(c *call) {
	e.mu.Lock()
	e.calls[c] = true
	e.mu.Unlock()
}

func (e *events) remove(c *call) {
	e.mu.Lock()
	delete(e.calls, c)
	e.mu.Unlock()
}

func (e *events) current() []*call {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]*call, 0, len(e.calls))
	for c := range e.calls {
		out = append(out, c)
	}
	return out
}

// notify sends a progress notification to every waiting call that asked
// for progress.
func (e *events) notify(text string) {
	for _, c := range e.current() {
		if c.token == nil || c.ss == nil {
			continue
		}
		c.mu.Lock()
		c.sent++
		n := c.sent
		c.mu.Unlock()
		if err := c.ss.NotifyProgress(c.ctx, &sdk.ProgressNotificationParams{ProgressToken: c.token, Progress: n, Message: text}); err != nil {
			e.log.Debug("progress notification", zap.Error(err))
		}
	}
}

func (*events) Output(*contract.OutputParams)                 {}
func (*events) ExecutionState(*contract.ExecutionStateParams) {}
func (*events) KernelState(*contract.KernelStateParams)       {}
func (*events) Diagnostics(*notebook.Document)                {}
func (*events) Refresh(bool)                                  {}

// StartProgress implements notebook.Events: a kernel start, an image pull
// or an install becomes progress notifications of the waiting calls.
func (e *events) StartProgress(title string, _ func()) notebook.Progress {
	e.notify(title)
	return &progress{e: e, title: title}
}

// Message implements notebook.Events: facts for a person go to the log
// (the tool result carries what the call needs).
func (e *events) Message(level notebook.Level, text string) {
	if level >= notebook.Warning {
		e.log.Warn(text)
	} else {
		e.log.Info(text)
	}
	if level >= notebook.Warning {
		e.notify(text)
	}
}

// ConfirmInstall implements notebook.Events (autoInstall "ask"): the
// client's user is asked through elicitation when the client offers it;
// otherwise the answer is no.
func (e *events) ConfirmInstall(ctx context.Context, _ string, packages []string) bool {
	for _, c := range e.current() {
		if c.ss != nil && askable(c.ss) {
			return confirm(ctx, c.ss, packages, e.log)
		}
	}
	return false
}

type progress struct {
	e     *events
	title string
}

func (p *progress) Report(message string, _ int) {
	if message != "" {
		p.e.notify(p.title + ": " + message)
	}
}

func (p *progress) End(message string) {
	if message != "" {
		p.e.notify(p.title + ": " + message)
	}
}
