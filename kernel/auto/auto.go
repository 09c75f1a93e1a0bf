package auto

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/containerkernel"
	"github.com/backyard-ls/backyard-ls/kernel/internal/kcore"
	"github.com/backyard-ls/backyard-ls/kernel/montykernel"
	"go.uber.org/zap"
)

// Kernel is the auto kernel, the default: cells run on Monty until one
// needs full CPython (an import Monty lacks, a construct Monty rejects or
// runs differently), then the document moves to a container kernel. The
// move replays the cells that ran successfully on Monty, silently, so the
// names they defined exist in the container; the document stays there until
// Restart, which goes back to Monty. Replay is safe because Monty code
// cannot have changed the outside world (it has no I/O), and host functions
// are not called again: a replayed call gets the answer of the first.
//
// Lock order: q, then mu; neither is held while a backend is called, except
// q, which serializes executions.
type Kernel struct {
	cfg          kernel.Config
	monty        *montykernel.Kernel
	newContainer func() (ContainerKernel, error)
	log          *zap.Logger
	q            kcore.Queue
	// life ends with Close: pre-warms run under it and Close waits for them.
	life context.Context
	end  context.CancelFunc
	warm sync.WaitGroup

	// Owned by the goroutine holding q.
	caps    *Capabilities
	history []*kcore.Replayable // cells that ran ok on Monty, in order

	mu       sync.Mutex // guards the fields below
	ctr      ContainerKernel
	moved    bool
	reason   string // why the document moved
	count    int
	active   kernel.Kernel // the kernel running the current execution
	closed   bool
	warmDone chan struct{} // closed when a pre-warm ends
}

var _ kernel.Prewarmer = (*Kernel)(nil)

// ContainerKernel is a container-backed kernel that can be started ahead
// of its first cell.
type ContainerKernel interface {
	kernel.Kernel
	kernel.Installer
	Start(ctx context.Context) error
}

// New returns an auto kernel; nothing starts until the first cell.
func New(cfg kernel.Config) (*Kernel, error) {
	a := &Kernel{cfg: cfg, log: cfg.Log(), q: kcore.NewQueue()}
	a.life, a.end = context.WithCancel(context.Background())
	mo := montykernel.OptionsOf(cfg)
	mo.OnState = a.forwardState(func() bool { return !a.isMoved() })
	m, err := montykernel.New(mo)
	if err != nil {
		return nil, err
	}
	a.monty = m
	a.newContainer = func() (ContainerKernel, error) {
		co := containerkernel.OptionsOf(cfg)
		co.OnState = a.forwardState(a.isMoved)
		return containerkernel.New(co)
	}
	return a, nil
}

func (a *Kernel) isMoved() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.moved
}

// forwardState passes a backend's state changes on while it is the one
// the document uses.
func (a *Kernel) forwardState(current func() bool) func(kernel.State) {
	return func(s kernel.State) {
		if a.cfg.OnState != nil && current() {
			a.cfg.OnState(s)
		}
	}
}

func (a *Kernel) capabilities(ctx context.Context) (*Capabilities, error) {
	if a.caps == nil {
		c, err := MontyCapabilities(ctx, a.monty.Binary())
		if err != nil {
			return nil, fmt.Errorf("probe the Monty worker: %w", err)
		}
		a.caps = c
	}
	return a.caps, nil
}

// Execute implements Kernel.
func (a *Kernel) Execute(ctx context.Context, req kernel.Request) (kernel.Result, error) {
	if err := a.q.Acquire(ctx); err != nil {
		return kernel.Result{}, err
	}
	defer a.q.Release()
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return kernel.Result{}, kernel.ErrClosed
	}
	moved := a.moved
	if !req.Silent {
		a.count++
	}
	count := a.count
	a.mu.Unlock()

	var r kernel.Result
	var err error
	if moved {
		r, err = a.run(ctx, a.ctr, req)
	} else {
		r, err = a.onMonty(ctx, req)
	}
	// A backend that died between cells did not run the cell (count 0).
	if !req.Silent && !(r.Status == kernel.StatusCrashed && r.ExecutionCount == 0) {
		r.ExecutionCount = count
	}
	if r.Status == kernel.StatusCrashed {
		// The backend starts afresh: so does the count.
		a.mu.Lock()
		a.count = 0
		a.mu.Unlock()
	}
	return r, err
}

