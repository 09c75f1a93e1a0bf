package httpapi

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/sandbox"
)

// lanes is one batch (sandbox.Batch) that lives as long as the server:
// every /run_code request is one of its snippets. Its Monty workers and
// fork-server containers serve request after request. A batch that cannot
// run (no container engine for backend "container") is tried again a
// second later; meanwhile requests are answered at once with why.
type lanes struct {
	in   chan *call
	done chan struct{} // the batch ended for good

	mu    sync.Mutex
	calls map[int]*call // by the batch's snippet index
}

// call is one snippet on its way through the batch.
type call struct {
	sn  kernel.Snippet
	res chan kernel.Result // gets exactly one result
}

var errShuttingDown = errors.New("the server is shutting down")

// retryStart is how long after a batch that could not start it is tried
// again.
const retryStart = time.Second

func startLanes(life context.Context, opts Options, log *zap.Logger) (*lanes, error) {
	sb, err := sandbox.New(sandbox.Options{
		Backend: opts.Settings.Backend, Limits: kernel.LimitsOf(opts.Settings), MontyBinary: opts.Settings.MontyPath, Container: opts.Settings.Container,
	})
	if err != nil {
		return nil, err
	}
	l := &lanes{in: make(chan *call), done: make(chan struct{}), calls: map[int]*call{}}
	go func() {
		defer close(l.done)
		defer sb.Close()
		for life.Err() == nil {
			next := 0
			err := sb.Batch(life, l.snippets(life, &next), sandbox.BatchOptions{
				Parallelism: opts.Parallel, Preload: opts.Preload, HashSeed: opts.HashSeed, Backlog: opts.MaxRunning,
				OnResult:  l.result,
				OnWarning: func(w string) { log.Warn(w) },
			})
			if err == nil || life.Err() != nil {
				continue
			}
			log.Error("the batch lanes cannot run; trying again", zap.Error(err))
			l.refuse(life, err)
		}
	}()
	return l, nil
}

// snippets feeds the batch the calls as they come, numbering them as the
// batch does (from 0).
func (l *lanes) snippets(life context.Context, next *int) func(func(kernel.Snippet) bool) {
	return func(yield func(kernel.Snippet) bool) {
		for {
			select {
			case c := <-l.in:
				l.mu.Lock()
				l.calls[*next] = c
				*next++
				l.mu.Unlock()
				if !yield(c.sn) {
					return
				}
			case <-life.Done():
				return
			}
		}
	}
}

func (l *lanes) result(i int, r kernel.Result) {
	l.mu.Lock()
	c := l.calls[i]
	delete(l.calls, i)
	l.mu.Unlock()
	c.res <- r
}

// refuse answers the calls that come with the error that stopped the
// batch, until retryStart has passed or life ended.
func (l *lanes) refuse(life context.Context, err error) {
	r := unavailable(err)
	retry := time.NewTimer(retryStart)
	defer retry.Stop()
	for {
		select {
		case c := <-l.in:
			c.res <- r
		case <-retry.C:
			return
		case <-life.Done():
			return
		}
	}
}

// run runs one snippet and waits for its result; ctx ending stops it
// (an interrupted result).
func (l *lanes) run(ctx context.Context, sn kernel.Snippet) kernel.Result {
	sn.Context = ctx
	c := calls.Get().(*call)
	c.sn = sn
	select {
	case l.in <- c:
	case <-ctx.Done():
		c.put()
		return interrupted()
	case <-l.done:
		c.put()
		return unavailable(errShuttingDown)
	}
	r := <-c.res
	c.put()
	return r
}

// calls are kept between runs, with their channels.
var calls = sync.Pool{New: func() any { return &call{res: make(chan kernel.Result, 1)} }}

// put gives back a call whose result was taken (or that was never sent).
func (c *call) put() {
	c.sn = kernel.Snippet{}
	calls.Put(c)
}

// wait waits until the batch ended (its lanes and containers are gone).
func (l *lanes) wait() { <-l.done }

func unavailable(err error) kernel.Result {
	return kernel.Result{Status: kernel.StatusError, Error: &contract.ExecutionError{EName: "BackendUnavailable", EValue: err.Error()}}
}

func interrupted() kernel.Result {
	return kernel.Result{Status: kernel.StatusInterrupted, Error: &contract.ExecutionError{EName: "KeyboardInterrupt", EValue: "the run was stopped"}}
}
