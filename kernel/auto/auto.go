package kernel

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.uber.org/zap"
)

// Auto is the default kernel: cells run on Monty until one needs full
// CPython (an import Monty lacks, a construct Monty rejects or runs
// differently), then the document moves to a container kernel. The move
// replays the cells that ran successfully on Monty, silently, so the names
// they defined exist in the container; the document stays there until
// Restart, which goes back to Monty. Replay is safe because Monty code
// cannot have changed the outside world (it has no I/O).
type Auto struct {
	cfg          Config
	monty        *Monty
	newContainer func() (ContainerKernel, error)
	log          *zap.Logger
	q            queue

	// Owned by the goroutine holding q.
	caps    *Capabilities
	history []string // cells that ran ok on Monty, in order

	mu       sync.Mutex // guards the fields below
	ctr      ContainerKernel
	moved    bool
	reason   string // why the document moved
	count    int
	active   Kernel // the kernel running the current execution
	closed   bool
	warmDone chan struct{} // closed when a pre-warm ends
}

// ContainerKernel is a container-backed Kernel that can be started ahead of
// its first cell.
type ContainerKernel interface {
	Kernel
	Start(ctx context.Context) error
}

// NewAuto returns an auto kernel; nothing starts until the first cell.
func NewAuto(cfg Config) (*Auto, error) {
	a := &Auto{cfg: cfg, log: cfg.Logger, q: newQueue()}
	if a.log == nil {
		a.log = zap.NewNop()
	}
	m, err := NewMonty(MontyOptions{Binary: cfg.MontyBinary, Limits: cfg.Limits, OnState: a.forwardState(func() bool { return !a.isMoved() })})
	if err != nil {
		return nil, err
	}
	a.monty = m
	a.newContainer = func() (ContainerKernel, error) {
		return NewContainer(ContainerOptions{Container: cfg.Container, Limits: cfg.Limits, Logger: cfg.Logger,
			OnState: a.forwardState(a.isMoved)})
	}
	return a, nil
}

func (a *Auto) isMoved() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.moved
}

// forwardState passes a backend's state changes on while it is the one
// the document uses.
func (a *Auto) forwardState(current func() bool) func(State) {
	return func(s State) {
		if a.cfg.OnState != nil && current() {
			a.cfg.OnState(s)
		}
	}
}

func (a *Auto) capabilities(ctx context.Context) (*Capabilities, error) {
	if a.caps == nil {
		c, err := MontyCapabilities(ctx, a.monty.opts.Binary)
		if err != nil {
			return nil, fmt.Errorf("probe the Monty worker: %w", err)
		}
		a.caps = c
	}
	return a.caps, nil
}

// Execute implements Kernel.
func (a *Auto) Execute(ctx context.Context, req Request) (Result, error) {
	if err := a.q.acquire(ctx); err != nil {
		return Result{}, err
	}
	defer a.q.release()
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return Result{}, ErrClosed
	}
	moved := a.moved
	if !req.Silent {
		a.count++
	}
	count := a.count
	a.mu.Unlock()

	var r Result
	var err error
	if moved {
		r, err = a.run(ctx, a.ctr, req)
	} else {
		r, err = a.onMonty(ctx, req)
	}
	if !req.Silent {
		r.ExecutionCount = count
	}
	if r.Status == StatusCrashed {
		// The backend starts afresh: so does the count.
		a.mu.Lock()
		a.count = 0
		a.mu.Unlock()
	}
	return r, err
}

func (a *Auto) run(ctx context.Context, k Kernel, req Request) (Result, error) {
	a.mu.Lock()
	a.active = k
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.active = nil
		a.mu.Unlock()
	}()
	return k.Execute(ctx, req)
}

func (a *Auto) onMonty(ctx context.Context, req Request) (Result, error) {
	caps, err := a.capabilities(ctx)
	if err != nil {
		return Result{}, err
	}
	if why := route(req.Code, caps); why != "" {
		return a.move(ctx, req, why)
	}
	r, err := a.run(ctx, a.monty, req)
	if err != nil {
		return r, err
	}
	if r.Status == StatusError {
		if why := unsupported(r.Error); why != "" {
			if req.OnOutput != nil && !req.Silent {
				req.OnOutput(Stderr, "[backyard: "+why+"; running the cell in the container]\n")
			}
			return a.move(ctx, req, why)
		}
	}
	switch r.Status {
	case StatusOK:
		a.history = append(a.history, req.Code)
	case StatusCrashed:
		a.history = nil // a fresh Monty kernel: nothing to replay
	}
	return r, nil
}

