package containerkernel

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/internal/kcore"
	"github.com/backyard-ls/backyard-ls/pysrc/ipysyntax"
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
// The pool learns what its snippets import: a module its snippets keep
// importing is imported into every lane's fork server between snippets,
// as if it had been preloaded.
type ForkPool struct {
	opts  BatchOptions
	learn *learner

	mu     sync.Mutex
	failed error
}

// NewForkPool returns a pool; nothing starts until a lane runs.
func NewForkPool(opts BatchOptions) *ForkPool {
	opts.Limits = opts.Limits.WithDefaults()
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	return &ForkPool{opts: opts, learn: newLearner(opts.Preload)}
}

// Learned are the modules the pool's fork servers import because its
// snippets kept importing them.
func (p *ForkPool) Learned() []string { return p.learn.modules() }

// ForkLane runs snippets one at a time on its own fork-server container
// (container.ForkServer), started on first use and again after it stopped.
// A ForkLane is not safe for concurrent use, except Close.
type ForkLane struct {
	pool *ForkPool
	has  []string // the learned modules its fork server imported

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
	learned := p.learn.modules()
	e, err := container.Shared(ctx, o.DockerHost, o.Logger)
	if err == nil {
		f, err = e.StartForkServer(ctx, cfg, append(slices.Clone(o.Preload), learned...))
		if err != nil && len(learned) > 0 && ctx.Err() == nil {
			// What was learned may be what fails: without it.
			o.Logger.Warn("a fork server with the learned modules did not start", zap.Strings("modules", learned), zap.Error(err))
			p.learn.refuse(learned...)
			learned = nil
			f, err = e.StartForkServer(ctx, cfg, o.Preload)
		}
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
	l.f, l.has = f, learned
	l.mu.Unlock()
	return nil
}

// catchUp imports into the lane's fork server what the pool learned since
// it started. A module that fails, starts a thread or takes the memory
// meant for the snippets is never tried again; the server it spoiled is
// given up for a new one.
func (l *ForkLane) catchUp(ctx context.Context) error {
	var missing []string
	for _, m := range l.pool.learn.modules() {
		if !slices.Contains(l.has, m) {
			missing = append(missing, m)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	l.mu.Lock()
	f := l.f
	l.mu.Unlock()
	got, err := f.Import(ctx, missing)
	log := l.pool.opts.Logger
	switch {
	case err != nil:
		l.discard()
		if ctx.Err() != nil {
			return err
		}
		log.Warn("a fork server stopped importing learned modules", zap.Strings("modules", missing), zap.Error(err))
		l.pool.learn.refuse(missing...)
	case got.Threads > 1 || got.RSS > container.ForkServerHeadroom*3/4:
		log.Warn("learned modules make a fork server unfit: forgotten", zap.Strings("modules", got.Modules), zap.Int("threads", got.Threads), zap.Int64("rss", got.RSS))
		l.discard()
		l.pool.learn.refuse(got.Modules...)
	default:
		l.has = append(l.has, got.Modules...)
		log.Info("fork server imported learned modules", zap.Strings("modules", got.Modules))
	}
	for m, why := range got.Failed {
		log.Info("a learned module does not import", zap.String("module", m), zap.String("error", why))
		l.pool.learn.refuse(m)
		l.has = append(l.has, m) // not asked again
	}
	// Loaded before anything was learned: nothing to learn.
	l.pool.learn.refuse(got.Had...)
	l.has = append(l.has, got.Had...)
	return l.Start(ctx)
}

// Run runs one snippet; every outcome is a result. A snippet that is not
// a program runs as a fresh kernel's first cell: its IPython syntax
// (magics, shell escapes, help, automagic) is the shell's, as in the
// kernel. A container that
// stopped under the snippet (its memory, a fork bomb under gVisor) makes
// it a crash, and the next snippet gets a new container.
func (l *ForkLane) Run(ctx context.Context, sn kernel.Snippet) kernel.Result {
	lim := sn.Of(l.pool.opts.Limits)
	if err := container.CheckFiles(sn.Files); err != nil {
		return InvalidSnippet(err)
	}
	if err := container.CheckPaths(sn.Fetch); err != nil {
		return InvalidSnippet(err)
	}
	l.pool.learn.saw(sn.Code)
	err := l.Start(ctx)
	if err == nil {
		err = l.catchUp(ctx)
	}
	if err != nil {
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
	code, shell := sn.Code, false
	if !sn.Program {
		// A fresh kernel's first cell: its IPython syntax is the shell's.
		if t := ipysyntax.FirstCell(code, container.HasLineMagic); t.Magics() {
			code, shell = t.Code, true
		}
	}
	got, err := f.Run(ctx, container.Snippet{
		Code: code, Program: sn.Program, Shell: shell, Inputs: sn.Inputs, Stdin: sn.Stdin, Files: sn.Files, Fetch: sn.Fetch, Timeout: lim.Timeout,
		MemoryBytes: int64(lim.MemoryBytes), MaxOutput: lim.MaxOutputBytes, RecursionLimit: lim.RecursionDepth,
	})
	if err != nil {
		l.discard()
		if ctx.Err() != nil {
			return interruptedSnippet()
		}
		why := err.Error()
		if errors.Is(err, container.ErrEnded) {
			// Its death in a kernel's words, unless the lane stopped it
			// (a server that did not answer: the error says so).
			if x := f.Exit(ctx); !x.Killed {
				why = x.Describe()
			}
		}
		r.Status = kernel.StatusCrashed
		r.Error = kcore.SnippetCrashed(why)
		return r
	}
	out.Write(kernel.Stdout, got.Stdout)
	out.Write(kernel.Stderr, got.Stderr)
	r.Stdout, r.Stderr, r.Duration, r.Fetched = out.Stdout(), out.Stderr(), got.Duration, got.Fetched
	if got.Signal > 0 {
		r.Exit = &kernel.ProcessExit{Signal: got.Signal}
	} else if got.ExitCode != nil {
		r.Exit = &kernel.ProcessExit{Code: *got.ExitCode}
	}
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
	case "interrupted":
		return interruptedSnippet()
	case "timeout":
		r.Status = kernel.StatusTimeout
		r.Error = &contract.ExecutionError{EName: "TimeoutError", EValue: fmt.Sprintf("cell exceeded the %s time limit", lim.Timeout)}
	default:
		r.Status = kernel.StatusCrashed
		switch {
		case got.Signal > 0:
			// The child's death in a kernel's words.
			r.Error = kcore.SnippetCrashed(kcore.Death{Signal: container.SignalName(got.Signal), OOM: got.OOMKilled, MemoryBytes: uint64(lim.MemoryBytes)}.Text())
		case got.ExitCode != nil:
			r.Error = kcore.SnippetCrashed(kcore.Death{Code: *got.ExitCode}.Text())
		case r.Error == nil:
			r.Error = kcore.SnippetCrashed("the snippet ended without a result")
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
