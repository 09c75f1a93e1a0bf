package kernel

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/backyard-ls/backyard-ls/container"
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
	silent bool
	limits Limits
	grace  time.Duration
	out    *output
	log    *zap.Logger

	mu     sync.Mutex
	reason stopReason
	killed bool // stopped by killing the container after the grace period

	result Result
	ended  bool
}

func (c *containerCell) stop(r stopReason, kill bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reason == notStopped || r == stopRestart {
		c.reason = r
	}
	c.killed = c.killed || kill
}

func (c *containerCell) run(ctx context.Context, s *container.Session) {
	start := time.Now()
	done := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		c.watch(ctx, s, done)
	}()
	reply, err := s.Exec(context.Background(), container.ExecRequest{
		Code: c.code, Silent: c.silent, MaxOutput: c.limits.MaxOutputBytes,
	}, func(stream, text string) { c.out.write(Stream(stream), text) })
	close(done)
	<-watched
	r := &c.result
	r.Duration = time.Since(start)
	r.Stdout, r.Stderr = c.out.stdout.String(), c.out.stderr.String()
	if err != nil {
		c.ended = true
		c.failed(s, err)
		return
	}
	if reply.OK {
		r.Status = StatusOK
		if reply.Value != nil {
			r.Value = &Value{Text: reply.Value.Text, MIME: reply.Value.MIME}
		}
		return
	}
	e := reply.Error
	if e == nil {
		e = &container.PyError{EName: "Error", EValue: "the kernel reported an error without details"}
	}
	r.Status = StatusError
	r.Error = &Error{EName: e.EName, EValue: e.EValue, Traceback: make([]Frame, 0, len(e.Traceback))}
	for _, f := range e.Traceback {
		r.Error.Traceback = append(r.Error.Traceback, Frame{Line: f.Line, Name: f.Name, Text: f.Text})
	}
	if reply.Exit != nil {
		c.ended = true // the driver has exited
		return
	}
	if e.EName == "KeyboardInterrupt" {
		r.Status = StatusInterrupted
		if c.reason == stopTimeout {
			r.Status = StatusTimeout
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
	lost := fmt.Sprintf("did not stop within %s, so the kernel was restarted and its state is lost", c.grace)
	switch {
	case reason == stopRestart:
		r.Status = StatusInterrupted
		r.Error = &Error{EName: "KeyboardInterrupt", EValue: "the kernel was restarted"}
	case reason == stopTimeout && killed:
		r.Status = StatusTimeout
		r.Error = &Error{EName: "TimeoutError", EValue: fmt.Sprintf("cell exceeded the %s time limit and %s", c.limits.Timeout, lost)}
	case reason == stopInterrupt && killed:
		r.Status = StatusInterrupted
		r.Error = &Error{EName: "KeyboardInterrupt", EValue: "the cell " + lost}
	default:
		x := s.Exit(context.Background())
		c.log.Warn("container kernel crashed", zap.String("why", x.Describe()), zap.NamedError("exec", err))
		r.Status = StatusCrashed
		r.Error = &Error{EName: "KernelCrashed", EValue: x.Describe() + "; the next run starts a fresh kernel"}
		if errors.Is(err, container.ErrEnded) && x.EngineLost {
			r.Error.EName = "EngineLost"
		}
	}
}

// watch stops the cell on an interrupt (ctx cancelled) or when the time
// limit passes: SIGINT first, repeated, then a kill after the grace period.
// It returns when done is closed.
func (c *containerCell) watch(ctx context.Context, s *container.Session, done <-chan struct{}) {
	limit := time.NewTimer(c.limits.Timeout)
	defer limit.Stop()
	select {
	case <-done:
		return
	case <-ctx.Done():
		if c.hardStop(ctx, s) {
			return
		}
		c.stop(stopInterrupt, false)
	case <-limit.C:
		c.stop(stopTimeout, false)
	}
	c.interrupt(s)
	again := time.NewTicker(interruptRepeat)
	defer again.Stop()
	grace := time.NewTimer(c.grace)
	defer grace.Stop()
	for {
		select {
		case <-done:
			return
		case <-again.C:
			c.interrupt(s)
		case <-grace.C:
			c.stop(notStopped, true)
			s.Kill()
			return
		case <-ctx.Done():
			if c.hardStop(ctx, s) {
				return
			}
		}
	}
}

// hardStop kills the container at once when ctx was cancelled by Restart or
// Close, and reports whether it did.
func (c *containerCell) hardStop(ctx context.Context, s *container.Session) bool {
	cause := context.Cause(ctx)
	if !errors.Is(cause, errRestarted) && !errors.Is(cause, ErrClosed) {
		return false
	}
	c.stop(stopRestart, true)
	s.Kill()
	return true
}

func (c *containerCell) interrupt(s *container.Session) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := s.Interrupt(ctx); err != nil {
		c.log.Warn("interrupt", zap.Error(err))
	}
}