// move starts the container (or takes the pre-warmed one), replays the
// history into it and runs the cell there. When the container cannot take
// over, the document stays on Monty and the cell's result says why.
func (a *Auto) move(ctx context.Context, req Request, why string) (Result, error) {
	ctr, err := a.container(ctx)
	if err != nil {
		return unavailable(why, err), nil
	}
	for i, code := range a.history {
		rr, err := a.run(ctx, ctr, Request{Code: code, Silent: true})
		if err == nil && rr.Status == StatusOK {
			continue
		}
		msg := fmt.Sprintf("replaying cell %d of %d in the container failed", i+1, len(a.history))
		if err != nil {
			msg += ": " + err.Error()
		} else if rr.Error != nil {
			msg += fmt.Sprintf(": %s: %s", rr.Error.EName, rr.Error.EValue)
		}
		a.log.Warn("move to the container failed", zap.String("reason", why), zap.String("replay", msg))
		_ = ctr.Restart(context.WithoutCancel(ctx))
		r := Result{Status: StatusError, Backend: BackendContainer, Error: &Error{EName: "ReplayError", EValue: msg + "; the document stays on Monty", Traceback: []Frame{{Name: "replayed cell", Text: firstLine(code)}}}}
		if rr.Status == StatusInterrupted {
			r.Status = StatusInterrupted
		}
		return r, nil
	}
	a.mu.Lock()
	a.moved, a.reason = true, why
	a.mu.Unlock()
	a.monty.Restart(context.WithoutCancel(ctx)) // its worker is not needed any more
	a.history = nil
	a.log.Info("document moved to the container", zap.String("reason", why))
	if a.cfg.OnState != nil {
		a.cfg.OnState(ctr.Info().State)
	}
	return a.run(ctx, ctr, req)
}

func unavailable(why string, err error) Result {
	return Result{Status: StatusError, Backend: BackendContainer, Error: &Error{
		EName:  "BackendUnavailable",
		EValue: fmt.Sprintf("this cell needs the container backend (%s), which is not available: %v", why, err),
	}}
}

func firstLine(code string) string {
	for i, c := range code {
		if c == '\n' {
			return code[:i]
		}
	}
	return code
}

// container returns the started container kernel, waiting for a pre-warm
// in progress.
func (a *Auto) container(ctx context.Context) (ContainerKernel, error) {
	a.mu.Lock()
	done := a.warmDone
	a.mu.Unlock()
	if done != nil {
		select {
		case <-done:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	a.mu.Lock()
	if a.ctr == nil {
		ctr, err := a.newContainer()
		if err != nil {
			a.mu.Unlock()
			return nil, err
		}
		a.ctr = ctr
	}
	ctr := a.ctr
	a.warmDone = nil
	a.mu.Unlock()
	// Start returns at once when the pre-warm succeeded.
	if err := ctr.Start(ctx); err != nil {
		return nil, err
	}
	return ctr, nil
}

// Prewarm starts the container in the background when any of the
// document's cells will need it, so the move costs only the replay.
// It returns whether a start was begun.
func (a *Auto) Prewarm(codes []string) bool {
	a.mu.Lock()
	if a.closed || a.moved || a.warmDone != nil {
		a.mu.Unlock()
		return false
	}
	a.mu.Unlock()
	caps, err := MontyCapabilities(context.Background(), a.monty.opts.Binary)
	if err != nil {
		return false
	}
	why := ""
	for _, c := range codes {
		if why = route(c, caps); why != "" {
			break
		}
	}
	if why == "" {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed || a.moved || a.warmDone != nil {
		return false
	}
	if a.ctr == nil {
		ctr, err := a.newContainer()
		if err != nil {
			return false
		}
		a.ctr = ctr
	}
	done := make(chan struct{})
	a.warmDone = done
	ctr := a.ctr
	go func() {
		// A failed pre-warm is tried again by the move, which reports it.
		if err := ctr.Start(context.Background()); err != nil {
			a.log.Info("pre-warming the container failed", zap.Error(err))
		}
		close(done)
	}()
	a.log.Info("pre-warming the container", zap.String("reason", why))
	return true
}

// Interrupt implements Kernel.
func (a *Auto) Interrupt() error {
	a.mu.Lock()
	k := a.active
	a.mu.Unlock()
	if k != nil {
		return k.Interrupt()
	}
	return nil
}

// Restart implements Kernel: state is cleared and the document goes back
// to Monty.
func (a *Auto) Restart(ctx context.Context) error {
	a.Interrupt()
	if err := a.q.acquire(ctx); err != nil {
		return err
	}
	defer a.q.release()
	a.mu.Lock()
	ctr := a.ctr
	a.ctr, a.moved, a.reason, a.count = nil, false, "", 0
	a.warmDone = nil
	a.mu.Unlock()
	a.history = nil
	var errs []error
	if ctr != nil {
		errs = append(errs, ctr.Close())
	}
	errs = append(errs, a.monty.Restart(ctx))
	return errors.Join(errs...)
}

// Variables implements Kernel.
func (a *Auto) Variables(ctx context.Context) ([]Variable, error) {
	a.mu.Lock()
	k := Kernel(a.monty)
	if a.moved {
		k = a.ctr
	}
	a.mu.Unlock()
	return k.Variables(ctx)
}

// Info implements Kernel: the backend the document uses now, with why it
// moved.
func (a *Auto) Info() Info {
	a.mu.Lock()
	moved, reason, count, ctr := a.moved, a.reason, a.count, a.ctr
	warming := a.warmDone != nil && !moved
	a.mu.Unlock()
	var info Info
	if moved {
		info = ctr.Info()
		info.Notes = append([]string{"moved from Monty to the container: " + reason}, info.Notes...)
	} else {
		info = a.monty.Info()
		if warming {
			info.Notes = append(info.Notes, "the container was started early (pre-warmed) for a later cell")
		}
	}
	info.Mode = BackendAuto
	info.Reason = reason
	info.ExecutionCount = count
	return info
}

// Close implements Kernel.
func (a *Auto) Close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	ctr := a.ctr
	a.mu.Unlock()
	a.Interrupt()
	errs := []error{a.monty.Close()}
	if ctr != nil {
		errs = append(errs, ctr.Close())
	}
	return errors.Join(errs...)
}
