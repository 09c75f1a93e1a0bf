package containerkernel

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/internal/kcore"
	"go.uber.org/zap"
)

// stopReason says why the host stopped a running cell.
type stopReason int

const (
	notStopped stopReason = iota
	stopInterrupt
	stopTimeout
	stopRestart // Restart or Close: the container is killed at once
)

// containerCell runs one cell in a session and turns the outcome into a
// Result. ended is set when the session is gone afterwards.
type containerCell struct {
	code   string
	source string // the cell as written, when code is its transformation
	count  int    // the execution count (0: silent)
	// earlier are cells the document ran elsewhere, filed first
	// (kernel.Request.Earlier).
	earlier []container.HistoryEntry
	// lastError is the document's last exception, raised on another
	// backend (kernel.Request.LastError).
	lastError *contract.ExecutionError
	file      string // __file__
	silent    bool
	limits    kernel.Limits
	// spent is what the cell spent of its time limit on another backend
	// (kernel.Request.Spent): it may run for what is left.
	spent   time.Duration
	grace   time.Duration
	out     *kcore.Output
	log     *zap.Logger
	onInput func(ctx context.Context, prompt string, password bool) (string, error)
	onSent  func()
	// onDisplay hears the display events as they come (kernel.Request.OnDisplay).
	onDisplay func(d contract.Display, update, clear bool)
	// rep carries interrupt requests after the first (which cancels the
	// cell's context): each sends one more SIGINT.
	rep *kcore.Repeats
	// life is the kernel's lifetime; hard closes when Restart or Close
	// must stop the cell at once.
	life context.Context
	hard <-chan struct{}

	mu        sync.Mutex
	reason    stopReason
	killed    bool // stopped by killing the container after the grace period
	dismissed bool // the person dismissed an input() question

	result kernel.Result
	ended  bool

	inputs map[string]any
	funcs  map[string]kernel.HostFunc
	// pip runs the cell's %pip install lines on the host.
	pip func(ctx context.Context, line string) string
	// held tells the watcher that holds (guarded by mu) changed: while a
	// %pip install runs, the time limit is stopped.
	held  chan struct{}
	holds int
}

// hold stops the cell's time limit until the returned func is called.
func (c *containerCell) hold() (release func()) {
	c.setHolds(1)
	return func() { c.setHolds(-1) }
}

func (c *containerCell) setHolds(d int) {
	c.mu.Lock()
	c.holds += d
	c.mu.Unlock()
	select {
	case c.held <- struct{}{}:
	default: // the watcher has one to read: it reads holds then
	}
}

func (c *containerCell) stop(r stopReason, kill bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if r > c.reason {
		c.reason = r // a restart outranks a time limit, which outranks an interrupt
	}
	c.killed = c.killed || kill
}

// input adapts the kernel's OnInput to the session's.
func (c *containerCell) input() func(context.Context, string, bool) (*string, bool) {
	if c.onInput == nil || c.silent {
		return nil
	}
	return func(ctx context.Context, prompt string, password bool) (*string, bool) {
		line, err := c.onInput(ctx, prompt, password)
		if err != nil {
			d := errors.Is(err, kernel.ErrInputDismissed)
			if d {
				c.mu.Lock()
				c.dismissed = true
				c.mu.Unlock()
			}
			return nil, d
		}
		return &line, false
	}
}

func (c *containerCell) run(ctx context.Context, s *container.Session) {
	c.rep.Running(ctx)
	start := time.Now()
	done := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		c.watch(ctx, s, done)
	}()
	displays := kcore.NewDisplays(c.limits.MaxOutputBytes)
	// Output and displays come in the order the cell made them: a display's place is the streams' length then.
	displays.Position = func() (int, int) { return c.out.Len(kernel.Stdout), c.out.Len(kernel.Stderr) }
	// The reply ends the exec; the watcher kills the container to end it
	// early, so it runs under the kernel's lifetime, not the cell's ctx.
	reply, err := s.Exec(c.life, container.ExecRequest{
		Code: c.code, Source: c.source, Silent: c.silent, MaxOutput: c.limits.MaxOutputBytes, Input: c.input(),
		Inputs: c.inputs, Functions: funcNames(c.funcs), OnCall: onCall(ctx, c.funcs, c.pip), OnSent: c.onSent,
		OnCut: func(stream string, n int) { c.out.Skip(kernel.Stream(stream), n) }, File: c.file, Count: c.count,
		LastError: container.PyErrorOf(c.lastError), History: c.earlier,
		OnDisplay: func(d container.Display) {
			// An update of no output of this cell still goes out: it may
			// be of an earlier cell's.
			if x, ok := displays.Add(d.Data, d.Metadata, d.ID, d.Update, d.Clear, d.AfterResult); (ok || d.Update) && c.onDisplay != nil {
				c.onDisplay(x, d.Update, d.Clear)
			}
		},
	}, func(stream, text string) { c.out.Write(kernel.Stream(stream), text) })
	close(done)
	<-watched
	select {
	case <-c.hard:
		// Restart or Close: the exec may have ended with the kernel's
		// lifetime before the watcher saw hard.
		c.kill(s)
	default:
	}
	r := &c.result
	r.Duration = time.Since(start)
	c.out.End()
	r.Stdout, r.Stderr = c.out.Stdout(), c.out.Stderr()
	displays.Clamp(len(r.Stdout), len(r.Stderr))
	r.Displays = displays.List()
	if err != nil {
		c.ended = true
		c.failed(s, err)
		return
	}
	r.Files = reply.Files
	if reply.OK {
		r.Status = kernel.StatusOK
		if e := reply.Error; e != nil {
			// An error output of a cell that succeeded: the exception %tb
			// shows again, which IPython's kernel sends as an error message
			// beside an ok reply.
			r.Error = e.ExecutionError()
		}
		if v := reply.Value; v != nil {
			r.Value = &contract.Value{Text: v.Text, MIME: v.MIME}
			kcore.CapValue(r.Value, c.limits.MaxOutputBytes, v.Cut, v.Dropped)
		}
		return
	}
	e := reply.Error
	if e == nil {
		e = &container.PyError{EName: "Error", EValue: "the kernel reported an error without details"}
	}
	r.Status = kernel.StatusError
	r.Error = e.ExecutionError()
	c.mu.Lock()
	stopped := c.reason != notStopped || c.dismissed
	c.mu.Unlock()
	if e.EName == "KeyboardInterrupt" && stopped { // a cell's own raise is an error, as in Jupyter
		r.Status = kernel.StatusInterrupted
		if c.reason == stopTimeout {
			r.Status = kernel.StatusTimeout
			r.Error.EName = "TimeoutError"
			r.Error.EValue = fmt.Sprintf("cell exceeded the %s time limit", c.limits.Timeout)
		}
	}
}

