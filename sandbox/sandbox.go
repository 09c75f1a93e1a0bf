// Package sandbox is backyard-ls's API for programs (an agent's code tool,
// an RL reward loop): a stateful Sandbox whose Run keeps names between calls
// like a notebook, and Batch (RunBatch) for independent snippets in
// parallel, each result as it ends.
package sandbox

import (
	"context"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kernels"
	"github.com/backyard-ls/backyard-ls/monty"
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
	// "container"); zero values take the settings' defaults.
	Container contract.ContainerSettings
	Install   contract.InstallSettings
}

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
	k, err := kernels.New(kernel.Config{Settings: opts.settings()})
	if err != nil {
		return nil, err
	}
	return &Sandbox{opts: opts, kernel: k}, nil
}

// settings are the backyard.* settings the options amount to.
func (o Options) settings() contract.Settings {
	s := contract.DefaultSettings()
	s.Backend, s.MontyPath = o.Backend, o.MontyBinary
	s.Timeout = contract.Seconds(o.Limits.Timeout.Seconds())
	s.Memory = contract.MiB(o.Limits.MemoryBytes >> 20)
	s.RecursionLimit, s.MaxOutputBytes = o.Limits.RecursionDepth, o.Limits.MaxOutputBytes
	if o.Container != (contract.ContainerSettings{}) {
		s.Container = o.Container
	}
	if o.Install != (contract.InstallSettings{}) {
		s.Install = o.Install
	}
	return s
}

// Run executes code in the sandbox's stateful kernel: names defined by one
// Run are visible to the next. A Python exception is a Result with Status
// "error", not an error.
func (s *Sandbox) Run(ctx context.Context, code string) (kernel.Result, error) {
	return s.kernel.Execute(ctx, kernel.Request{Code: code})
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
