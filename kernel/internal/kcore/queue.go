package kernel

import "context"

// queue serializes executions in arrival order: goroutines blocked on a
// channel send are woken first-in, first-out.
type queue chan struct{}

func newQueue() queue { return make(queue, 1) }

func (q queue) acquire(ctx context.Context) error {
	select {
	case q <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

func (q queue) release() { <-q }
