package kernel

import (
	"context"
	"sync"
)

// base is the bookkeeping every backend kernel shares: the execution queue,
// the running execution (so Interrupt reaches it), the execution count and
// the state. Backends embed it and lock mu for their own fields too.
type base struct {
	q       queue
	onState func(State)

	mu     sync.Mutex // guards the fields below and the backend's own
	cancel context.CancelCauseFunc
	count  int
	state  State
	closed bool
}

func newBase(onState func(State)) base {
	return base{q: newQueue(), onState: onState, state: StateIdle}
}

// setState records s and tells the observer when it changed.
func (b *base) setState(s State) {
	b.mu.Lock()
	changed := b.state != s && !b.closed
	if changed {
		b.state = s
	}
	b.mu.Unlock()
	if changed && b.onState != nil {
		b.onState(s)
	}
}

// acquire takes the queue for one operation; a closed kernel refuses it.
func (b *base) acquire(ctx context.Context) error {
	if err := b.q.acquire(ctx); err != nil {
		return err
	}
	b.mu.Lock()
	closed := b.closed
	b.mu.Unlock()
	if closed {
		b.q.release()
		return ErrClosed
	}
	return nil
}

// begin registers the execution about to run: Interrupt cancels the
// returned context; a non-silent execution is counted. Call end when it is
// over.
func (b *base) begin(ctx context.Context, silent bool) (_ context.Context, count int, end func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	b.mu.Lock()
	b.cancel = cancel
	if !silent {
		b.count++
	}
	count = b.count
	b.mu.Unlock()
	b.setState(StateBusy)
	return ctx, count, func() {
		b.mu.Lock()
		b.cancel = nil
		b.mu.Unlock()
		cancel(nil)
	}
}

// stopRunning cancels the running execution, if any, with cause.
func (b *base) stopRunning(cause error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cancel != nil {
		b.cancel(cause)
	}
}

// Interrupt implements Kernel.
func (b *base) Interrupt() error {
	b.stopRunning(errInterrupted)
	return nil
}

// resetCount starts the execution count afresh (restart, crash).
func (b *base) resetCount() {
	b.mu.Lock()
	b.count = 0
	b.mu.Unlock()
}

// markClosed marks the kernel closed and stops the running execution; it
// returns false when it was closed already. The caller then waits for the
// queue, releases the backend and calls closed.
func (b *base) markClosed() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return false
	}
	b.closed = true
	if b.cancel != nil {
		b.cancel(ErrClosed)
	}
	return true
}

// notifyDead tells the observer that the kernel is gone.
func (b *base) notifyDead() {
	if b.onState != nil {
		b.onState(StateDead)
	}
}

// restart stops the running execution, then, holding the queue, drops the
// backend's state with drop: the next execution starts an empty kernel
// with the count at 0.
func (b *base) restart(ctx context.Context, drop func()) error {
	b.stopRunning(errRestarted)
	if err := b.acquire(ctx); err != nil {
		return err
	}
	defer b.q.release()
	drop()
	b.resetCount()
	b.setState(StateIdle)
	return nil
}
