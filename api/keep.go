package api

import (
	"context"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
)

// keepTick is the period of the keeper's timer: a run kept on the read
// loop through a whole tick (one to two ticks in all) is released.
const keepTick = time.Millisecond

// A run starts on the connection's read loop: most end in tens of
// microseconds, and one that ends there costs no goroutine, no new stack
// and no other thread woken for the next read. The keeper releases the
// read loop (jsonrpc2.Async) from a run that goes on, so interrupts and
// other sandboxes' requests are read while it runs, and from one that is
// about to wait on the client (a host function call, whose answer the
// read loop must read). One timer, armed only while a run is kept.
type keeper struct {
	mu    sync.Mutex
	timer *time.Timer
	armed bool
	cur   *kept
	ticks int // ticks cur was kept through
}

// kept is a call kept on the read loop.
type kept struct {
	req  context.Context // jsonrpc2's request context: only for Async
	done bool            // released, or its handler returned
}

// keep holds the call of req on the read loop.
func (k *keeper) keep(req context.Context) *kept {
	c := &kept{req: req}
	k.mu.Lock()
	defer k.mu.Unlock()
	k.cur, k.ticks = c, 0
	if !k.armed {
		k.armed = true
		if k.timer == nil {
			k.timer = time.AfterFunc(keepTick, k.tick)
		} else {
			k.timer.Reset(keepTick)
		}
	}
	return c
}

func (k *keeper) tick() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cur == nil {
		k.armed = false
		return
	}
	if k.ticks++; k.ticks >= 2 {
		k.releaseLocked(k.cur)
		k.armed = false
		return
	}
	k.timer.Reset(keepTick)
}

// release frees the read loop from c, if that is still to do.
func (k *keeper) release(c *kept) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.releaseLocked(c)
}

func (k *keeper) releaseLocked(c *kept) {
	if k.cur == c {
		k.cur = nil
	}
	if !c.done {
		c.done = true
		jsonrpc2.Async(c.req)
	}
}

// finish ends c when its handler returns: jsonrpc2 recycles the request
// after that, so it must not be released any more.
func (k *keeper) finish(c *kept) {
	k.mu.Lock()
	defer k.mu.Unlock()
	c.done = true
	if k.cur == c {
		k.cur = nil
	}
}

// stop ends the timer (the server is stopping).
func (k *keeper) stop() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.timer != nil {
		k.timer.Stop()
	}
	k.armed, k.cur = false, nil
}
