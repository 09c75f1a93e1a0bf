package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/notebook"
	"github.com/backyard-ls/backyard-ls/sandbox"
)

// sessions are the stateful sessions: a sandbox each, closed after
// IdleTimeout without a call.
type sessions struct {
	s *Server

	mu     sync.Mutex
	open   map[string]*session
	closed bool
	stop   chan struct{}
	reaped chan struct{}
}

type session struct {
	id      string
	backend contract.Backend
	sb      *sandbox.Sandbox
	timeout time.Duration

	mu       sync.Mutex
	lastUsed time.Time
	busy     int
	runs     int
}

func newSessions(s *Server) *sessions {
	x := &sessions{s: s, open: map[string]*session{}, stop: make(chan struct{}), reaped: make(chan struct{})}
	go x.reap()
	return x
}

func (s *Server) createSession(w http.ResponseWriter, r *http.Request) {
	var req contract.CreateSessionRequest
	if !decode(w, r, &req) {
		return
	}
	server := s.opts.Settings.Backend
	switch {
	case req.Backend == "":
		req.Backend = server
	case !slices.Contains(contract.BackendValues, req.Backend):
		invalid(w, contract.ValidationError{Type: "literal_error", Loc: []any{"body", "backend"}, Msg: "Input should be 'auto', 'monty' or 'container'", Input: string(req.Backend)})
		return
	case server == contract.BackendMonty && req.Backend != contract.BackendMonty:
		invalid(w, contract.ValidationError{Type: "value_error", Loc: []any{"body", "backend"}, Msg: "this server runs the monty backend only (--backend monty)", Input: string(req.Backend)})
		return
	}
	if req.TimeoutS < 0 || req.MemoryMB < 0 {
		invalid(w, contract.ValidationError{Type: "greater_than_equal", Loc: []any{"body"}, Msg: "timeout_s and memory_mb must not be negative"})
		return
	}
	if s.draining.Load() {
		writeError(w, http.StatusServiceUnavailable, "the server is shutting down")
		return
	}
	lim := s.limits(req.MemoryMB)
	if req.TimeoutS > 0 {
		lim.Timeout = min(seconds(req.TimeoutS), s.opts.MaxTimeout)
	}
	x, code, err := s.sessions.add(req.Backend, lim)
	if err != nil {
		writeError(w, code, err.Error())
		return
	}
	writeJSON(w, http.StatusOK, s.sessions.info(x))
}

func (x *sessions) info(se *session) *contract.SessionInfo {
	return &contract.SessionInfo{Session: se.id, Backend: se.backend, IdleTimeoutS: x.s.opts.IdleTimeout.Seconds()}
}

// add opens a session, or says why not (an HTTP status and an error).
func (x *sessions) add(backend contract.Backend, lim kernel.Limits) (*session, int, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.closed {
		return nil, http.StatusServiceUnavailable, errShuttingDown
	}
	if len(x.open) >= x.s.opts.MaxSessions {
		return nil, http.StatusTooManyRequests, fmt.Errorf("%d sessions are open, the most this server keeps (--max-sessions): close one, or wait, a session closes after %s without a call", len(x.open), x.s.opts.IdleTimeout)
	}
	o := x.s.opts.Settings
	sb, err := sandbox.New(sandbox.Options{Backend: backend, Limits: lim, MontyBinary: o.MontyPath, Container: o.Container})
	if err != nil {
		return nil, http.StatusInternalServerError, fmt.Errorf("the session could not be created: %w", err)
	}
	var id [16]byte
	_, _ = rand.Read(id[:])
	se := &session{id: hex.EncodeToString(id[:]), backend: backend, sb: sb, timeout: lim.Timeout, lastUsed: time.Now()}
	x.open[se.id] = se
	x.s.metrics.sessions.Set(float64(len(x.open)))
	return se, 0, nil
}

// use returns the open session id, marked busy until done is called; nil
// when there is none.
func (x *sessions) use(id string) (se *session, done func()) {
	x.mu.Lock()
	se = x.open[id]
	x.mu.Unlock()
	if se == nil {
		return nil, nil
	}
	se.mu.Lock()
	se.busy++
	se.lastUsed = time.Now()
	se.mu.Unlock()
	return se, func() {
		se.mu.Lock()
		se.busy--
		se.lastUsed = time.Now()
		se.mu.Unlock()
	}
}

// drop closes the session id; it reports whether it was open.
func (x *sessions) drop(id string) (*session, bool) {
	x.mu.Lock()
	se := x.open[id]
	delete(x.open, id)
	x.s.metrics.sessions.Set(float64(len(x.open)))
	x.mu.Unlock()
	if se == nil {
		return nil, false
	}
	if err := se.sb.Close(); err != nil {
		x.s.log.Warn("closing a session", zap.String("session", id), zap.Error(err))
	}
	return se, true
}

