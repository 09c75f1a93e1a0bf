package kernel

import (
	"fmt"
	"strings"
	"time"
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

// DefaultLimits are the limits used for zero fields.
var DefaultLimits = Limits{Timeout: 30 * time.Second, MemoryBytes: 256 << 20, RecursionDepth: 1000, MaxOutputBytes: 1 << 20}

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

// newOutput collects req's output up to max bytes per stream; a silent
// request streams nothing.
func newOutput(max int, req Request) *output {
	o := &output{max: max}
	if !req.Silent {
		o.onOutput = req.OnOutput
	}
	return o
}

// output collects one execution's streams, capped, and forwards them.
type output struct {
	max      int
	onOutput func(Stream, string)
	stdout   strings.Builder
	stderr   strings.Builder
	dropped  [2]int
}

func (o *output) write(s Stream, text string) {
	b, i := &o.stdout, 0
	if s == Stderr {
		b, i = &o.stderr, 1
	}
	if room := o.max - b.Len(); len(text) > room {
		if room > 0 {
			o.emit(b, s, truncateUTF8(text, room))
		}
		if o.dropped[i] == 0 {
			o.emit(b, s, fmt.Sprintf("\n[backyard: output truncated at %d bytes]\n", o.max))
		}
		o.dropped[i] += len(text) - max(room, 0)
		return
	}
	o.emit(b, s, text)
}

func (o *output) emit(b *strings.Builder, s Stream, text string) {
	b.WriteString(text)
	if o.onOutput != nil {
		o.onOutput(s, text)
	}
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
