package lsp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/kernel"
)

// errDocumentClosed ends executions of a document that was closed.
var errDocumentClosed = errors.New("the document was closed")

// session is a document's kernel and its FIFO queue. The kernel is created
// on the first job that needs it, with the settings current at that time.
// One goroutine at a time drains the queue, so jobs run in the order their
// requests arrived; interrupt bypasses the queue.
type session struct {
	srv *server
	doc *document

	mu      sync.Mutex // guards the fields below
	k       kernel.Kernel
	backend string // chosen with setBackend; "" means the settings' backend
	gen     int    // kernel generation: bumped by restart, backend switch, crash
	queue   []job
	current job  // running job
	active  bool // a goroutine is draining the queue
	closed  bool
	// maxOutput is the kernel's output limit, for streaming.
	maxOutput int
	// out streams the running execution's output; flushed before the
	// kernel reports idle so output precedes it.
	out *outputStream

	// Reported in backyard/kernelState; refreshed when a kernel starts.
	infoBackend, infoRuntime string
	startTask                *progressTask
	pullTask                 *progressTask // an image pull of the container backend

	prewarmTimer *time.Timer
	prewarmed    bool // this kernel's container was started early
}

// job is one queue entry: an execution or a control step (restart, backend
// switch, variables) that must see the runs queued before it.
type job interface {
	run(s *session)
	// drop ends a job that will not run.
	drop(s *session)
}

func newSession(srv *server, doc *document) *session {
	return &session{srv: srv, doc: doc}
}

// enqueue appends jobs atomically (a run command's cells stay together) and
// makes sure a goroutine drains the queue.
func (s *session) enqueue(jobs ...job) error {
	drain, err := s.add(jobs...)
	if drain {
		go s.drain(nil)
	}
	return err
}

// add appends jobs; when it returns true the caller must drain the queue
// (no goroutine is draining it).
func (s *session) add(jobs ...job) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false, errDocumentClosed
	}
	s.queue = append(s.queue, jobs...)
	start := !s.active
	s.active = true
	return start, nil
}

// drain runs queued jobs until the queue is empty. When until is not nil
// and returns true, it hands what is left to a new goroutine and returns:
// a run command drains on its own goroutine until its executions are done
// (one goroutine hand-off less per cell) without holding up its response
// for later requests.
func (s *session) drain(until func() bool) {
	for {
		s.mu.Lock()
		if len(s.queue) == 0 {
			s.active = false
			s.current = nil
			s.mu.Unlock()
			return
		}
		if until != nil && until() {
			s.current = nil
			s.mu.Unlock()
			go s.drain(nil)
			return
		}
		j := s.queue[0]
		s.queue[0] = nil
		s.queue = s.queue[1:]
		if len(s.queue) == 0 {
			s.queue = nil // let a long queue's array go
		}
		s.current = j
		s.mu.Unlock()
		s.runJob(j)
	}
}

// runJob runs one job; a panic fails that job, not the server.
func (s *session) runJob(j job) {
	defer func() {
		if p := recover(); p != nil {
			s.srv.log.Error("panic in a kernel job", zap.String("uri", s.doc.uri), zap.Any("panic", p), zap.Stack("stack"))
			if e, ok := j.(*execution); ok && !e.ended {
				e.finish(s, kernelErrorExecution(e, s.configuredBackend(), fmt.Errorf("internal error: %v", p), 0), -1, s.generation())
			}
		}
	}()
	j.run(s)
}

// kernel returns the document's kernel, creating it on first use.
func (s *session) kernel() (kernel.Kernel, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, s.gen, errDocumentClosed
	}
	if s.k != nil {
		return s.k, s.gen, nil
	}
	cfg := s.srv.kernelConfig(s.backend)
	gen := s.gen
	cfg.OnState = func(st kernel.State) { s.onState(gen, st) }
	cfg.Container.OnProgress = s.pullProgress
	cfg.Container.OnWarning = func(w string) { s.srv.showMessage(protocol.MessageTypeWarning, "backyard: %s", w) }
	cfg.Container.Confirm = func(ctx context.Context, pkgs []string) bool { return s.srv.confirmInstall(ctx, s.doc.uri, pkgs) }
	k, err := kernel.New(cfg)
	if err != nil {
		return nil, gen, err
	}
	s.k = k
	s.maxOutput = cfg.Limits.MaxOutputBytes
	s.infoBackend, s.infoRuntime = "", ""
	return k, gen, nil
}

