package notebook

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// errDocumentClosed ends executions of a document that was closed.
var errDocumentClosed = errors.New("the document was closed")

// session is a document's kernel and its FIFO queue. The kernel is created
// on the first job that needs it, with the settings current at that time.
// One goroutine at a time drains the queue, so jobs run in the order their
// requests arrived; interrupt bypasses the queue.
type session struct {
	nb  *Notebook
	doc *Document

	mu      sync.Mutex // guards the fields below
	k       kernel.Kernel
	backend contract.Backend // chosen with setBackend; "" means the settings' backend
	gen     int              // kernel generation: bumped by restart, backend switch, crash
	queue   []job
	current job  // running job
	active  bool // a goroutine is draining the queue
	closed  bool
	// maxOutput is the kernel's output limit, for streaming.
	maxOutput int
	// dir and roots are the folder the kernel runs in and the folders it
	// sees (kernel.Config), for the files its payloads name.
	dir   string
	roots []string
	// out streams the running execution's output; flushed before the
	// kernel reports idle so output precedes it.
	out *outputStream
	// lastRun is the execution that ran last, under which output printed
	// between cells shows (idleOutput); idleSent counts that output per
	// stream, bounded like a cell's.
	lastRun  string
	idleSent [2]int

	// Reported in backyard/kernelState; refreshed when a kernel starts.
	infoBackend contract.Backend
	infoRuntime string
	startTask   Progress
	pullTask    Progress // an image pull or install of the container backend

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

func newSession(nb *Notebook, doc *Document) *session {
	return &session{nb: nb, doc: doc}
}

// add appends jobs atomically (a request's cells stay together); when it
// returns true the caller must drain the queue (no goroutine is draining
// it).
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

// enqueue appends jobs and makes sure a goroutine drains the queue.
func (s *session) enqueue(jobs ...job) error {
	drain, err := s.add(jobs...)
	if drain {
		go s.drain(nil)
	}
	return err
}

// drain runs queued jobs until the queue is empty. When until is not nil
// and returns true, it hands what is left to a new goroutine and returns:
// a waiter drains on its own goroutine until its executions are done
// without holding up its answer for later requests.
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

// runJob runs one job; a panic fails that job, not the process.
func (s *session) runJob(j job) {
	defer func() {
		if p := recover(); p != nil {
			s.nb.log.Error("panic in a kernel job", zap.String("uri", s.doc.uri), zap.Any("panic", p), zap.Stack("stack"))
			if e, ok := j.(*execution); ok && !e.ended {
				e.finish(s, kernelErrorRecord(e, s.configuredBackend(), fmt.Errorf("internal error: %v", p), 0), noDiag, s.generation())
			}
		}
	}()
	j.run(s)
}

// config is the configuration of the document's next kernel.
func (s *session) config() kernel.Config {
	cfg := s.nb.opts.Config(s.doc.uri)
	s.mu.Lock()
	if s.backend != "" {
		cfg.Settings.Backend = s.backend
	}
	s.mu.Unlock()
	if cfg.Settings.Backend == "" {
		cfg.Settings.Backend = contract.BackendAuto
	}
	return cfg
}

// kernel returns the document's kernel, creating it on first use.
func (s *session) kernel() (kernel.Kernel, int, error) {
	s.mu.Lock()
	if k, gen := s.k, s.gen; k != nil && !s.closed {
		s.mu.Unlock()
		return k, gen, nil // no configuration to build for a kernel that exists
	}
	have := s.k != nil
	s.mu.Unlock()
	if !have && s.nb.opts.Settle != nil {
		s.nb.opts.Settle()
	}
	cfg := s.config()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, s.gen, errDocumentClosed
	}
	if s.k != nil {
		return s.k, s.gen, nil
	}
	gen := s.gen
	nb, uri := s.nb, s.doc.uri
	cfg.OnState = func(st kernel.State) { s.onState(gen, st) }
	cfg.OnProgress = s.pullProgress
	cfg.OnWarning = func(w string) { nb.ev.Message(Warning, "backyard: "+w) }
	cfg.Confirm = func(ctx context.Context, pkgs []string) bool { return nb.ev.ConfirmInstall(ctx, uri, pkgs) }
	cfg.OnIdleOutput = func(st kernel.Stream, text string) { s.idleOutput(gen, st, text) }
	if cfg.File == "" {
		cfg.File = DocumentPath(uri)
	}
	k, err := nb.opts.NewKernel(cfg)
	if err != nil {
		return nil, gen, err
	}
	s.k = k
	s.maxOutput = kernel.LimitsOf(cfg.Settings).WithDefaults().MaxOutputBytes
	s.dir, s.roots = cfg.Dir, cfg.Roots
	s.infoBackend, s.infoRuntime = "", ""
	return k, gen, nil
}

// StartKernel creates the document's kernel now, when it has none, so that
// a program learns before its first run whether one can be made; the
// kernel starts its backend on the first run, as always.
func (d *Document) StartKernel() error {
	if _, _, err := d.sess.kernel(); err != nil {
		return d.sess.cannotCreate(err)
	}
	return nil
}

