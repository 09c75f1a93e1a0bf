package sandbox

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strconv"
	"sync"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/auto"
	"github.com/backyard-ls/backyard-ls/kernel/containerkernel"
	"github.com/backyard-ls/backyard-ls/kernel/montykernel"
	"github.com/backyard-ls/backyard-ls/monty"
)

// BatchOptions tune Batch.
type BatchOptions struct {
	// Parallelism is how many snippets run at once: Monty workers, and
	// fork-server containers for the snippets that run in one (0 means 2).
	Parallelism int
	// Preload are modules the containers import once, before any snippet
	// (e.g. "numpy"): a snippet importing them pays nothing.
	Preload []string
	// HashSeed is the PYTHONHASHSEED of the snippets that run in a
	// container (see CheckHashSeed); empty means "0". A fixed seed gives a
	// set of strings the same order on every container lane. (Monty has
	// no hash seed: its sets keep the order of insertion.)
	HashSeed string
	// OnResult gets each snippet's result as soon as it ends (not in input
	// order) with the snippet's index in the sequence. Calls never overlap.
	OnResult func(i int, r kernel.Result)
	// OnWarning gets warnings for the user (gVisor missing), each once.
	OnWarning func(string)
	// Backlog is how many snippets may wait for a container lane without
	// holding up the snippets behind them that go to Monty (0 means
	// Parallelism): a service sets its admission bound here.
	Backlog int
}

// Batch runs independent snippets on the sandbox's backend, Parallelism at
// a time: each starts from an empty namespace and nothing it does reaches
// another. A snippet that is not a program is the first cell of a fresh
// kernel of the backend: what Run gives on a new sandbox, IPython's syntax
// included. On Monty, workers are fed snippet after snippet without a round
// trip between them. In a container, each snippet is a fresh fork of a
// long-lived fork server (BatchOptions.Preload already imported) under its
// own limits. Auto sends each snippet where the editors' auto kernel would
// run it, and to the container when Monty turns out to lack something.
// Files and inputs need a container.
//
// Every snippet taken from snippets gets exactly one result; a snippet
// that fails, crashes or runs out of time is a result, not an error. When
// ctx ends, no more snippets are taken and those still running come back
// interrupted. The error is for a batch that cannot run at all: no Monty
// worker, or (backend "container") no container that starts.
func (s *Sandbox) Batch(ctx context.Context, snippets iter.Seq[kernel.Snippet], opts BatchOptions) error {
	b, err := s.newBatch(opts)
	if err != nil {
		return err
	}
	return b.run(ctx, snippets)
}

// newBatch is a batch of opts with their defaults, not started.
func (s *Sandbox) newBatch(opts BatchOptions) (*batch, error) {
	b := &batch{sb: s, opts: opts, backend: s.opts.Backend, limits: s.opts.Limits}
	if b.opts.Parallelism <= 0 {
		b.opts.Parallelism = 2
	}
	if b.opts.HashSeed == "" {
		b.opts.HashSeed = "0"
	}
	if err := CheckHashSeed(b.opts.HashSeed); err != nil {
		return nil, err
	}
	return b, nil
}

// CheckHashSeed reports what is wrong with a PYTHONHASHSEED value:
// CPython takes an integer from 0 to 4294967295, or "random".
func CheckHashSeed(seed string) error {
	if seed == "random" {
		return nil
	}
	if n, err := strconv.ParseUint(seed, 10, 32); err != nil || strconv.FormatUint(n, 10) != seed {
		return fmt.Errorf("hash seed %q: want an integer from 0 to 4294967295, or random", seed)
	}
	return nil
}

type job struct {
	i  int
	sn kernel.Snippet
	// reply, when set, gets the job's result instead of OnResult (Lanes).
	reply chan kernel.Result
	// why the container runs it: the router's rule (auto), or what Monty
	// lacks
	why *contract.Routing
	// plan is the router's (auto); montyResult is Monty's result of a
	// snippet the container runs again, for the verdict.
	plan        auto.Plan
	montyResult *kernel.Result
}

type batch struct {
	sb      *Sandbox
	opts    BatchOptions
	backend contract.Backend
	limits  kernel.Limits
	router  *auto.Router
	pool    *containerkernel.ForkPool

	useMonty, useContainer bool
	montyQ, ctrQ           chan job
	montyWG, ctrWG         sync.WaitGroup
	ctrLanes               []*containerkernel.ForkLane

	emitMu  sync.Mutex
	errMu   sync.Mutex
	montyEr error // the first Monty worker that would not start
}

