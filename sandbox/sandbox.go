// Package sandbox is backyard-ls's API for programs (an agent's code tool,
// an RL reward loop): a stateful Sandbox whose Run keeps names between calls
// like a notebook, and Batch (RunBatch) for independent snippets in
// parallel, each result as it ends. The sandboxed code reaches nothing of
// the host but what the program grants: host functions it may call
// (Options.Functions), named inputs (RunWith), an environment (Options.Env)
// and packages (Install).
package sandbox

import (
	"context"
	"fmt"
	"strings"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kernels"
	"github.com/backyard-ls/backyard-ls/monty"
	"github.com/backyard-ls/backyard-ls/pypkg"
	"github.com/backyard-ls/backyard-ls/pysrc"
)

// Options configure a Sandbox.
type Options struct {
	// Backend of Run and Batch: "monty" (the default: no container engine
	// needed), "auto" or "container".
	Backend contract.Backend
	// Limits of every execution; zero fields take kernel.DefaultLimits.
	Limits kernel.Limits
	// MontyBinary is the worker executable; empty means monty.Find("").
	MontyBinary string
	// Container and Install configure the container backend ("auto",
	// "container"); zero fields take the settings' defaults (MountWorkspace
	// is Workspace != "").
	Container contract.ContainerSettings
	Install   contract.InstallSettings
	// Functions are host functions the sandboxed code calls by name, bound
	// as globals of every Run: the call runs on the host (on Monty as an
	// external function, in a container through the driver's channel).
	// Arguments and results are JSON-compatible values (see
	// kernel.HostFunc); an error raises in the cell (Raise names its type).
	// Cells replayed into a new backend do not call them again.
	Functions map[string]kernel.HostFunc
	// Env is added to the few variables every kernel's cells see
	// (container.CellEnv: PATH, HOME, LANG…), on Monty and in a container
	// alike. Nothing of the host's environment is passed.
	Env map[string]string
	// Workspace is the host folder the code sees (its working directory),
	// read-only: files it writes are kept in the kernel (files.write
	// sandbox) and listed in each Result's Files. Empty: no folder.
	Workspace string
}

// RunOptions are the options of one RunWith.
type RunOptions struct {
	// Inputs are bound as globals before the code runs (named inputs,
	// JSON-compatible values); they persist like any global.
	Inputs map[string]any
	// Limits override the sandbox's for this run only (zero fields keep
	// them); the state is kept. Timeout and MaxOutputBytes can change; the
	// memory and recursion limits are fixed when a session starts (a
	// different one is an error wrapping kernel.ErrLimitFixed).
	Limits kernel.Limits
}

// Raise returns the error a host function returns to raise exception typ
// (e.g. "ValueError") with message msg in the cell.
func Raise(typ, msg string) error { return &kernel.HostError{Type: typ, Message: msg} }

// Sandbox is a stateful kernel for a program.
type Sandbox struct {
	opts   Options
	kernel kernel.Kernel
}

// New creates a sandbox. The kernel starts on the first Run. It fails when
// the backend is unknown, or needs Monty and no Monty worker can be found.
func New(opts Options) (*Sandbox, error) {
	if opts.Backend == "" {
		opts.Backend = contract.BackendMonty
	}
	if opts.MontyBinary == "" && opts.Backend != contract.BackendContainer {
		p, err := monty.Find("")
		if err != nil {
			return nil, err
		}
		opts.MontyBinary = p
	}
	opts.Limits = opts.Limits.WithDefaults()
	if err := opts.check(); err != nil {
		return nil, err
	}
	k, err := kernels.New(kernel.Config{Settings: opts.settings(), Env: opts.Env, Workspace: opts.Workspace})
	if err != nil {
		return nil, err
	}
	return &Sandbox{opts: opts, kernel: k}, nil
}

