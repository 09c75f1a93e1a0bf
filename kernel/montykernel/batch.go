package montykernel

import (
	"context"
	"time"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/internal/kcore"
	"github.com/backyard-ls/backyard-ls/monty"
)

// LaneDepth is how many snippets a Lane sends ahead of the one running.
const LaneDepth = 8

// Lane runs the independent snippets of a batch on one Monty worker, each
// from an empty namespace, pipelined (see monty.Pipeline): the worker
// never waits for the host between snippets. A snippet that suspends on
// the host (a sleep, an undefined name) or whose value rewrite does not
// parse runs again alone, with RunSnippet, once the pipeline is empty; one
// that kills the worker costs the snippets sent behind it nothing: they
// go to a new worker. A Lane is not safe for concurrent use.
type Lane struct {
	binary string
	limits kernel.Limits
	w      *monty.Worker
	p      *monty.Pipeline
	sent   []*laneSnippet // in the pipeline, oldest first
	alone  []*laneSnippet // to run on their own
	ready  []laneResult   // results known without running (a worker that would not start)
}

type laneSnippet struct {
	tag     int
	sn      kernel.Snippet
	fed     string // the code as fed, rewritten to show its value
	wrapped bool
}

type laneResult struct {
	tag int
	r   kernel.Result
}

// NewLane returns a lane that starts the worker binary on the first Send;
// limits (with defaults) bound every snippet, a snippet's Timeout replacing
// the time limit.
func NewLane(binary string, limits kernel.Limits) *Lane {
	return &Lane{binary: binary, limits: limits.WithDefaults()}
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
func (l *Lane) Send(ctx context.Context, tag int, sn kernel.Snippet) error {
	if err := l.worker(ctx); err != nil {
		return err
	}
	s := &laneSnippet{tag: tag, sn: sn}
	s.fed, s.wrapped = displayCode(sn.Code, l.limits.MaxOutputBytes)
	return l.send(s)
}

func (l *Lane) worker(ctx context.Context) error {
	if l.w != nil && l.w.Alive() {
		return nil
	}
	w, err := monty.Start(ctx, WorkerConfig(l.binary, l.limits))
	if err != nil {
		return err
	}
	l.w, l.p = w, w.Pipeline()
	return nil
}

func (l *Lane) send(s *laneSnippet) error {
	lim := s.sn.Of(l.limits)
	if err := l.p.Send(s.fed, WorkerConfig("", lim).Limits); err != nil {
		return err
	}
	l.sent = append(l.sent, s)
	return nil
}

// Receive waits for the next result and returns it with its snippet's
// tag; the lane must not be Empty. When ctx ends, the worker is killed and
// every snippet still held comes back interrupted.
func (l *Lane) Receive(ctx context.Context) (int, kernel.Result) {
	for {
		if len(l.ready) > 0 {
			x := l.ready[0]
			l.ready = l.ready[1:]
			return x.tag, x.r
		}
		if ctx.Err() != nil {
			l.stop()
			continue
		}
		if len(l.sent) == 0 {
			s := l.alone[0]
			l.alone = l.alone[1:]
			return s.tag, l.runAlone(ctx, s)
		}
		s := l.sent[0]
		l.sent = l.sent[1:]
		lim := s.sn.Of(l.limits)
		c := &montyCell{code: s.sn.Code, limits: lim, out: kcore.NewOutput(lim.MaxOutputBytes, kernel.Request{}), fresh: true}
		fctx, cancel := context.WithTimeoutCause(ctx, lim.Timeout+timeoutGrace, kcore.ErrTimedOut)
		start := time.Now()
		o, suspended, err := l.p.Receive(fctx, c.print)
		if err == nil && (suspended || s.wrapped && o.Exception != nil && o.Exception.Type == "SyntaxError") {
			cancel()
			l.alone = append(l.alone, s)
			continue
		}
		// Sent ahead, the snippet may have started before it became the
		// oldest: the worker's own count is then the better measure.
		took := max(time.Since(start), time.Duration(o.Micros)*time.Microsecond)
		c.finish(fctx, o, err, s.fed, s.wrapped, took)
		cancel()
		if err != nil && ctx.Err() == nil {
			l.replace(ctx)
		}
		c.result.Runtime = "monty"
		return s.tag, c.result
	}
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
func (l *Lane) runAlone(ctx context.Context, s *laneSnippet) kernel.Result {
	if err := l.worker(ctx); err != nil {
		return crashed(err)
	}
	r, lost := RunSnippet(ctx, l.w, s.sn.Code, s.sn.Of(l.limits), true)
	if lost {
		l.w.Close()
		l.w = nil
	}
	return r
}

// replace starts a new worker after the old one died and sends it what
// the old one had not run.
func (l *Lane) replace(ctx context.Context) {
	l.w.Close()
	l.w = nil
	again := l.sent
	l.sent = nil
	for _, s := range again {
		err := l.worker(ctx)
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
		l.ready = append(l.ready, laneResult{s.tag, Interrupted()})
	}
	l.sent, l.alone = nil, nil
}

// Close stops the worker.
func (l *Lane) Close() {
	if l.w != nil {
		l.w.Close()
		l.w = nil
	}
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
