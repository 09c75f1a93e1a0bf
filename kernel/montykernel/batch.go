package montykernel

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
	"github.com/backyard-ls/backyard-ls/monty"
	"github.com/backyard-ls/backyard-ls/pysrc"
	"github.com/backyard-ls/backyard-ls/pysrc/ipysyntax"
)

// LaneDepth is how many snippets a Lane sends ahead of the one running.
// Deep enough that the worker reads and the host writes a few times per
// hundred snippets: trivial snippets on 2 workers and 2 CPUs ran at about
// 36,000/s with 8, 42,000/s with 32 and 45,000/s with 64 (no gain past it).
const LaneDepth = 64

// Lane runs the independent snippets of a batch on one Monty worker, each
// from an empty namespace, pipelined (see monty.Pipeline): the worker
// never waits for the host between snippets. A snippet that suspends on
// the host (a sleep, an undefined name), whose value rewrite does not
// parse or whose value is longer than the output limit (its record says
// by how much) runs again alone, with RunSnippet, once the pipeline is
// empty; a snippet with IPython syntax runs alone as the first cell of a
// fresh kernel (a program never has any); one that kills the worker costs
// the snippets sent behind it nothing: they go to a new worker. A Lane lives in the context it was made in: when
// that ends, its worker is killed and every snippet it holds comes back
// interrupted. A Lane is not safe for concurrent use.
type Lane struct {
	ctx     context.Context
	binary  string
	limits  kernel.Limits
	shims   bool // SetShims
	w       *monty.Worker
	p       *monty.Pipeline
	sent    []*laneSnippet // in the pipeline, oldest first
	alone   []*laneSnippet // to run on their own
	ready   []laneResult   // results known without running (a worker that would not start)
	guard   *laneGuard
	unwatch func() bool
}

type laneSnippet struct {
	tag     int
	sn      kernel.Snippet
	limits  kernel.Limits // the lane's, with the snippet's time limit
	fed     string        // the code as fed, rewritten to show its value
	wrapped bool
	prelude string // the shims' helpers, run before it (then alone)
	// ipython: it has IPython syntax, and runs alone as the first cell of
	// a fresh kernel (runFirstCell)
	ipython bool
	src     string // the snippet as written, when its code has shims applied
	// stopped is set when the snippet's own context ends (sn.Context);
	// unwatch stops watching it.
	stopped atomic.Bool
	unwatch func() bool
}

// watch has the lane stop s when its own context ends: at once when it is
// the snippet waited for, else once it is.
func (l *Lane) watch(s *laneSnippet) {
	if s.sn.Context == nil {
		return
	}
	s.unwatch = context.AfterFunc(s.sn.Context, func() {
		s.stopped.Store(true)
		l.guard.stopIf(s)
	})
}

// done stops watching s.
func (s *laneSnippet) done() {
	if s.unwatch != nil {
		s.unwatch()
	}
}

type laneResult struct {
	tag int
	r   kernel.Result
}

// NewLane returns a lane in ctx that starts the worker binary on the first
// Send; limits (with defaults) bound every snippet, a snippet's Timeout
// replacing the time limit. Close it.
func NewLane(ctx context.Context, binary string, limits kernel.Limits) *Lane {
	l := &Lane{ctx: ctx, binary: binary, limits: limits.WithDefaults(), guard: newLaneGuard()}
	l.unwatch = context.AfterFunc(ctx, l.guard.cancel)
	return l
}

// Full reports whether the lane takes no more snippets until Receive.
func (l *Lane) Full() bool { return len(l.sent) >= LaneDepth || len(l.alone) > 0 || len(l.ready) > 0 }

// Hungry reports whether the lane should be given snippets now: it has
// room for half its depth, so they go to the worker in one write.
func (l *Lane) Hungry() bool { return !l.Full() && len(l.sent) <= LaneDepth/2 }

// Empty reports whether the lane holds no snippet.
func (l *Lane) Empty() bool { return len(l.sent) == 0 && len(l.alone) == 0 && len(l.ready) == 0 }

// Send queues a snippet under tag. It fails when no worker can be started
// (monty.ErrNotFound, say); the snippet is then not queued.
func (l *Lane) Send(tag int, sn kernel.Snippet) error { return l.queue(tag, sn, "", "") }