func notFound(w http.ResponseWriter, id string) {
	writeError(w, http.StatusNotFound, fmt.Sprintf("no session %q is open (it was closed, or idle for longer than the idle timeout): create one with POST /sessions", id))
}

func (s *Server) runInSession(w http.ResponseWriter, r *http.Request) {
	const endpoint = "session"
	start := time.Now()
	if !s.begin(w, r) {
		return
	}
	defer s.end()
	req := contract.SessionRunRequest{Session: r.PathValue("session")}
	if !decode(w, r, &req, "code") {
		return
	}
	if req.TimeoutS < 0 {
		invalid(w, contract.ValidationError{Type: "greater_than_equal", Loc: []any{"body", "timeout_s"}, Msg: "Input should be greater than or equal to 0", Input: req.TimeoutS})
		return
	}
	se, done := s.sessions.use(req.Session)
	if se == nil {
		notFound(w, req.Session)
		return
	}
	defer done()
	var lim kernel.Limits
	if req.TimeoutS > 0 {
		lim.Timeout = min(seconds(req.TimeoutS), s.opts.MaxTimeout)
	}
	s.serveRun(w, r, endpoint, start, func(ctx context.Context) answer {
		res, err := se.sb.RunWith(ctx, req.Code, sandbox.RunOptions{Limits: lim})
		if err != nil {
			return answer{&contract.HTTPError{Detail: "the session's kernel cannot run: " + err.Error()}, string(res.Backend), true}
		}
		s.metrics.ran(endpoint, string(res.Backend), string(res.Status))
		se.mu.Lock()
		se.runs++
		id := fmt.Sprintf("%s-%d", se.id[:8], se.runs)
		se.mu.Unlock()
		return answer{notebook.Record(id, codeRange(req.Code), notebook.Placement{Code: req.Code}, res), string(res.Backend), false}
	})
}

// codeRange is the range of the whole code (0-based lines, UTF-16
// characters, as a record counts).
func codeRange(code string) contract.Range {
	last, line := code, 0
	if i := strings.LastIndexByte(code, '\n'); i >= 0 {
		line, last = strings.Count(code, "\n"), code[i+1:]
	}
	return contract.Range{End: contract.Position{Line: uint32(line), Character: uint32(len(utf16.Encode([]rune(last))))}}
}

func (s *Server) resetSession(w http.ResponseWriter, r *http.Request) {
	req := contract.SessionRef{Session: r.PathValue("session")}
	se, done := s.sessions.use(req.Session)
	if se == nil {
		notFound(w, req.Session)
		return
	}
	defer done()
	ctx, cancel := s.runContext(r)
	defer cancel()
	if err := se.sb.Kernel().Restart(ctx); err != nil {
		writeError(w, http.StatusInternalServerError, "the session's kernel did not restart: "+err.Error())
		return
	}
	writeJSON(w, http.StatusOK, s.sessions.info(se))
}

func (s *Server) closeSession(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("session")
	se, ok := s.sessions.drop(id)
	if !ok {
		notFound(w, id)
		return
	}
	writeJSON(w, http.StatusOK, s.sessions.info(se))
}

// reap closes the sessions idle for IdleTimeout.
func (x *sessions) reap() {
	defer close(x.reaped)
	idle := x.s.opts.IdleTimeout
	tick := time.NewTicker(max(min(idle/4, time.Minute), 10*time.Millisecond))
	defer tick.Stop()
	for {
		select {
		case <-x.stop:
			return
		case <-tick.C:
		}
		var old []string
		x.mu.Lock()
		for id, se := range x.open {
			se.mu.Lock()
			if se.busy == 0 && time.Since(se.lastUsed) >= idle {
				old = append(old, id)
			}
			se.mu.Unlock()
		}
		x.mu.Unlock()
		for _, id := range old {
			x.s.log.Info("closing an idle session", zap.String("session", id))
			x.drop(id)
		}
	}
}

// closeAll closes every session; no session opens afterwards.
func (x *sessions) closeAll() {
	x.mu.Lock()
	if x.closed {
		x.mu.Unlock()
		return
	}
	x.closed = true
	ids := make([]string, 0, len(x.open))
	for id := range x.open {
		ids = append(ids, id)
	}
	x.mu.Unlock()
	close(x.stop)
	<-x.reaped
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() { x.drop(id) })
	}
	wg.Wait()
}
