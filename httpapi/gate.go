package httpapi

import (
	"context"
	"errors"
	"sync"
)

// errBusy: every run slot and every queue place is taken.
var errBusy = errors.New("busy")

// gate admits runs: running at most slots at once, queued at most
// queue more; past that a run is refused at once (never left waiting).
type gate struct {
	slots   chan struct{}
	queue   int
	metrics *metrics

	mu      sync.Mutex
	waiting int
}

func newGate(slots, queue int, m *metrics) *gate {
	return &gate{slots: make(chan struct{}, slots), queue: queue, metrics: m}
}

// enter takes a slot, waiting in the queue for one when there is room;
// release gives it back. It fails with errBusy, or ctx's error when the
// caller stopped waiting.
func (g *gate) enter(ctx context.Context) error {
	select {
	case g.slots <- struct{}{}:
		g.metrics.running.Inc()
		return nil
	default:
	}
	g.mu.Lock()
	if g.waiting >= g.queue {
		g.mu.Unlock()
		return errBusy
	}
	g.waiting++
	g.metrics.queued.Set(float64(g.waiting))
	g.mu.Unlock()
	defer func() {
		g.mu.Lock()
		g.waiting--
		g.metrics.queued.Set(float64(g.waiting))
		g.mu.Unlock()
	}()
	select {
	case g.slots <- struct{}{}:
		g.metrics.running.Inc()
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *gate) release() {
	g.metrics.running.Dec()
	<-g.slots
}