// SendShimmed is Send for a snippet whose code has shims applied (an auto
// router's plan): prelude defines the helpers it calls, and src is the
// snippet as written, whose lines its tracebacks show. It runs alone,
// after its prelude.
func (l *Lane) SendShimmed(tag int, sn kernel.Snippet, src, prelude string) error {
	return l.queue(tag, sn, src, prelude)
}

func (l *Lane) queue(tag int, sn kernel.Snippet, src, prelude string) error {
	if err := l.worker(); err != nil {
		return err
	}
	s := &laneSnippet{tag: tag, sn: sn, limits: sn.Of(l.limits), src: src, prelude: prelude}
	switch {
	case !sn.Program && ipysyntax.FirstCell(sn.Code, container.HasLineMagic).Magics():
		s.ipython = true
	case l.shims && prelude == "":
		if code, used := ApplyShims(sn.Code, pysrc.Analyze(sn.Code).Regions, allShims); len(used) > 0 {
			s.src, s.sn.Code, s.prelude = sn.Code, code, ShimPrelude(allShims)
		}
	}
	if s.ipython || s.prelude != "" {
		// Its helpers (or its kernel) run first, in its session: it runs
		// alone.
		l.alone = append(l.alone, s)
		l.watch(s)
		return nil
	}
	s.fed = sn.Code
	if !sn.Program {
		s.fed, s.wrapped = cutDisplayCode(sn.Code, s.limits.MaxOutputBytes)
	}
	if err := l.send(s); err != nil {
		return err
	}
	l.watch(s)
	return nil
}

// SetShims makes the lane apply every shim (Options.Shims) to its
// snippets: a batch on Monty alone.
func (l *Lane) SetShims(on bool) { l.shims = on }

func (l *Lane) worker() error {
	if l.w != nil && l.w.Alive() {
		return nil
	}
	cfg := WorkerConfig(l.binary, l.limits)
	setCellEnv(&cfg, nil) // as a notebook's kernel has them
	w, err := monty.Start(l.ctx, cfg)
	if err != nil {
		return err
	}
	l.w, l.p = w, w.Pipeline()
	l.guard.use(w)
	return nil
}

func (l *Lane) send(s *laneSnippet) error {
	if err := l.p.Send(s.fed, WorkerConfig("", s.limits).Limits); err != nil {
		return err
	}
	l.sent = append(l.sent, s)
	return nil
}

// Receive waits for the next result and returns it with its snippet's
// tag; the lane must not be Empty.
func (l *Lane) Receive() (int, kernel.Result) {
	for {
		if len(l.ready) > 0 {
			x := l.ready[0]
			l.ready = l.ready[1:]
			return x.tag, x.r
		}
		if l.ctx.Err() != nil {
			l.stop()
			continue
		}
		if len(l.sent) == 0 {
			s := l.alone[0]
			l.alone = l.alone[1:]
			r := l.runAlone(s)
			s.done()
			return s.tag, r
		}
		s := l.sent[0]
		l.sent = l.sent[1:]
		lim := s.limits
		c := &montyCell{code: s.sn.Code, limits: lim, out: kcore.NewOutput(lim.MaxOutputBytes, kernel.Request{}), fresh: true, cut: true}
		start := time.Now()
		l.guard.begin(start.Add(lim.Timeout+timeoutGrace), s)
		o, suspended, err := l.p.Receive(c.print)
		late, cut := l.guard.end()
		// The guard's kill may cross the worker's answer: the answer
		// stands, but the worker is gone, and a snippet it stopped is not
		// run again alone.
		killed := late || cut
		if err == nil && killed && (suspended || s.againAlone(o)) {
			err = errStoppedAsItAnswered
		}
		if err == nil && (suspended || s.againAlone(o)) {
			l.alone = append(l.alone, s)
			continue
		}
		s.done()
		var stopped error
		switch {
		case err == nil:
		case l.ctx.Err() != nil:
			stopped = context.Cause(l.ctx)
		case cut:
			stopped = context.Canceled
		case late:
			stopped = kcore.ErrTimedOut
		}
		// Sent ahead, the snippet may have started before it became the
		// oldest: the worker's own count is then the better measure.
		took := max(time.Since(start), time.Duration(o.Micros)*time.Microsecond)
		c.finish(stopped, o, err, s.fed, s.wrapped, took)
		if (err != nil || killed) && l.ctx.Err() == nil {
			l.replace()
		}
		c.result.Runtime = "monty"
		return s.tag, c.result
	}
}