// failed fills the result of a cell whose container stopped or whose engine
// went away.
func (c *containerCell) failed(s *container.Session, err error) {
	r := &c.result
	c.mu.Lock()
	reason, killed := c.reason, c.killed
	c.mu.Unlock()
	switch {
	case reason == stopRestart:
		r.Status = kernel.StatusInterrupted
		r.Error = kcore.Restarted()
	case reason == stopTimeout && killed:
		r.Status = kernel.StatusTimeout
		r.Error = &contract.ExecutionError{EName: "TimeoutError", EValue: fmt.Sprintf(
			"cell exceeded the %s time limit and did not stop within %s, so the kernel was restarted and its state is lost", c.limits.Timeout, c.grace)}
	default:
		if !errors.Is(err, container.ErrEnded) {
			s.Kill() // the exec stopped waiting: the session's state is unknown
		}
		x := s.Exit(c.life)
		c.log.Warn("container kernel crashed", zap.String("why", x.Describe()), zap.NamedError("exec", err))
		r.Status = kernel.StatusCrashed
		// Describe words a death as every backend does (container.DeathText).
		r.Error = &contract.ExecutionError{EName: "KernelCrashed", EValue: x.Describe() + "; the next run starts a fresh kernel"}
		if errors.Is(err, container.ErrEnded) && x.EngineLost {
			r.Error.EName = "EngineLost"
		}
	}
}

// watchWakeups counts the watcher's wake-ups (tests check it does not
// spin while a cell handles an interrupt).
var watchWakeups atomic.Int64

// watch stops the cell the way Jupyter does. An interrupt (ctx cancelled,
// then each request on again) sends one SIGINT: a cell that catches
// KeyboardInterrupt runs on, as long as it likes. The time limit sends a
// SIGINT and, after the grace period, kills the container. Restart and
// Close (hard) kill at once. It returns when done is closed.
func (c *containerCell) watch(ctx context.Context, s *container.Session, done <-chan struct{}) {
	deadline := time.Now().Add(max(c.limits.Timeout-c.spent, 0))
	limit := time.NewTimer(time.Until(deadline))
	defer limit.Stop()
	var heldSince time.Time
	cancelled := ctx.Done()
	var grace <-chan time.Time
	for {
		select {
		case <-done:
			return
		case <-c.held:
			// A %pip install on the host: its time (and the question under
			// "ask") is not the cell's.
			c.mu.Lock()
			held := c.holds > 0
			c.mu.Unlock()
			switch {
			case held && heldSince.IsZero() && grace == nil:
				heldSince = time.Now()
				limit.Stop()
			case !held && !heldSince.IsZero():
				deadline = deadline.Add(time.Since(heldSince))
				heldSince = time.Time{}
				limit.Reset(time.Until(deadline))
			}
		case <-c.hard:
			c.kill(s)
			return
		case <-cancelled:
			watchWakeups.Add(1)
			cancelled = nil
			c.stop(stopInterrupt, false)
			c.interrupt(s)
		case <-c.rep.C:
			watchWakeups.Add(1)
			c.interrupt(s)
		case <-limit.C:
			watchWakeups.Add(1)
			c.stop(stopTimeout, false)
			c.interrupt(s)
			t := time.NewTimer(c.grace)
			defer t.Stop()
			grace = t.C
		case <-grace:
			c.stop(notStopped, true)
			s.Kill()
			return
		}
	}
}

// kill stops the container at once for Restart or Close, which remove it
// next anyway: removed now, in one call to the engine rather than a kill
// and then a removal.
func (c *containerCell) kill(s *container.Session) {
	c.stop(stopRestart, true)
	if err := s.Close(); err != nil {
		c.log.Warn("remove kernel container", zap.Error(err))
	}
}

func (c *containerCell) interrupt(s *container.Session) {
	ctx, cancel := context.WithTimeout(c.life, 2*time.Second)
	defer cancel()
	if err := s.Interrupt(ctx); err != nil {
		c.log.Warn("interrupt", zap.Error(err))
	}
}