func (b *batch) emit(j job, r kernel.Result) {
	if j.reply != nil {
		j.reply <- r
		return
	}
	b.emitMu.Lock()
	defer b.emitMu.Unlock()
	if b.opts.OnResult != nil {
		b.opts.OnResult(j.i, r)
	}
}

func (b *batch) run(ctx context.Context, snippets iter.Seq[kernel.Snippet]) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := b.start(ctx); err != nil {
		return err
	}
	i := 0
	for sn := range snippets {
		j := job{i: i, sn: sn}
		i++
		if ctx.Err() != nil {
			b.emit(j, interrupted(false))
			break
		}
		q := b.route(&j)
		if q == nil {
			continue
		}
		select {
		case q <- j:
		case <-ctx.Done():
			b.emit(j, interrupted(q == b.ctrQ))
		}
	}
	b.stop()
	b.errMu.Lock()
	defer b.errMu.Unlock()
	if b.montyEr != nil && errors.Is(b.montyEr, monty.ErrNotFound) {
		return b.montyEr
	}
	return nil
}

// start starts the lanes in ctx: the router (auto), the Monty lanes and
// the container lanes (started at once when the batch has no Monty lanes:
// a container batch that cannot start fails here, before it takes
// anything). stop ends them.
func (b *batch) start(ctx context.Context) error {
	n := b.opts.Parallelism
	b.useMonty = b.backend != contract.BackendContainer
	b.useContainer = b.backend != contract.BackendMonty
	if b.backend == contract.BackendAuto {
		r, err := auto.NewRouter(ctx, b.sb.opts.MontyBinary)
		if err != nil {
			return fmt.Errorf("probe the Monty worker: %w", err)
		}
		b.router = r
	}
	if b.useContainer {
		b.pool = containerkernel.NewForkPool(containerkernel.BatchOptions{
			Container: b.sb.opts.settings().Container, Limits: b.limits, Preload: b.opts.Preload, HashSeed: b.opts.HashSeed, OnWarning: b.opts.OnWarning,
		})
		for range n {
			b.ctrLanes = append(b.ctrLanes, b.pool.Lane())
		}
		if !b.useMonty {
			errs := make([]error, n)
			var wg sync.WaitGroup
			for i, l := range b.ctrLanes {
				wg.Go(func() { errs[i] = l.Start(ctx) })
			}
			wg.Wait()
			for _, err := range errs { // they fail alike: one says why
				if err != nil {
					b.closeContainers()
					return err
				}
			}
		}
	}
	b.montyQ = make(chan job, n*montykernel.LaneDepth)
	b.ctrQ = make(chan job, max(n, b.opts.Backlog))
	if b.useMonty {
		for range n {
			b.montyWG.Go(func() { b.montyLane(ctx, b.montyQ, b.ctrQ) })
		}
	}
	for _, l := range b.ctrLanes {
		b.ctrWG.Go(func() { b.containerLane(ctx, l, b.ctrQ) })
	}
	return nil
}

// route is the queue of the lanes that run j (it sets j's plan and why),
// or nil when j's result is known without running it (it is emitted).
func (b *batch) route(j *job) chan job {
	sn := j.sn
	if sn.Stopped() {
		b.emit(*j, interrupted(!b.useMonty))
		return nil
	}
	switch {
	case !b.useMonty:
		return b.ctrQ
	case sn.NeedsContainer():
		if !b.useContainer {
			b.emit(*j, needsContainer(filesOrInputs(sn).Reason, errors.New("the backend is monty")))
			return nil
		}
		j.why = filesOrInputs(sn)
		return b.ctrQ
	case b.router != nil:
		j.plan = b.router.Plan(sn.Code, sn.Program)
		if j.plan.Route != nil {
			j.why = j.plan.Route
			return b.ctrQ
		}
	}
	return b.montyQ
}

// stop lets the lanes run what they were given (what is queued after
// the context ended comes back interrupted) and ends them.
func (b *batch) stop() {
	close(b.montyQ)
	b.montyWG.Wait()
	close(b.ctrQ)
	b.ctrWG.Wait()
	b.closeContainers()
}

func (b *batch) closeContainers() {
	var wg sync.WaitGroup
	for _, l := range b.ctrLanes {
		wg.Go(l.Close)
	}
	wg.Wait()
}