func (a *Kernel) run(ctx context.Context, k kernel.Kernel, req kernel.Request) (kernel.Result, error) {
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

func (a *Kernel) onMonty(ctx context.Context, req kernel.Request) (kernel.Result, error) {
	caps, err := a.capabilities(ctx)
	if err != nil {
		return kernel.Result{}, err
	}
	if why := route(req.Code, caps); why != "" {
		return a.move(ctx, req, why)
	}
	funcs, rec := kcore.Recording(req)
	mreq := req
	mreq.Functions = funcs
	r, err := a.run(ctx, a.monty, mreq)
	if err != nil {
		return r, err
	}
	if r.Status == kernel.StatusError {
		if why := unsupported(r.Error); why != "" {
			if req.OnOutput != nil && !req.Silent {
				req.OnOutput(kernel.Stderr, "[backyard: "+why+"; running the cell in the container]\n")
			}
			return a.move(ctx, req, why)
		}
	}
	switch r.Status {
	case kernel.StatusOK:
		a.history = append(a.history, rec)
	case kernel.StatusCrashed:
		a.history = nil // a fresh Monty kernel: nothing to replay
	}
	return r, nil
}

// move starts the container (or takes the pre-warmed one), replays the
// history into it and runs the cell there. When the container cannot take
// over, the document stays on Monty and the cell's result says why.
func (a *Kernel) move(ctx context.Context, req kernel.Request, why string) (kernel.Result, error) {
	ctr, err := a.container(ctx)
	if err != nil {
		return unavailable(why, err), nil
	}
	for i, h := range a.history {
		rr, err := a.run(ctx, ctr, h.Request())
		if err == nil && rr.Status == kernel.StatusOK {
			continue
		}
		msg := fmt.Sprintf("replaying cell %d of %d in the container failed", i+1, len(a.history))
		if err != nil {
			msg += ": " + err.Error()
		} else if rr.Error != nil {
			msg += fmt.Sprintf(": %s: %s", rr.Error.EName, rr.Error.EValue)
		}
		a.log.Warn("move to the container failed", zap.String("reason", why), zap.String("replay", msg))
		_ = ctr.Restart(a.life)
		r := kernel.Result{Status: kernel.StatusError, Backend: contract.BackendContainer, Error: &contract.ExecutionError{EName: "ReplayError", EValue: msg + "; the document stays on Monty", Traceback: []contract.Frame{{Name: "replayed cell", Text: firstLine(h.Code)}}}}
		if rr.Status == kernel.StatusInterrupted {
			r.Status = kernel.StatusInterrupted
		}
		return r, nil
	}
	a.mu.Lock()
	a.moved, a.reason = true, why
	a.mu.Unlock()
	a.monty.Restart(a.life) // its worker is not needed any more
	a.history = nil
	a.log.Info("document moved to the container", zap.String("reason", why))
	if a.cfg.OnState != nil {
		a.cfg.OnState(ctr.Info().State)
	}
	return a.run(ctx, ctr, req)
}

func unavailable(why string, err error) kernel.Result {
	return kernel.Result{Status: kernel.StatusError, Backend: contract.BackendContainer, Error: &contract.ExecutionError{
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
func (a *Kernel) container(ctx context.Context) (ContainerKernel, error) {
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
func (a *Kernel) Prewarm(codes []string) bool {
	a.mu.Lock()
	if a.closed || a.moved || a.warmDone != nil {
		a.mu.Unlock()
		return false
	}
	a.mu.Unlock()
	caps, err := MontyCapabilities(a.life, a.monty.Binary())
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
	a.warm.Add(1)
	go func() {
		defer a.warm.Done()
		defer close(done)
		// A failed pre-warm is tried again by the move, which reports it.
		if err := ctr.Start(a.life); err != nil {
			a.log.Info("pre-warming the container failed", zap.Error(err))
		}
	}()
	a.log.Info("pre-warming the container", zap.String("reason", why))
	return true
}

// Install implements kernel.Installer: into the container's package
// volume, also before the document moved (it finds them there).
func (a *Kernel) Install(ctx context.Context, packages []string) error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return kernel.ErrClosed
	}
	if a.ctr == nil {
		ctr, err := a.newContainer()
		if err != nil {
			a.mu.Unlock()
			return err
		}
		a.ctr = ctr
	}
	ctr := a.ctr
	a.mu.Unlock()
	return ctr.Install(ctx, packages)
}

// Interrupt implements Kernel.
func (a *Kernel) Interrupt() error {
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
func (a *Kernel) Restart(ctx context.Context) error {
	a.Interrupt()
	if err := a.q.Acquire(ctx); err != nil {
		return err
	}
	defer a.q.Release()
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
func (a *Kernel) Variables(ctx context.Context) ([]kernel.Variable, error) {
	a.mu.Lock()
	k := kernel.Kernel(a.monty)
	if a.moved {
		k = a.ctr
	}
	a.mu.Unlock()
	return k.Variables(ctx)
}

// Info implements Kernel: the backend the document uses now, with why it
// moved.
func (a *Kernel) Info() kernel.Info {
	a.mu.Lock()
	moved, reason, count, ctr := a.moved, a.reason, a.count, a.ctr
	warming := a.warmDone != nil && !moved
	a.mu.Unlock()
	var info kernel.Info
	if moved {
		info = ctr.Info()
		info.Notes = append([]string{"moved from Monty to the container: " + reason}, info.Notes...)
	} else {
		info = a.monty.Info()
		if warming {
			info.Notes = append(info.Notes, "the container was started early (pre-warmed) for a later cell")
		}
	}
	info.Mode = contract.BackendAuto
	info.Reason = reason
	info.ExecutionCount = count
	return info
}

// Close implements Kernel.
func (a *Kernel) Close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	ctr := a.ctr
	a.mu.Unlock()
	a.end() // a pre-warm's start stops
	a.Interrupt()
	errs := []error{a.monty.Close()}
	if ctr != nil {
		errs = append(errs, ctr.Close())
	}
	a.warm.Wait()
	return errors.Join(errs...)
}
