package containerkernel

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/internal/kcore"
)

// BatchOptions configure the fork-server containers of a batch.
type BatchOptions struct {
	// Container are the container settings (image, runtime, network); the
	// workspace is never mounted.
	Container  contract.ContainerSettings
	DockerHost string
	// Limits bound every snippet (a snippet's Timeout replaces the time
	// limit).
	Limits kernel.Limits
	// Preload are modules each fork server imports once, e.g. "numpy".
	Preload []string
	// HashSeed is the snippets' PYTHONHASHSEED ("0", "random"); empty
	// leaves Python's default (random per fork server).
	HashSeed string
	// OnWarning gets warnings for the user (gVisor missing), each once.
	OnWarning func(string)
	Logger    *zap.Logger
}

// ForkPool hands out the lanes of one batch. A fork server that cannot
// start fails every lane the same way from then on, without trying again.
type ForkPool struct {
	opts BatchOptions

	mu     sync.Mutex
	failed error
}

// NewForkPool returns a pool; nothing starts until a lane runs.
func NewForkPool(opts BatchOptions) *ForkPool {
	opts.Limits = opts.Limits.WithDefaults()
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	return &ForkPool{opts: opts}
}

// ForkLane runs snippets one at a time on its own fork-server container
// (container.ForkServer), started on first use and again after it stopped.
// A ForkLane is not safe for concurrent use, except Close.
type ForkLane struct {
	pool *ForkPool

	mu sync.Mutex
	f  *container.ForkServer
}

// Lane returns a new lane of the pool.
func (p *ForkPool) Lane() *ForkLane { return &ForkLane{pool: p} }

func (p *ForkPool) startErr() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failed
}

// Start starts the lane's fork server if it is not running.
func (l *ForkLane) Start(ctx context.Context) error {
	l.mu.Lock()
	f := l.f
	l.mu.Unlock()
	if f != nil && f.Alive() {
		return nil
	}
	p := l.pool
	if err := p.startErr(); err != nil {
		return err
	}
	o := p.opts
	cfg := container.Config{
		ContainerSettings: o.Container, DockerHost: o.DockerHost, Packages: true,
		MemoryBytes: int64(o.Limits.MemoryBytes), RecursionLimit: o.Limits.RecursionDepth, Logger: o.Logger,
	}
	if o.HashSeed != "" {
		// Every child of a fork server has its hash secret: one seed for
		// all of them makes the lanes alike.
		cfg.Env = map[string]string{"PYTHONHASHSEED": o.HashSeed}
	}
	e, err := container.Shared(ctx, o.DockerHost, o.Logger)
	if err == nil {
		f, err = e.StartForkServer(ctx, cfg, o.Preload)
	}
	if err != nil {
		if ctx.Err() == nil {
			p.mu.Lock()
			p.failed = fmt.Errorf("start the batch's container: %w", err)
			err = p.failed
			p.mu.Unlock()
		}
		return err
	}
	if w := f.Runtime().Warning; w != "" {
		warnOnce(w, o.OnWarning)
	}
	l.mu.Lock()
	l.f = f
	l.mu.Unlock()
	return nil
}

// Run runs one snippet; every outcome is a result. A container that
// stopped under the snippet (its memory, a fork bomb under gVisor) makes
// it a crash, and the next snippet gets a new container.
func (l *ForkLane) Run(ctx context.Context, sn kernel.Snippet) kernel.Result {
	lim := sn.Of(l.pool.opts.Limits)
	if err := container.CheckFiles(sn.Files); err != nil {
		return InvalidSnippet(err)
	}
	if err := l.Start(ctx); err != nil {
		if ctx.Err() != nil {
			return interruptedSnippet()
		}
		return kernel.Result{Status: kernel.StatusError, Backend: contract.BackendContainer, Error: &contract.ExecutionError{
			EName: "BackendUnavailable", EValue: err.Error(),
		}}
	}
	l.mu.Lock()
	f := l.f
	l.mu.Unlock()
	out := kcore.NewOutput(lim.MaxOutputBytes, kernel.Request{})
	r := kernel.Result{Backend: contract.BackendContainer, Runtime: f.Runtime().Name}
	got, err := f.Run(ctx, container.Snippet{
		Code: sn.Code, Inputs: sn.Inputs, Files: sn.Files, Timeout: lim.Timeout,
		MemoryBytes: int64(lim.MemoryBytes), MaxOutput: lim.MaxOutputBytes, RecursionLimit: lim.RecursionDepth,
	})
	if err != nil {
		l.discard()
		if ctx.Err() != nil {
			return interruptedSnippet()
		}
		why := err.Error()
		if errors.Is(err, container.ErrEnded) {
			why = "the snippet's container stopped: " + why
		}
		r.Status = kernel.StatusCrashed
		r.Error = &contract.ExecutionError{EName: "KernelCrashed", EValue: why + "; the next snippet gets a new container"}
		return r
	}
	out.Write(kernel.Stdout, got.Stdout)
	out.Write(kernel.Stderr, got.Stderr)
	r.Stdout, r.Stderr, r.Duration = out.Stdout(), out.Stderr(), got.Duration
	if got.Value != nil {
		r.Value = &contract.Value{Text: got.Value.Text}
	}
	if e := got.Error; e != nil {
		r.Error = e.ExecutionError()
	}
	switch got.Status {
	case "ok":
		r.Status = kernel.StatusOK
	case "error":
		r.Status = kernel.StatusError
	case "timeout":
		r.Status = kernel.StatusTimeout
		r.Error = &contract.ExecutionError{EName: "TimeoutError", EValue: fmt.Sprintf("cell exceeded the %s time limit", lim.Timeout)}
	default:
		r.Status = kernel.StatusCrashed
		if r.Error == nil {
			r.Error = &contract.ExecutionError{EName: "KernelCrashed", EValue: "the snippet ended without a result"}
		}
	}
	return r
}

func (l *ForkLane) discard() {
	l.mu.Lock()
	f := l.f
	l.f = nil
	l.mu.Unlock()
	if f != nil {
		f.Close()
	}
}

// Close removes the lane's container.
func (l *ForkLane) Close() { l.discard() }

// InvalidSnippet is the result of a snippet that cannot run as given (a
// file name outside its working directory, say).
func InvalidSnippet(err error) kernel.Result {
	return kernel.Result{Status: kernel.StatusError, Error: &contract.ExecutionError{EName: "BatchInputError", EValue: err.Error()}}
}

func interruptedSnippet() kernel.Result {
	return kernel.Result{Status: kernel.StatusInterrupted, Backend: contract.BackendContainer,
		Error: &contract.ExecutionError{EName: "KeyboardInterrupt", EValue: "the batch was stopped"}}
}
