package httpapi

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/sandbox"
)

// lanes are batch lanes (sandbox.Lanes) that live as long as the server:
// every /run_code request is one of their snippets, queued from the
// request's own goroutine. Their Monty workers and fork-server containers
// serve request after request. Lanes that cannot start (no container
// engine for backend "container") are tried again a second later;
// meanwhile requests are answered at once with why.
type lanes struct {
	ready chan struct{} // closed once the lanes were first tried
	state atomic.Pointer[laneState]
	done  chan struct{} // the lanes ended for good
}

// laneState is the lanes that serve, or why there are none.
type laneState struct {
	lanes *sandbox.Lanes
	err   error
}

var errShuttingDown = errors.New("the server is shutting down")

// retryStart is how long after lanes that could not start they are tried
// again.
const retryStart = time.Second

func startLanes(life context.Context, opts Options, log *zap.Logger) (*lanes, error) {
	sb, err := sandbox.New(sandbox.Options{
		Backend: opts.Settings.Backend, Limits: kernel.LimitsOf(opts.Settings), MontyBinary: opts.Settings.MontyPath, Container: opts.Settings.Container,
	})
	if err != nil {
		return nil, err
	}
	l := &lanes{ready: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(l.done)
		defer sb.Close()
		defer l.state.Store(&laneState{err: errShuttingDown})
		for first := true; ; first = false {
			bl, err := sb.Lanes(life, sandbox.BatchOptions{
				Parallelism: opts.Parallel, Preload: opts.Preload, HashSeed: opts.HashSeed, Backlog: opts.MaxRunning,
				OnWarning: func(w string) { log.Warn(w) },
			})
			switch {
			case err == nil:
				l.state.Store(&laneState{lanes: bl})
			case life.Err() != nil:
				l.state.Store(&laneState{err: errShuttingDown})
			default:
				log.Error("the batch lanes cannot run; trying again", zap.Error(err))
				l.state.Store(&laneState{err: err})
			}
			if first {
				close(l.ready)
			}
			if err == nil {
				<-life.Done()
				l.state.Store(&laneState{err: errShuttingDown})
				bl.Close()
				return
			}
			retry := time.NewTimer(retryStart)
			select {
			case <-retry.C:
			case <-life.Done():
				retry.Stop()
				return
			}
		}
	}()
	return l, nil
}

// run runs one snippet and waits for its result; ctx ending stops it
// (an interrupted result).
func (l *lanes) run(ctx context.Context, sn kernel.Snippet) kernel.Result {
	select {
	case <-l.ready:
	case <-ctx.Done():
		return interrupted()
	}
	st := l.state.Load()
	if st.lanes == nil {
		return unavailable(st.err)
	}
	sn.Context = ctx
	return st.lanes.Run(sn)
}

// wait waits until the batch ended (its lanes and containers are gone).
func (l *lanes) wait() { <-l.done }

func unavailable(err error) kernel.Result {
	return kernel.Result{Status: kernel.StatusError, Error: &contract.ExecutionError{EName: "BackendUnavailable", EValue: err.Error()}}
}

func interrupted() kernel.Result {
	return kernel.Result{Status: kernel.StatusInterrupted, Error: &contract.ExecutionError{EName: "KeyboardInterrupt", EValue: "the run was stopped"}}
}
