package sandbox

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/backyard-ls/backyard-ls/kernel"
)

// Lanes are a batch's lanes kept open for snippets that come one at a
// time from many goroutines, as a service's requests do: Run routes a
// snippet in its caller's goroutine and queues it straight on a lane, and
// the lane hands the result back to that goroutine. A Batch fed by a
// channel would add a goroutine (its feed) to every snippet's way.
type Lanes struct {
	b      *batch
	cancel context.CancelFunc
	next   atomic.Int64 // the lanes' tag of the next snippet

	// Run holds mu to queue a snippet; Close takes it to close the queues
	// once quit has freed the runs waiting for room.
	mu     sync.RWMutex
	closed bool
	quit   chan struct{}
	close  sync.Once
}

// Lanes starts lanes as Batch would run them (opts.OnResult is not used:
// each Run returns its own result). When ctx ends, the snippets still
// running come back interrupted. It fails as Batch does for a batch that
// cannot run at all: no Monty worker to probe (auto), no container that
// starts (backend "container"). Close them.
func (s *Sandbox) Lanes(ctx context.Context, opts BatchOptions) (*Lanes, error) {
	b, err := s.newBatch(opts)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	if err := b.start(ctx); err != nil {
		cancel()
		return nil, err
	}
	return &Lanes{b: b, cancel: cancel, quit: make(chan struct{})}, nil
}

// Run runs one snippet and returns its result, a snippet that fails,
// crashes or runs out of time included. sn.Context ending stops it (an
// interrupted result); so do Close and the end of the lanes' context.
func (l *Lanes) Run(sn kernel.Snippet) kernel.Result {
	j := job{i: int(l.next.Add(1)), sn: sn, reply: replies.Get().(chan kernel.Result)}
	defer replies.Put(j.reply)
	l.mu.RLock()
	if l.closed {
		l.mu.RUnlock()
		return interrupted(!l.b.useMonty)
	}
	if q := l.b.route(&j); q != nil {
		var stopped <-chan struct{}
		if sn.Context != nil {
			stopped = sn.Context.Done()
		}
		select {
		case q <- j:
		case <-stopped:
			j.reply <- interrupted(q == l.b.ctrQ)
		case <-l.quit:
			j.reply <- interrupted(q == l.b.ctrQ)
		}
	}
	l.mu.RUnlock()
	return <-j.reply
}

// replies are the channels results come back on, kept between runs (one
// is back in the pool only once its result was taken).
var replies = sync.Pool{New: func() any { return make(chan kernel.Result, 1) }}

// Close stops the lanes: the snippets still running come back
// interrupted, and their workers and containers are gone when it
// returns.
func (l *Lanes) Close() {
	l.close.Do(func() {
		l.cancel()
		close(l.quit)
		l.mu.Lock()
		l.closed = true
		l.mu.Unlock()
		l.b.stop()
	})
}
