// Package cgroup learns, on the host side, whether the kernel's OOM killer
// struck in a container: it follows the memory cgroup the container engine
// made for the container's first process (Linux, cgroup v1 or v2), which the
// code in the container cannot see or touch. The engine's own word on an
// OOM kill comes from an event that can arrive well after the container's
// exit; the cgroup's comes before the kill.
package cgroup

import (
	"errors"
	"sync"
)

// Verdict is what a Watch learned.
type Verdict int

const (
	// Pending: nothing yet.
	Pending Verdict = iota
	// OOM: the cgroup ran out of memory and its OOM killer struck.
	OOM
	// NoOOM: the process exited and its cgroup's OOM killer never struck.
	NoOOM
	// Unknown: the cgroup went away before it could be read; ask the
	// engine.
	Unknown
)

// ErrUnsupported is returned where the cgroup cannot be followed: not
// Linux, a remote engine (the process is not on this host), no memory
// controller, or no right to register for its events.
var ErrUnsupported = errors.New("the memory cgroup cannot be followed here")

// Watch follows one memory cgroup until it is gone or Close is called.
type Watch struct {
	done  chan struct{} // closed once the verdict is final
	once  sync.Once
	mu    sync.Mutex
	v     Verdict
	close func()
	kills func() (uint64, bool)
}

func newWatch(close func()) *Watch {
	return &Watch{done: make(chan struct{}), close: close}
}

// settle records the final verdict.
func (w *Watch) settle(v Verdict) {
	w.mu.Lock()
	if w.v == Pending {
		w.v = v
	}
	w.mu.Unlock()
	w.once.Do(func() { close(w.done) })
}

// Done is closed once the verdict is final: an OOM kill was seen, the
// process exited without one, or the cgroup went away.
func (w *Watch) Done() <-chan struct{} { return w.done }

// Verdict is what the watch knows now.
func (w *Watch) Verdict() Verdict {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.v
}

// Kills is the cgroup's count of processes the OOM killer ended so far
// (its oom_kill counter), and whether it could be read: false once the
// watch is closed or the cgroup is gone, or on a kernel that does not
// count them. A container that goes on after one of its processes was
// killed (a fork server's child) learns from it why the child died.
func (w *Watch) Kills() (uint64, bool) {
	if w == nil || w.kills == nil {
		return 0, false
	}
	return w.kills()
}

// Close stops the watch and releases its files; the verdict stays.
func (w *Watch) Close() {
	if w == nil {
		return
	}
	w.close()
}
