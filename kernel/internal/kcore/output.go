package kcore

import (
	"fmt"
	"strings"

	"github.com/backyard-ls/backyard-ls/kernel"
)

// NewOutput collects req's output up to max bytes per stream; a silent
// request streams nothing.
func NewOutput(max int, req kernel.Request) *Output {
	o := &Output{max: max}
	if !req.Silent {
		o.onOutput = req.OnOutput
	}
	return o
}

// Output collects one execution's streams, capped, and forwards them.
type Output struct {
	max      int
	onOutput func(kernel.Stream, string)
	stdout   strings.Builder
	stderr   strings.Builder
	dropped  [2]int
}

// Write adds text to stream s.
func (o *Output) Write(s kernel.Stream, text string) {
	b, i := &o.stdout, 0
	if s == kernel.Stderr {
		b, i = &o.stderr, 1
	}
	if room := o.max - b.Len(); len(text) > room {
		if room > 0 {
			o.emit(b, s, TruncateUTF8(text, room))
		}
		if o.dropped[i] == 0 {
			o.emit(b, s, fmt.Sprintf("\n[backyard: output truncated at %d bytes]\n", o.max))
		}
		o.dropped[i] += len(text) - max(room, 0)
		return
	}
	o.emit(b, s, text)
}

func (o *Output) emit(b *strings.Builder, s kernel.Stream, text string) {
	b.WriteString(text)
	if o.onOutput != nil {
		o.onOutput(s, text)
	}
}

// Stdout and Stderr are what was kept of each stream.
func (o *Output) Stdout() string { return o.stdout.String() }
func (o *Output) Stderr() string { return o.stderr.String() }

// TruncateUTF8 cuts s to at most n bytes without splitting a character.
func TruncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