// configuredBackend is the backend a new kernel of this document gets.
func (s *session) configuredBackend() string {
	s.mu.Lock()
	b := s.backend
	s.mu.Unlock()
	return s.srv.kernelConfig(b).Backend
}

// onState forwards a kernel state change as backyard/kernelState and runs
// the work-done progress of a starting kernel.
func (s *session) onState(gen int, st kernel.State) {
	s.mu.Lock()
	k := s.k
	if gen != s.gen {
		k = nil // an old kernel saying goodbye
	}
	if out := s.out; out != nil && st != kernel.StateBusy {
		s.mu.Unlock()
		out.flush()
		s.mu.Lock()
	}
	refresh := st == kernel.StateStarting || s.infoBackend == "" || s.infoRuntime == ""
	backend, runtime := s.infoBackend, s.infoRuntime
	task := s.startTask
	if st != kernel.StateStarting {
		s.startTask = nil
	}
	s.mu.Unlock()

	if refresh && k != nil {
		info := k.Info()
		backend, runtime = info.Backend, info.Runtime
		s.mu.Lock()
		if gen == s.gen {
			s.infoBackend, s.infoRuntime = backend, runtime
		}
		s.mu.Unlock()
	}
	if backend == "" {
		backend = s.configuredBackend()
	}
	s.srv.notify(methodKernelState, &kernelStateParams{URI: s.doc.uri, Backend: backend, Runtime: runtime, State: st})

	switch {
	case st == kernel.StateStarting && task == nil:
		t := s.srv.startProgress(fmt.Sprintf("Starting %s kernel", backendTitle(backend)), func() { s.interrupt() })
		s.mu.Lock()
		if s.startTask != nil || gen != s.gen {
			s.mu.Unlock()
			t.end("")
			return
		}
		s.startTask = t
		s.mu.Unlock()
	case st != kernel.StateStarting && task != nil:
		msg := "kernel ready"
		if st == kernel.StateDead {
			msg = "kernel did not start"
		}
		task.end(msg)
	}
}

// pullProgress reports the container backend's image pull as work-done
// progress; cancelling it interrupts the waiting run.
func (s *session) pullProgress(title, message string, percent int, done bool) {
	s.mu.Lock()
	t := s.pullTask
	if t == nil && !done {
		s.mu.Unlock()
		t = s.srv.startProgress(title, func() { s.interrupt() })
		s.mu.Lock()
		s.pullTask = t
	}
	if done {
		s.pullTask = nil
	}
	s.mu.Unlock()
	if done {
		t.end(message)
		return
	}
	t.report(message, percent)
}

func backendTitle(b string) string {
	switch b {
	case kernel.BackendMonty:
		return "Monty"
	case kernel.BackendContainer:
		return "container"
	}
	return b
}

// interrupt stops the running execution and drops the queued ones (a run
// after an interrupt is a new decision, as in Jupyter). Control steps stay
// queued. It reports whether anything was stopped or dropped.
func (s *session) interrupt() bool {
	return s.stopExecutions(func(*execution) bool { return true })
}

// cancelExecutions interrupts the given executions: a running one is
// stopped, queued ones are dropped. Used when their request is cancelled.
func (s *session) cancelExecutions(execs []*execution) {
	want := make(map[*execution]bool, len(execs))
	for _, e := range execs {
		want[e] = true
	}
	s.stopExecutions(func(e *execution) bool { return want[e] })
}

// stopExecutions cancels the running execution and drops the queued ones
// that match selects; other jobs stay queued. It reports whether anything
// was stopped or dropped.
func (s *session) stopExecutions(match func(*execution) bool) bool {
	s.mu.Lock()
	var dropped []job
	kept := s.queue[:0]
	for _, j := range s.queue {
		if e, ok := j.(*execution); ok && match(e) {
			dropped = append(dropped, j)
		} else {
			kept = append(kept, j)
		}
	}
	clear(s.queue[len(kept):])
	s.queue = kept
	cur, _ := s.current.(*execution)
	s.mu.Unlock()
	running := cur != nil && match(cur)
	if running {
		cur.cancel()
	}
	for _, j := range dropped {
		j.drop(s)
	}
	return running || len(dropped) > 0
}