// check refuses function names and environment variables the sandbox
// cannot give the code.
func (o Options) check() error {
	for name := range o.Functions {
		if n := pysrc.Names(name); len(n) != 1 || n[0] != name {
			return fmt.Errorf("sandbox: host function name %q is not a Python identifier", name)
		}
	}
	for name := range o.Env {
		if name == "" || strings.ContainsAny(name, "=\x00") || container.ReservedEnv(name) {
			return fmt.Errorf("sandbox: environment variable %q cannot be set", name)
		}
	}
	return nil
}

// settings are the backyard.* settings the options amount to.
func (o Options) settings() contract.Settings {
	s := contract.DefaultSettings()
	s.Backend, s.MontyPath = o.Backend, o.MontyBinary
	s.Timeout = contract.Seconds(o.Limits.Timeout.Seconds())
	s.Memory = contract.MiB(o.Limits.MemoryBytes >> 20)
	s.RecursionLimit, s.MaxOutputBytes = o.Limits.RecursionDepth, o.Limits.MaxOutputBytes
	// Zero container fields keep the defaults; the workspace is seen when
	// the program names one.
	if c := o.Container; c.Image != "" {
		s.Container.Image = c.Image
	}
	if o.Container.Runtime != "" {
		s.Container.Runtime = o.Container.Runtime
	}
	if o.Container.Network != "" {
		s.Container.Network = o.Container.Network
	}
	s.Container.MountWorkspace = o.Workspace != ""
	// No warm pool: a program's sandbox would leave its containers
	// waiting until the process exits.
	s.Container.WarmPool = 0
	if o.Install != (contract.InstallSettings{}) {
		s.Install = o.Install
	}
	return s
}

// Run executes code in the sandbox's stateful kernel: names defined by one
// Run are visible to the next. A Python exception is a Result with Status
// "error", not an error.
func (s *Sandbox) Run(ctx context.Context, code string) (kernel.Result, error) {
	return s.RunWith(ctx, code, RunOptions{})
}

// RunWith is Run with named inputs and per-run limits.
func (s *Sandbox) RunWith(ctx context.Context, code string, o RunOptions) (kernel.Result, error) {
	return s.kernel.Execute(ctx, kernel.Request{Code: code, Inputs: o.Inputs, Functions: s.opts.Functions, Limits: o.Limits})
}

// Install installs packages (pip requirement strings) for the container
// backend, into the image's package volume, through a short-lived
// installer container (the kernel itself stays offline); the next run can
// import them. Each package is a name with optional extras and versions
// (pypkg.CheckRequirement): anything else is an error before any install. It installs whatever Options.Install.AutoInstall says (the
// program asked), from Options.Install's index or wheel folder. The Monty
// backend has no packages: an error.
func (s *Sandbox) Install(ctx context.Context, packages []string) error {
	if err := pypkg.CheckRequirements(packages); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	in, ok := s.kernel.(kernel.Installer)
	if !ok {
		return fmt.Errorf("sandbox: the %s backend cannot install packages; use the auto or container backend", s.opts.Backend)
	}
	return in.Install(ctx, packages)
}

// Kernel returns the sandbox's kernel (interrupt, restart, variables).
func (s *Sandbox) Kernel() kernel.Kernel { return s.kernel }

// Close stops the sandbox's kernel.
func (s *Sandbox) Close() error { return s.kernel.Close() }

// RunBatch runs independent snippets with Batch, parallelism at a time (0
// means 2), and returns their results in input order. Each snippet starts
// from an empty namespace; one that crashes its worker affects no other.
// Cancelling ctx stops the batch: snippets not yet run get
// StatusInterrupted.
func (s *Sandbox) RunBatch(ctx context.Context, codes []string, parallelism int) ([]kernel.Result, error) {
	results := make([]kernel.Result, len(codes))
	for i := range results {
		results[i] = interrupted(s.opts.Backend == contract.BackendContainer)
	}
	snippets := func(yield func(kernel.Snippet) bool) {
		for _, c := range codes {
			if !yield(kernel.Snippet{Code: c}) {
				return
			}
		}
	}
	err := s.Batch(ctx, snippets, BatchOptions{Parallelism: parallelism, OnResult: func(i int, r kernel.Result) { results[i] = r }})
	return results, err
}