// kernelForRun returns the kernel, its generation and the output limit.
func (s *session) kernelForRun() (kernel.Kernel, int, int, error) {
	k, gen, err := s.kernel()
	if err != nil {
		return nil, gen, 0, err
	}
	s.mu.Lock()
	limit := s.maxOutput
	s.mu.Unlock()
	return k, gen, limit, nil
}

// configuredBackend is the backend a new kernel of this document gets.
func (s *session) configuredBackend() contract.Backend { return s.config().Settings.Backend }

func (s *session) generation() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

func (s *session) setOutput(out *outputStream) {
	s.mu.Lock()
	s.out = out
	s.mu.Unlock()
}

// ran notes the execution about to run: output printed after it, between
// cells, shows under it.
func (s *session) ran(id string) {
	s.mu.Lock()
	s.lastRun, s.idleSent = id, [2]int{}
	s.mu.Unlock()
}

// idleOutput sends what the kernel of generation gen printed while no
// cell ran (a thread a cell started), as it comes, under the last
// execution that ran, as Jupyter shows it; like a cell's output it stops
// at the output limit, with a marker.
func (s *session) idleOutput(gen int, st kernel.Stream, text string) {
	i := 0
	if st == kernel.Stderr {
		i = 1
	}
	s.mu.Lock()
	if gen != s.gen || s.closed {
		s.mu.Unlock()
		return
	}
	id, limit, sent := s.lastRun, s.maxOutput, s.idleSent[i]
	if limit <= 0 {
		limit = kernel.DefaultLimits.MaxOutputBytes
	}
	if sent+len(text) > limit {
		if sent > limit {
			s.mu.Unlock()
			return
		}
		text = cutUTF8(text, limit-sent) + fmt.Sprintf("\n[backyard: output truncated at %d bytes]\n", limit)
		sent = limit + 1
	} else {
		sent += len(text)
	}
	s.idleSent[i] = sent
	s.mu.Unlock()
	s.nb.ev.Output(&contract.OutputParams{URI: s.doc.uri, ExecutionID: id, Stream: st, Text: text, Idle: true})
}

// onState forwards a kernel state change as a kernel state event and runs
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
	s.nb.ev.KernelState(&contract.KernelStateParams{URI: s.doc.uri, Backend: backend, Runtime: runtime, State: st})

	switch {
	case st == kernel.StateStarting && task == nil:
		t := s.nb.ev.StartProgress(fmt.Sprintf("Starting %s kernel", BackendTitle(backend)), func() { s.interrupt() })
		if t == nil {
			return
		}
		s.mu.Lock()
		if s.startTask != nil || gen != s.gen {
			s.mu.Unlock()
			t.End("")
			return
		}
		s.startTask = t
		s.mu.Unlock()
	case st != kernel.StateStarting && task != nil:
		msg := "kernel ready"
		if st == kernel.StateDead {
			msg = "kernel did not start"
		}
		task.End(msg)
	}
}

// pullProgress reports the container backend's image pull or install as
// work-done progress; cancelling it interrupts the waiting run.
func (s *session) pullProgress(title, message string, percent int, done bool) {
	s.mu.Lock()
	t := s.pullTask
	if t == nil && !done {
		s.mu.Unlock()
		t = s.nb.ev.StartProgress(title, func() { s.interrupt() })
		s.mu.Lock()
		s.pullTask = t
	}
	if done {
		s.pullTask = nil
	}
	s.mu.Unlock()
	if t == nil {
		return
	}
	if done {
		t.End(message)
		return
	}
	t.Report(message, percent)
}

// interrupt stops the running execution and drops the queued ones (a run
// after an interrupt is a new decision, as in Jupyter). Control steps stay
// queued. It reports whether anything was stopped or dropped.
func (s *session) interrupt() bool {
	return s.stopExecutions(func(*execution) bool { return true })
}

// cancelExecutions interrupts the given executions: a running one is
// stopped, queued ones are dropped.
func (s *session) cancelExecutions(execs []*execution) {
	want := make(map[*execution]bool, len(execs))
	for _, e := range execs {
		want[e] = true
	}
	s.stopExecutions(func(e *execution) bool { return want[e] })
}

// stopExecutions cancels the running execution and drops the queued ones
// that match; other jobs stay queued. It reports whether anything was
// stopped or dropped.
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
	k := s.k
	s.mu.Unlock()
	running := cur != nil && match(cur)
	if running {
		if cur.ctx.Err() != nil && k != nil {
			// Interrupted already and still running (it caught the
			// KeyboardInterrupt): as in Jupyter, each request interrupts
			// once more.
			_ = k.Interrupt()
		} else {
			cur.cancel()
		}
	}
	for _, j := range dropped {
		j.drop(s)
	}
	return running || len(dropped) > 0
}

// newGeneration forgets the kernel's past (restart, switch, crash): results
// of older generations show as stale.
func (s *session) newGeneration() {
	s.mu.Lock()
	s.gen++
	s.prewarmed = false // a new kernel may pre-warm again
	s.mu.Unlock()
	s.nb.ev.Refresh(false)
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
			s.nb.log.Warn("closing kernel", zap.String("uri", s.doc.uri), zap.Error(err))
		}
	}
	if task != nil {
		task.End("")
	}
}

