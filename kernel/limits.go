package kernel

import (
	"errors"
	"fmt"
	"time"

	"github.com/backyard-ls/backyard-ls/contract"
)

// Limits bound every execution of a kernel.
type Limits struct {
	// Timeout is the wall-clock limit of one execution (default 30 s).
	Timeout time.Duration
	// MemoryBytes caps the kernel's memory (default 256 MiB).
	MemoryBytes uint64
	// RecursionDepth caps Python call depth (default 1000).
	RecursionDepth int
	// MaxOutputBytes caps what one execution keeps and streams of each
	// output stream (default 1 MiB); the rest is dropped with a marker.
	MaxOutputBytes int
}

// DefaultLimits are the limits used for zero fields: the settings'
// declared defaults.
var DefaultLimits = LimitsOf(contract.DefaultSettings())

// LimitsOf are the limits the settings ask for.
func LimitsOf(s contract.Settings) Limits {
	return Limits{
		Timeout:        s.Timeout.Duration(),
		MemoryBytes:    s.Memory.Bytes(),
		RecursionDepth: s.RecursionLimit,
		MaxOutputBytes: s.MaxOutputBytes,
	}
}

// WithDefaults fills zero fields from DefaultLimits.
func (l Limits) WithDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = DefaultLimits.Timeout
	}
	if l.MemoryBytes == 0 {
		l.MemoryBytes = DefaultLimits.MemoryBytes
	}
	if l.RecursionDepth <= 0 {
		l.RecursionDepth = DefaultLimits.RecursionDepth
	}
	if l.MaxOutputBytes <= 0 {
		l.MaxOutputBytes = DefaultLimits.MaxOutputBytes
	}
	return l
}

// Override returns l with the fields of o that are set (per-execution
// overrides, Request.Limits).
func (l Limits) Override(o Limits) Limits {
	if o.Timeout > 0 {
		l.Timeout = o.Timeout
	}
	if o.MemoryBytes > 0 {
		l.MemoryBytes = o.MemoryBytes
	}
	if o.RecursionDepth > 0 {
		l.RecursionDepth = o.RecursionDepth
	}
	if o.MaxOutputBytes > 0 {
		l.MaxOutputBytes = o.MaxOutputBytes
	}
	return l
}

// ErrLimitFixed is wrapped by the error of an execution whose limit
// override a running session cannot take: Monty fixes a session's memory
// and recursion limits when it starts, and gVisor cannot resize a running
// container. Nothing ran.
var ErrLimitFixed = errors.New("the backend cannot change this limit of a running session")

// CheckOverride refuses overrides of the limits a session fixes when it
// starts (see ErrLimitFixed); l are the session's limits.
func (l Limits) CheckOverride(o Limits) error {
	if o.MemoryBytes > 0 && o.MemoryBytes != l.MemoryBytes || o.RecursionDepth > 0 && o.RecursionDepth != l.RecursionDepth {
		return fmt.Errorf("%w: memory and recursion limits are set when the session starts", ErrLimitFixed)
	}
	return nil
}