// errStoppedAsItAnswered is a snippet's error when the guard stopped the
// worker as the snippet suspended or had to run again alone.
var errStoppedAsItAnswered = errors.New("the worker was stopped as it answered")

// againAlone reports whether the snippet's outcome in the pipeline is not
// its record: its value rewrite did not parse, or its value is longer than
// the output limit (alone, the marker says by how much).
func (s *laneSnippet) againAlone(o monty.Outcome) bool {
	if !s.wrapped {
		return false
	}
	if o.Exception != nil {
		return o.Exception.Type == "SyntaxError"
	}
	return o.Value != nil && cutShort(o.Value, s.limits.MaxOutputBytes)
}

func (c *montyCell) print(s monty.Stream, text string) {
	if s == monty.Stderr {
		c.out.Write(kernel.Stderr, text)
	} else {
		c.out.Write(kernel.Stdout, text)
	}
}

// runAlone runs a snippet the pipeline could not finish; the pipeline is
// empty, so the worker is free for a feed of its own.
func (l *Lane) runAlone(s *laneSnippet) kernel.Result {
	if s.stopped.Load() {
		return Interrupted()
	}
	if err := l.worker(); err != nil {
		return crashed(err)
	}
	ctx := l.ctx
	if s.sn.Context != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(s.sn.Context, cancel)()
	}
	if s.ipython {
		return l.runFirstCell(ctx, s)
	}
	var r kernel.Result
	var lost bool
	if s.prelude != "" {
		r, lost = runShimmed(ctx, l.w, s)
	} else {
		r, lost = runSnippet(ctx, l.w, s.sn, s.limits, true)
	}
	if lost {
		l.w.Close()
		l.w = nil
	}
	return r
}

// runFirstCell runs a snippet with IPython syntax (a magic, a shell
// escape, help, an automagic line) as the first cell of a fresh kernel of
// the lane's: the kernel's host answers what it can (%time, %pwd, %env…)
// and says what it cannot, exactly as a notebook's first cell shows it.
// It pays for a worker of its own; a snippet without such syntax never
// does.
func (l *Lane) runFirstCell(ctx context.Context, s *laneSnippet) kernel.Result {
	k, err := New(Options{Binary: l.binary, Limits: s.limits, Shims: l.shims})
	if err != nil {
		return crashed(err)
	}
	defer k.Close()
	if s.prelude != "" {
		k.SetPrelude(s.prelude) // the helpers of the shims the snippet was given with
	}
	r, err := k.Execute(ctx, kernel.Request{Code: s.sn.Code})
	switch {
	case err == nil:
		r.ExecutionCount = 0 // as every lane's result: the batch numbers none
		return r
	case ctx.Err() != nil:
		return Interrupted()
	}
	return crashed(err)
}

// runShimmed runs a snippet with shims applied alone: its helpers in a
// fresh session, then the snippet in that session.
func runShimmed(ctx context.Context, w *monty.Worker, s *laneSnippet) (kernel.Result, bool) {
	o, err := w.Feed(ctx, s.prelude, monty.FeedOptions{Fresh: true})
	if err != nil || o.Exception != nil {
		r := crashed(fmt.Errorf("run the shims' helpers: %v", errors.Join(err, exceptionError(o.Exception))))
		return r, err != nil
	}
	c := &montyCell{code: s.sn.Code, src: s.src, program: s.sn.Program, limits: s.limits, out: kcore.NewOutput(s.limits.MaxOutputBytes, kernel.Request{}), grace: timeoutGrace}
	c.run(ctx, w)
	c.result.Runtime = "monty"
	return c.result, c.sessionLost
}

func exceptionError(e *monty.Exception) error {
	if e == nil {
		return nil
	}
	return fmt.Errorf("%s: %s", e.Type, e.Message)
}

// replace starts a new worker after the old one died and sends it what
// the old one had not run.
func (l *Lane) replace() {
	l.w.Close()
	l.w = nil
	again := l.sent
	l.sent = nil
	for _, s := range again {
		err := l.worker()
		if err == nil {
			err = l.send(s)
		}
		if err != nil {
			l.ready = append(l.ready, laneResult{s.tag, crashed(err)})
		}
	}
}

