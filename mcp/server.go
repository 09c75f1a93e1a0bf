// Package mcp is backyard-ls's Model Context Protocol server: the tools
// declared by contract.Tools (run_python, reset_session, list_variables,
// install_packages) on the official Go SDK, over stdio or streamable HTTP.
// A session is a named, stateful kernel: a notebook document without text
// (package notebook), on the same backends, limits, workspace and install
// policy as the editors' documents.
package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"regexp"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/notebook"
)

// Options configure a Server.
type Options struct {
	// Settings are the effective backyard.* settings of every session's
	// kernel (the command line's flags applied to the defaults).
	Settings contract.Settings
	// Workspace is the host folder of the agent's project: container
	// kernels mount it read-only (container.mountWorkspace).
	Workspace string
	// MaxSessions bounds the sessions alive at once (default 64); a run in
	// a new session past it is refused until one is reset or times out.
	MaxSessions int
	// IdleTimeout closes a session (its kernel and its state) that ran
	// nothing for that long (default 30 minutes).
	IdleTimeout time.Duration
	// NewKernel creates kernels (default kernels.New).
	NewKernel func(kernel.Config) (kernel.Kernel, error)
	Logger    *zap.Logger
	Version   string
}

// Defaults of Options.
const (
	DefaultMaxSessions = 64
	DefaultIdleTimeout = 30 * time.Minute
	// DefaultSession is the session of a call that names none.
	DefaultSession = "default"
)

// Server is an MCP server whose tools run code in sessions.
type Server struct {
	opts Options
	log  *zap.Logger
	srv  *sdk.Server

	mu       sync.Mutex
	sessions map[string]*session
	closed   bool
	closing  sync.WaitGroup // sessions being closed
	stop     chan struct{}  // ends the idle reaper
	reaped   chan struct{}
}

var sessionName = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// New returns a server with its tools registered; nothing runs until a
// tool is called.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{opts: opts, log: opts.Logger.Named("mcp"), sessions: map[string]*session{}, stop: make(chan struct{}), reaped: make(chan struct{})}
	s.srv = sdk.NewServer(&sdk.Implementation{Name: "backyard-ls", Title: "backyard-ls Python sandbox", Version: opts.Version}, &sdk.ServerOptions{
		Instructions: instructions,
		Logger:       slog.New(zapHandler{s.log}),
	})
	s.addTools()
	go s.reapIdle()
	return s
}

const instructions = "run_python runs Python in a stateful, sandboxed kernel: names defined by one call are there in the next " +
	"call of the same session (a session is created on first use; omit it for the default one). Code runs on Monty " +
	"(a fast subset of Python with no access to the host) and moves, with its state, to full CPython in an offline " +
	"container when it needs more (numpy, a module Monty lacks). A Python exception is a normal result with status " +
	"\"error\". Use list_variables to see a session's names, reset_session to empty it, install_packages for PyPI " +
	"packages the container lacks."

// Serve serves one client on t (StdioTransport: stdin and stdout) until
// the client goes away or ctx ends.
func (s *Server) Serve(ctx context.Context, t sdk.Transport) error {
	return s.srv.Run(ctx, t)
}

// Close closes every session's kernel and waits until none is left.
func (s *Server) Close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	all := make([]*session, 0, len(s.sessions))
	for _, x := range s.sessions {
		all = append(all, x)
	}
	clear(s.sessions)
	s.mu.Unlock()
	t0 := time.Now()
	close(s.stop)
	<-s.reaped
	// Everything at once: the client that closed our input kills us soon
	// (the Python SDK after 2 s). The pool goes beside the sessions, and
	// again after them, for a refill a closing kernel asked for.
	var wg sync.WaitGroup
	wg.Go(notebook.CloseWarm)
	for _, x := range all {
		wg.Go(x.close)
	}
	wg.Wait()
	s.closing.Wait()
	notebook.CloseWarm()
	s.log.Debug("sessions closed", zap.Int("sessions", len(all)), zap.Duration("took", time.Since(t0)))
}

// session returns the session name, creating it when it does not exist.
func (s *Server) session(name string) (*session, error) {
	if name == "" {
		name = DefaultSession
	}
	if !sessionName.MatchString(name) {
		return nil, fmt.Errorf("session %q: a session name is 1 to 64 letters, digits, '_', '.' or '-'", name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, fmt.Errorf("the server is shutting down")
	}
	if x := s.sessions[name]; x != nil {
		x.touch()
		return x, nil
	}
	if len(s.sessions) >= s.opts.MaxSessions {
		return nil, fmt.Errorf("session %q: %d sessions are open, the most this server keeps (--max-sessions); reset_session one, or wait: a session closes after %s without a call", name, len(s.sessions), s.opts.IdleTimeout)
	}
	x := newSession(s, name)
	s.sessions[name] = x
	return x, nil
}

// existing returns the session name if it exists, nil otherwise.
func (s *Server) existing(name string) *session {
	if name == "" {
		name = DefaultSession
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[name]
}

// drop forgets a session and closes it in the background.
func (s *Server) drop(x *session) {
	s.mu.Lock()
	if s.sessions[x.name] != x {
		s.mu.Unlock()
		return
	}
	delete(s.sessions, x.name)
	s.closing.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.closing.Done()
		x.close()
	}()
}

// reapIdle closes sessions that ran nothing for IdleTimeout.
func (s *Server) reapIdle() {
	defer close(s.reaped)
	tick := time.NewTicker(min(s.opts.IdleTimeout/4, time.Minute))
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
		}
		s.mu.Lock()
		var idle []*session
		for _, x := range s.sessions {
			if x.idleFor() >= s.opts.IdleTimeout {
				idle = append(idle, x)
			}
		}
		s.mu.Unlock()
		for _, x := range idle {
			s.drop(x)
			s.log.Info("closed an idle session", zap.String("session", x.name))
		}
	}
}

// zapHandler sends the SDK's log records to the server's zap logger.
type zapHandler struct{ log *zap.Logger }

func (h zapHandler) Enabled(_ context.Context, l slog.Level) bool {
	return h.log.Core().Enabled(zapLevel(l))
}

func (h zapHandler) Handle(_ context.Context, r slog.Record) error {
	fields := make([]zap.Field, 0, r.NumAttrs())
	r.Attrs(func(a slog.Attr) bool {
		fields = append(fields, zap.Any(a.Key, a.Value.Any()))
		return true
	})
	if ce := h.log.Check(zapLevel(r.Level), r.Message); ce != nil {
		ce.Write(fields...)
	}
	return nil
}

func (h zapHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h zapHandler) WithGroup(string) slog.Handler      { return h }

func zapLevel(l slog.Level) zapcore.Level {
	switch {
	case l >= slog.LevelError:
		return zap.ErrorLevel
	case l >= slog.LevelWarn:
		return zap.WarnLevel
	case l >= slog.LevelInfo:
		return zap.InfoLevel
	}
	return zap.DebugLevel
}
