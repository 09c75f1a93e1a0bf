package kcore

import (
	"context"
	"errors"
	"sync"

	"github.com/backyard-ls/backyard-ls/kernel"
)

// Base is the bookkeeping every backend kernel shares: the execution queue,
// the running execution (so Interrupt reaches it), the execution count, the
// state, and the kernel's lifetime: a context that Close cancels, from which
// everything the kernel does in the background derives. Backends embed it
// and lock Mu for their own fields too.
//
// Lock order: the queue (Q), then Mu. Mu is never held while calling out
// (OnState, the backend).
type Base struct {
	Q       Queue
	onState func(kernel.State)
	life    context.Context
	end     context.CancelFunc

	Mu      sync.Mutex // guards the fields below and the backend's own
	cancel  context.CancelCauseFunc
	hard    chan struct{} // closed when the running execution must end at once
	hardUp  bool          // hard is closed
	repeats *Repeats      // the running cell's, for Interrupt
	count   int
	state   kernel.State
	closed  bool
}

// NewBase returns the bookkeeping of an idle kernel.
func NewBase(onState func(kernel.State)) Base {
	life, end := context.WithCancel(context.Background())
	return Base{Q: NewQueue(), onState: onState, state: kernel.StateIdle, life: life, end: end}
}

// Life is the kernel's lifetime: cancelled by Close (MarkClosed).
func (b *Base) Life() context.Context { return b.life }

// SetState records s and tells the observer when it changed.
func (b *Base) SetState(s kernel.State) {
	b.Mu.Lock()
	changed := b.state != s && !b.closed
	if changed {
		b.state = s
	}
	b.Mu.Unlock()
	if changed && b.onState != nil {
		b.onState(s)
	}
}

// DeadIfIdle marks an idle kernel dead, when still(), checked under Mu,
// says the backend that died is the current one, and tells the observer:
// a kernel whose worker or container died between cells.
func (b *Base) DeadIfIdle(still func() bool) bool {
	b.Mu.Lock()
	ok := b.state == kernel.StateIdle && !b.closed && still()
	if ok {
		b.state = kernel.StateDead
	}
	b.Mu.Unlock()
	if ok && b.onState != nil {
		b.onState(kernel.StateDead)
	}
	return ok
}

// State is the current state (dead once closed). Mu must be held.
func (b *Base) StateLocked() kernel.State {
	if b.closed {
		return kernel.StateDead
	}
	return b.state
}

// Count is the execution count. Mu must be held.
func (b *Base) CountLocked() int { return b.count }

// Acquire takes the queue for one operation; a closed kernel refuses it.
func (b *Base) Acquire(ctx context.Context) error {
	if err := b.Q.Acquire(ctx); err != nil {
		return err
	}
	b.Mu.Lock()
	closed := b.closed
	b.Mu.Unlock()
	if closed {
		b.Q.Release()
		return kernel.ErrClosed
	}
	return nil
}

// Begin registers the execution about to run: Interrupt cancels the
// returned context; Restart and Close also close hard (the execution must
// end at once, even after an interrupt it is still handling); a non-silent
// execution is counted. Call end when it is over.
func (b *Base) Begin(ctx context.Context, silent bool) (_ context.Context, count int, hard <-chan struct{}, end func()) {
	ctx, cancel := context.WithCancelCause(ctx)
	h := make(chan struct{})
	b.Mu.Lock()
	b.cancel, b.hard, b.hardUp = cancel, h, false
	if !silent {
		b.count++
	}
	count = b.count
	b.Mu.Unlock()
	b.SetState(kernel.StateBusy)
	return ctx, count, h, func() {
		b.Mu.Lock()
		b.cancel, b.hard = nil, nil
		b.Mu.Unlock()
		cancel(nil)
	}
}

// StopRunning cancels the running execution, if any, with cause; a restart
// or close also closes its hard channel.
func (b *Base) StopRunning(cause error) {
	b.Mu.Lock()
	defer b.Mu.Unlock()
	if b.cancel != nil {
		b.cancel(cause)
	}
	if errors.Is(cause, ErrRestarted) || errors.Is(cause, kernel.ErrClosed) {
		b.hardStopLocked()
	}
}

// hardStopLocked closes the running execution's hard channel and tells
// its cell (Repeats.OnStop). Mu must be held.
func (b *Base) hardStopLocked() {
	if b.hard != nil && !b.hardUp {
		close(b.hard)
		b.hardUp = true
		if b.repeats != nil {
			b.repeats.stopped(ErrRestarted)
		}
	}
}

// Stop implements kernel.Stopper: the running execution ends at once, as
// a restart ends it.
func (b *Base) Stop() { b.StopRunning(ErrRestarted) }

// ResetCount starts the execution count afresh (restart, crash).
func (b *Base) ResetCount() {
	b.Mu.Lock()
	b.count = 0
	b.Mu.Unlock()
}

// MarkClosed marks the kernel closed, ends its lifetime and stops the
// running execution; it returns false when it was closed already. The
// caller then waits for the queue (Q <- struct{}{}), releases the backend
// and calls NotifyDead.
func (b *Base) MarkClosed() bool {
	b.Mu.Lock()
	defer b.Mu.Unlock()
	if b.closed {
		return false
	}
	b.closed = true
	b.end()
	if b.cancel != nil {
		b.cancel(kernel.ErrClosed)
	}
	b.hardStopLocked()
	return true
}

// NotifyDead tells the observer that the kernel is gone.
func (b *Base) NotifyDead() {
	if b.onState != nil {
		b.onState(kernel.StateDead)
	}
}

// RestartWith stops the running execution, then, holding the queue, drops the
// backend's state with drop: the next execution starts an empty kernel
// with the count at 0.
func (b *Base) RestartWith(ctx context.Context, drop func()) error {
	b.StopRunning(ErrRestarted)
	if err := b.Acquire(ctx); err != nil {
		return err
	}
	defer b.Q.Release()
	drop()
	b.ResetCount()
	b.SetState(kernel.StateIdle)
	return nil
}

// Bound derives from ctx a context that also ends with the kernel's
// lifetime, so that work under it (a container start, an image pull)
// stops when the kernel is closed.
func (b *Base) Bound(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := context.AfterFunc(b.life, func() { cancel(kernel.ErrClosed) })
	return ctx, func() {
		stop()
		cancel(nil)
	}
}
