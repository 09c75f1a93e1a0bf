package kcore

import (
	"context"
	"sync"
)

// Repeats are a running cell's interrupt requests after the first: the
// first cancels the cell's context (StopRunning); each later one, for a
// cell still running (it caught the KeyboardInterrupt), goes to the cell
// on C, which acts on it (one more SIGINT; Monty kills its worker).
type Repeats struct {
	mu  sync.Mutex
	ctx context.Context
	// C holds at most one request the cell has not acted on yet.
	C chan struct{}
	// stop, when set (OnStop), acts on a request after the first
	// (ErrInterrupted) and on a restart or close (ErrRestarted) at once,
	// so no goroutine of the cell waits on C and the hard channel.
	stop func(why error)
}

// OnStop makes f act on the cell's later interrupts and on a restart or
// close as they come; nil stops that.
func (r *Repeats) OnStop(f func(why error)) {
	r.mu.Lock()
	r.stop = f
	r.mu.Unlock()
}

// stopped calls the OnStop function, if any.
func (r *Repeats) stopped(why error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stop != nil {
		r.stop(why)
	}
}

// NewRepeats returns the repeats of a cell about to run.
func NewRepeats() *Repeats { return &Repeats{C: make(chan struct{}, 1)} }

// Running records the cell's context once it runs.
func (r *Repeats) Running(ctx context.Context) {
	r.mu.Lock()
	r.ctx = ctx
	r.mu.Unlock()
}

// Track makes r the running cell's repeats (nil when none runs): Interrupt
// then hands it the requests after the first.
func (b *Base) Track(r *Repeats) {
	b.Mu.Lock()
	b.repeats = r
	b.Mu.Unlock()
}

// Interrupt implements kernel.Kernel: the first request of a cell cancels
// it, each later one goes to the cell (Repeats).
func (b *Base) Interrupt() error {
	b.Mu.Lock()
	r := b.repeats
	b.Mu.Unlock()
	if r != nil {
		r.mu.Lock()
		cancelled := r.ctx != nil && r.ctx.Err() != nil
		r.mu.Unlock()
		if cancelled {
			select {
			case r.C <- struct{}{}:
			default: // one is pending already
			}
			r.stopped(ErrInterrupted)
			return nil
		}
	}
	b.StopRunning(ErrInterrupted)
	return nil
}