// montyLane feeds the snippets of q to one pipelined worker; in auto mode,
// one that needs the container after all goes on to ctr.
func (b *batch) montyLane(ctx context.Context, q <-chan job, ctr chan<- job) {
	lane := montykernel.NewLane(ctx, b.sb.opts.MontyBinary, b.limits)
	lane.SetShims(b.backend == contract.BackendMonty) // auto mode checks such snippets in the container
	defer lane.Close()
	held := map[int]job{}
	open := true
	for {
		fill := lane.Hungry()
	take:
		for fill && open && !lane.Full() {
			var j job
			var ok bool
			if lane.Empty() {
				j, ok = <-q
			} else {
				select {
				case j, ok = <-q:
				default:
					break take
				}
			}
			if !ok {
				open = false
				break
			}
			if ctx.Err() != nil || j.sn.Stopped() {
				b.emit(j, interrupted(false))
				continue
			}
			sn := j.sn
			var err error
			if b.router != nil && j.plan.Prelude != "" {
				sn.Code = j.plan.Code // with its shims, which call the prelude's helpers
				err = lane.SendShimmed(j.i, sn, j.sn.Code, j.plan.Prelude)
			} else {
				if b.router != nil {
					sn.Code = j.plan.Code
				}
				err = lane.Send(j.i, sn)
			}
			if err != nil {
				b.errMu.Lock()
				if b.montyEr == nil {
					b.montyEr = err
				}
				b.errMu.Unlock()
				b.emit(j, kernel.Result{Status: kernel.StatusCrashed, Backend: contract.BackendMonty, Runtime: "monty",
					Error: &contract.ExecutionError{EName: "KernelCrashed", EValue: err.Error()}})
				continue
			}
			held[j.i] = j
		}
		if lane.Empty() {
			if !open {
				return
			}
			continue
		}
		i, r := lane.Receive()
		j := held[i]
		delete(held, i)
		if b.router != nil && ctx.Err() == nil {
			if why := b.router.Check(j.plan, r); why != nil {
				j.why, j.montyResult = why, &r
				select {
				case ctr <- j:
					continue
				case <-ctx.Done():
					r = interrupted(true)
				}
			}
		}
		b.emit(j, r)
	}
}

// containerLane runs the snippets of q one after the other on one fork
// server.
func (b *batch) containerLane(ctx context.Context, l *containerkernel.ForkLane, q <-chan job) {
	for j := range q {
		if ctx.Err() != nil || j.sn.Stopped() {
			b.emit(j, interrupted(true))
			continue
		}
		r := runOn(ctx, l, j.sn)
		switch {
		case r.Error != nil && r.Error.EName == "BackendUnavailable" && j.why != nil:
			if j.montyResult != nil {
				// Monty's result, unconfirmed, as the editors show it.
				mr := *j.montyResult
				mr.Routing = &contract.Routing{Rule: j.why.Rule, Reason: j.why.Reason, Check: contract.CheckUnconfirmed, Note: "Monty's result could not be compared with CPython's: " + r.Error.EValue}
				r = mr
				break
			}
			r = needsContainer(j.why.Reason, errors.New(r.Error.EValue))
			r.Routing = j.why
		case j.montyResult != nil && (r.Status == kernel.StatusOK || r.Status == kernel.StatusError):
			r = auto.Verdict(*j.why, *j.montyResult, r)
		case j.why != nil:
			r.Routing = j.why
		}
		b.emit(j, r)
	}
}

// runOn runs a snippet on a container lane until it ends or its own
// context does.
func runOn(ctx context.Context, l *containerkernel.ForkLane, sn kernel.Snippet) kernel.Result {
	if sn.Context != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(sn.Context, cancel)()
	}
	return l.Run(ctx, sn)
}

// filesOrInputs is why a snippet with files or stdin runs in the
// container.
func filesOrInputs(sn kernel.Snippet) *contract.Routing {
	switch {
	case len(sn.Files) > 0 || len(sn.Fetch) > 0:
		return &contract.Routing{Rule: "snippet:files", Reason: "it has files, which Monty does not provide"}
	case sn.Stdin != nil:
		return &contract.Routing{Rule: "snippet:inputs", Reason: "it has stdin, which Monty does not read"}
	}
	return &contract.Routing{Rule: "snippet:inputs", Reason: "it has stdin lines (inputs), which Monty does not read"}
}

func needsContainer(why string, err error) kernel.Result {
	return kernel.Result{Status: kernel.StatusError, Backend: contract.BackendContainer, Error: &contract.ExecutionError{
		EName:  "BackendUnavailable",
		EValue: fmt.Sprintf("this snippet needs the container backend (%s), which is not available: %v", why, err),
	}}
}

func interrupted(inContainer bool) kernel.Result {
	r := montykernel.Interrupted()
	if inContainer {
		r.Backend, r.Runtime = contract.BackendContainer, ""
	}
	return r
}
