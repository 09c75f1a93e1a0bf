package kcore

import "context"

// Queue serializes executions in arrival order: goroutines blocked on a
// channel send are woken first-in, first-out.
type Queue chan struct{}

// NewQueue returns an empty queue.
func NewQueue() Queue { return make(Queue, 1) }

// Acquire waits for the queue (or ctx).
func (q Queue) Acquire(ctx context.Context) error {
	select {
	case q <- struct{}{}:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// TryAcquire takes the queue when it is free.
func (q Queue) TryAcquire() bool {
	select {
	case q <- struct{}{}:
		return true
	default:
		return false
	}
}

// Release gives the queue back.
func (q Queue) Release() { <-q }