// newGeneration forgets the kernel k (restart, switch, crash): results of
// older generations show as stale.
func (s *session) newGeneration() {
	s.mu.Lock()
	s.gen++
	s.prewarmed = false // a new kernel may pre-warm again
	s.mu.Unlock()
	s.srv.refreshLenses()
}

// close drops every queued job, closes the kernel (interrupting a running
// cell) and waits until it is gone. Later enqueues fail.
func (s *session) close() {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return
	}
	s.closed = true
	if s.prewarmTimer != nil {
		s.prewarmTimer.Stop()
	}
	queued := s.queue
	s.queue = nil
	k := s.k
	s.k = nil
	s.gen++
	cur, _ := s.current.(*execution)
	task := s.startTask
	s.startTask = nil
	s.mu.Unlock()
	if cur != nil {
		cur.cancel()
	}
	for _, j := range queued {
		j.drop(s)
	}
	if k != nil {
		if err := k.Close(); err != nil {
			s.srv.log.Warn("closing kernel", zap.String("uri", s.doc.uri), zap.Error(err))
		}
	}
	if task != nil {
		task.end("")
	}
}

// --- control jobs ---

// controlJob runs fn in queue order; done is closed after it ran or was
// dropped (then err is errDocumentClosed).
type controlJob struct {
	fn   func(s *session) (any, error)
	res  any
	err  error
	done chan struct{}
}

func newControlJob(fn func(s *session) (any, error)) *controlJob {
	return &controlJob{fn: fn, done: make(chan struct{})}
}

func (c *controlJob) run(s *session) {
	defer close(c.done)
	defer func() {
		if r := recover(); r != nil {
			s.srv.log.Error("panic in kernel control step", zap.Any("panic", r), zap.Stack("stack"))
			c.err = fmt.Errorf("internal error: %v", r)
		}
	}()
	c.res, c.err = c.fn(s)
}

func (c *controlJob) drop(*session) {
	c.err = errDocumentClosed
	close(c.done)
}

// wait waits for the job; cancelling ctx stops the wait, not the job.
func (c *controlJob) wait(ctx context.Context) (any, error) {
	select {
	case <-c.done:
		return c.res, c.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// restartJob discards the namespace. It runs right after the running cell
// was interrupted and the queued ones dropped.
func restartJob(s *session) (any, error) {
	s.mu.Lock()
	k := s.k
	s.mu.Unlock()
	if k != nil {
		ctx, cancel := context.WithTimeout(s.srv.ctx, time.Minute)
		defer cancel()
		if err := k.Restart(ctx); err != nil {
			return nil, err
		}
	}
	s.newGeneration()
	return s.info(), nil
}

// switchBackendJob closes the kernel so the next run creates one with
// backend.
func switchBackendJob(backend string) func(s *session) (any, error) {
	return func(s *session) (any, error) {
		s.mu.Lock()
		k := s.k
		s.k = nil
		s.backend = backend
		s.gen++
		s.mu.Unlock()
		if k != nil {
			if err := k.Close(); err != nil {
				s.srv.log.Warn("closing kernel", zap.String("uri", s.doc.uri), zap.Error(err))
			}
		}
		s.srv.refreshLenses()
		return s.info(), nil
	}
}

// variablesJob lists the namespace after the runs queued before it.
func variablesJob(s *session) (any, error) {
	s.mu.Lock()
	k := s.k
	s.mu.Unlock()
	vars := []kernel.Variable{}
	if k != nil {
		ctx, cancel := context.WithTimeout(s.srv.ctx, time.Minute)
		defer cancel()
		v, err := k.Variables(ctx)
		if err != nil {
			return nil, err
		}
		if v != nil {
			vars = v
		}
	}
	return &variablesResult{Variables: vars}, nil
}

// info describes the document's kernel, creating it (not starting it)
// when there is none yet.
func (s *session) info() *kernelInfoResult {
	k, _, err := s.kernel()
	if err != nil {
		return &kernelInfoResult{URI: s.doc.uri, Info: kernel.Info{Backend: s.configuredBackend(), State: kernel.StateDead, Notes: []string{err.Error()}}}
	}
	return &kernelInfoResult{URI: s.doc.uri, Info: k.Info()}
}