// --- control steps ---

// controlJob runs fn in queue order; done is closed after it ran or was
// dropped (then err is errDocumentClosed).
type controlJob[T any] struct {
	fn   func(s *session) (T, error)
	res  T
	err  error
	done chan struct{}
}

func (c *controlJob[T]) run(s *session) {
	defer close(c.done)
	defer func() {
		if r := recover(); r != nil {
			s.nb.log.Error("panic in kernel control step", zap.Any("panic", r), zap.Stack("stack"))
			c.err = fmt.Errorf("internal error: %v", r)
		}
	}()
	c.res, c.err = c.fn(s)
}

func (c *controlJob[T]) drop(*session) {
	c.err = errDocumentClosed
	close(c.done)
}

// control queues fn behind the document's runs; the reply waits for it
// (cancelling the wait does not stop the step).
func control[T any](s *session, fn func(*session) (T, error)) (contract.Reply[T], error) {
	j := &controlJob[T]{fn: fn, done: make(chan struct{})}
	if err := s.enqueue(j); err != nil {
		return nil, err
	}
	return func(ctx context.Context) (T, error) {
		select {
		case <-j.done:
			return j.res, j.err
		case <-ctx.Done():
			var zero T
			return zero, ctx.Err()
		}
	}, nil
}

// Interrupt stops the running cell at once (it does not wait behind the
// queue) and drops the queued ones; it reports whether there was anything
// to stop.
func (d *Document) Interrupt() bool { return d.sess.interrupt() }

// stopRunning ends the running execution at once, as a restart does,
// whatever its code does (the kernel's process is killed): a restart must
// not wait behind a cell that catches its KeyboardInterrupt.
func (s *session) stopRunning() {
	s.mu.Lock()
	_, running := s.current.(*execution)
	k := s.k
	s.mu.Unlock()
	if st, ok := k.(kernel.Stopper); ok && running {
		st.Stop()
	}
}

// Restart stops the running cell at once, drops the queued ones, then
// empties the namespace (execution count back to 0); the reply is the
// kernel's info.
func (d *Document) Restart() (contract.Reply[*contract.KernelInfo], error) {
	d.sess.interrupt()
	d.sess.stopRunning()
	return control(d.sess, func(s *session) (*contract.KernelInfo, error) {
		s.mu.Lock()
		k := s.k
		s.mu.Unlock()
		if k != nil {
			ctx, cancel := context.WithTimeout(s.nb.life, time.Minute)
			defer cancel()
			if err := k.Restart(ctx); err != nil {
				return nil, err
			}
		}
		s.newGeneration()
		return s.info(), nil
	})
}

// SetBackend switches the document to another backend: once the runs
// queued before it are done, the kernel is closed and the next run starts
// one on the new backend. It fails at once when that backend cannot exist
// here; the reply is the new kernel's info.
func (d *Document) SetBackend(backend contract.Backend) (contract.Reply[*contract.KernelInfo], error) {
	cfg := d.sess.config()
	cfg.Settings.Backend = backend
	k, err := d.nb.opts.NewKernel(cfg)
	if err != nil {
		return nil, fmt.Errorf("cannot use the %s backend: %w", backend, err)
	}
	_ = k.Close()
	return control(d.sess, func(s *session) (*contract.KernelInfo, error) {
		s.mu.Lock()
		k := s.k
		s.k = nil
		s.backend = backend
		s.gen++
		s.mu.Unlock()
		if k != nil {
			if err := k.Close(); err != nil {
				s.nb.log.Warn("closing kernel", zap.String("uri", s.doc.uri), zap.Error(err))
			}
		}
		s.nb.ev.Refresh(false)
		return s.info(), nil
	})
}

// Variables lists the namespace after the runs queued before it.
func (d *Document) Variables() (contract.Reply[*contract.VariablesResult], error) {
	return control(d.sess, func(s *session) (*contract.VariablesResult, error) {
		s.mu.Lock()
		k := s.k
		s.mu.Unlock()
		vars := []contract.Variable{}
		if k != nil {
			ctx, cancel := context.WithTimeout(s.nb.life, time.Minute)
			defer cancel()
			v, err := k.Variables(ctx)
			if err != nil {
				return nil, err
			}
			if v != nil {
				vars = v
			}
		}
		return &contract.VariablesResult{Variables: vars}, nil
	})
}

// KernelInfo describes the document's kernel, creating it (not starting
// it) when there is none yet.
func (d *Document) KernelInfo() *contract.KernelInfo { return d.sess.info() }

func (s *session) info() *contract.KernelInfo {
	k, _, err := s.kernel()
	if err != nil {
		return &contract.KernelInfo{URI: s.doc.uri, Backend: s.configuredBackend(), State: kernel.StateDead, Notes: []string{err.Error()}}
	}
	info := k.Info()
	info.URI = s.doc.uri
	return &info
}