// stop kills the worker: what the lane holds is interrupted.
func (l *Lane) stop() {
	if l.w != nil {
		l.w.Close()
		l.w = nil
	}
	for _, s := range append(l.sent, l.alone...) {
		s.done()
		l.ready = append(l.ready, laneResult{s.tag, Interrupted()})
	}
	l.sent, l.alone = nil, nil
}

// Close stops the worker.
func (l *Lane) Close() {
	l.unwatch()
	for _, s := range append(l.sent, l.alone...) {
		s.done()
	}
	l.guard.close()
	if l.w != nil {
		l.w.Close()
		l.w = nil
	}
}

// laneGuardTick is how often a lane's guard looks at the snippet it waits
// for: the time-limit backstop is late by at most this much.
const laneGuardTick = 100 * time.Millisecond

// laneGuard stops a lane's worker when the lane's context ends, or when a
// snippet outlives its time limit plus grace (the worker's own budget
// counts only bytecode time: a worker stuck elsewhere is stopped here).
// One goroutine per lane looks at the snippet waited for every tick: no
// timer or context per snippet.
type laneGuard struct {
	mu        sync.Mutex
	w         *monty.Worker
	due       time.Time    // the backstop of the snippet waited for; zero when not waiting
	waiting   *laneSnippet // the snippet waited for
	late      bool         // the guard stopped the worker for the snippet waited for
	cut       bool         // … because the snippet's own context ended
	cancelled bool
	stop      chan struct{}
	done      chan struct{}
}

func newLaneGuard() *laneGuard {
	g := &laneGuard{stop: make(chan struct{}), done: make(chan struct{})}
	go g.watch()
	return g
}

func (g *laneGuard) watch() {
	defer close(g.done)
	t := time.NewTicker(laneGuardTick)
	defer t.Stop()
	for {
		select {
		case <-g.stop:
			return
		case now := <-t.C:
			g.mu.Lock()
			switch {
			case g.due.IsZero() || g.late || g.cut:
			case g.waiting != nil && g.waiting.stopped.Load():
				// Stopped before it was waited for, and still running.
				g.cut = true
				g.killLocked()
			case now.After(g.due):
				g.late = true
				g.killLocked()
			}
			g.mu.Unlock()
		}
	}
}

func (g *laneGuard) killLocked() {
	if g.w != nil {
		g.w.Kill()
	}
}

// use makes w the worker the guard stops.
func (g *laneGuard) use(w *monty.Worker) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.w = w
	if g.cancelled {
		g.killLocked()
	}
}

func (g *laneGuard) cancel() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.cancelled = true
	g.killLocked()
}

// begin starts waiting for snippet s, whose backstop is due.
func (g *laneGuard) begin(due time.Time, s *laneSnippet) {
	g.mu.Lock()
	g.due, g.waiting, g.late, g.cut = due, s, false, false
	g.mu.Unlock()
}

// stopIf stops the worker when s is the snippet waited for.
func (g *laneGuard) stopIf(s *laneSnippet) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.waiting == s && !g.late && !g.cut {
		g.cut = true
		g.killLocked()
	}
}

// end stops waiting; late reports that the guard stopped the worker
// because the snippet outlived its backstop, cut that it stopped it
// because the snippet's own context ended.
func (g *laneGuard) end() (late, cut bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.due, g.waiting = time.Time{}, nil
	return g.late, g.cut
}

// close ends the guard's goroutine.
func (g *laneGuard) close() {
	close(g.stop)
	<-g.done
}

// Interrupted is the result of a snippet a batch stopped before its end.
func Interrupted() kernel.Result {
	return kernel.Result{Status: kernel.StatusInterrupted, Backend: contract.BackendMonty, Runtime: "monty",
		Error: &contract.ExecutionError{EName: "KeyboardInterrupt", EValue: "the batch was stopped"}}
}

func crashed(err error) kernel.Result {
	return kernel.Result{Status: kernel.StatusCrashed, Backend: contract.BackendMonty, Runtime: "monty",
		Error: &contract.ExecutionError{EName: "KernelCrashed", EValue: err.Error()}}
}
