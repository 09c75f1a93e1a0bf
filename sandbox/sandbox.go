package kernel

import (
	"context"
	"errors"
	"sync"

	"github.com/backyard-ls/backyard-ls/monty"
)

// Options configure a Sandbox.
type Options struct {
	// Backend of Run: "monty" (the default: no container engine needed),
	// "auto" or "container". RunBatch always runs on Monty workers.
	Backend string
	Limits  Limits
	// MontyBinary is the worker executable; empty means monty.Find("").
	MontyBinary string
	// Container configures the container backend ("auto", "container").
	Container ContainerConfig
}

// Sandbox is the programmatic face of a kernel for harnesses (an agent's
// code tool, an RL reward loop): Run keeps state between calls like a
// notebook; RunBatch runs independent snippets in parallel.
type Sandbox struct {
	opts   Options
	kernel Kernel
}

// NewSandbox creates a sandbox. The kernel starts on the first Run. It
// fails when no Monty worker can be found or the backend is unknown.
func NewSandbox(opts Options) (*Sandbox, error) {
	if opts.Backend == "" {
		opts.Backend = BackendMonty
	}
	if opts.MontyBinary == "" {
		p, err := monty.Find("")
		if err != nil {
			return nil, err
		}
		opts.MontyBinary = p
	}
	opts.Limits = opts.Limits.WithDefaults()
	k, err := New(Config{Backend: opts.Backend, Limits: opts.Limits, MontyBinary: opts.MontyBinary, Container: opts.Container})
	if err != nil {
		return nil, err
	}
	return &Sandbox{opts: opts, kernel: k}, nil
}

// Run executes code in the sandbox's stateful kernel: names defined by one
// Run are visible to the next. A Python exception is a Result with Status
// "error", not an error.
func (s *Sandbox) Run(ctx context.Context, code string) (Result, error) {
	return s.kernel.Execute(ctx, Request{Code: code})
}

// Kernel returns the sandbox's kernel (interrupt, restart, variables).
func (s *Sandbox) Kernel() Kernel { return s.kernel }

// Close stops the sandbox's kernel.
func (s *Sandbox) Close() error { return s.kernel.Close() }

// RunBatch runs independent snippets on a pool of parallelism workers (0
// means 2) and returns their results in input order. Each snippet starts
// from an empty namespace; one that crashes its worker affects no other.
// Cancelling ctx stops the batch: snippets not yet run get StatusInterrupted.
func (s *Sandbox) RunBatch(ctx context.Context, codes []string, parallelism int) ([]Result, error) {
	if parallelism <= 0 {
		parallelism = 2
	}
	parallelism = min(parallelism, len(codes))
	results := make([]Result, len(codes))
	next := make(chan int)
	var wg sync.WaitGroup
	var firstErr error
	var errOnce sync.Once
	cfg := monty.Config{Binary: s.opts.MontyBinary, Limits: monty.Limits{
		CellTime:       s.opts.Limits.Timeout,
		MemoryBytes:    s.opts.Limits.MemoryBytes,
		RecursionDepth: uint64(s.opts.Limits.RecursionDepth),
	}}
	for range parallelism {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var w *monty.Worker
			defer func() {
				if w != nil {
					w.Close()
				}
			}()
			used := false
			for i := range next {
				if ctx.Err() != nil {
					results[i] = Result{Status: StatusInterrupted, Backend: BackendMonty, Runtime: "monty"}
					continue
				}
				if w == nil || !w.Alive() {
					var err error
					if w, err = monty.Start(ctx, cfg); err != nil {
						errOnce.Do(func() { firstErr = err })
						results[i] = Result{Status: StatusCrashed, Backend: BackendMonty, Runtime: "monty", Error: &Error{EName: "KernelCrashed", EValue: err.Error()}}
						w = nil
						continue
					}
					used = false
				}
				c := &montyCell{code: codes[i], limits: s.opts.Limits, out: &output{max: s.opts.Limits.MaxOutputBytes}, fresh: used}
				c.run(ctx, w)
				c.result.Runtime = "monty"
				results[i] = c.result
				used = true
				if c.sessionLost {
					w = nil // dead or killed; the next snippet gets a new worker
				}
			}
		}()
	}
feed:
	for i := range codes {
		select {
		case next <- i:
		case <-ctx.Done():
			for j := i; j < len(codes); j++ {
				results[j] = Result{Status: StatusInterrupted, Backend: BackendMonty, Runtime: "monty"}
			}
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil && errors.Is(firstErr, monty.ErrNotFound) {
		return results, firstErr
	}
	return results, nil
}
