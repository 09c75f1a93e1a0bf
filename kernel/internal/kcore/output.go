package kcore

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/backyard-ls/backyard-ls/kernel"
)

// NewOutput collects a batch snippet's output up to max bytes per stream:
// the program's own bytes, its head, with a marker where it was cut. A
// silent request streams nothing.
func NewOutput(max int, req kernel.Request) *Output {
	o := &Output{max: max}
	if !req.Silent {
		o.onOutput = req.OnOutput
	}
	return o
}

// NewCellOutput collects a notebook cell's output as a Jupyter front end
// keeps it: a carriage return goes back to the start of its line, so a
// progress bar keeps its last state; past max bytes per stream the head
// and the tail are kept, with a marker between them saying how much was
// cut. Output is forwarded as it comes until max bytes; the rest of the
// kept text follows when the cell ends (End).
func NewCellOutput(max int, req kernel.Request) *Output {
	o := NewOutput(max, req)
	o.cell = true
	return o
}

// Output collects one execution's streams, capped, and forwards them.
type Output struct {
	max      int
	cell     bool
	onOutput func(kernel.Stream, string)
	streams  [2]kept
}

// kept is what is kept of one stream.
type kept struct {
	// head and tail: the text before and after the cut (tail, only once
	// head is full, holds at most twice its share between trims); cut
	// counts the bytes dropped from tail's front.
	head, tail []byte
	cut        int
	// line is the line being written (a carriage return moves col back to
	// its start; what follows overwrites it), not yet in head or tail.
	line []rune
	col  int
	cr   bool // the last text ended in "\r": a "\n" next makes it a line break
	// sent are the bytes forwarded as they came; past the head's share
	// the rest is held back (muted) until End.
	sent  []byte
	muted bool
}

// Write adds text to stream s.
func (o *Output) Write(s kernel.Stream, text string) {
	k := o.of(s)
	if !o.cell {
		o.writeHead(k, s, text)
		return
	}
	o.forward(k, s, text)
	for _, r := range text {
		switch {
		case r == '\n':
			k.cr = false
			k.col = len(k.line)
			o.keep(k, append(k.line, '\n'))
			k.line, k.col = k.line[:0], 0
		case k.cr && r != '\r':
			k.cr = false
			k.col = 0
			o.put(k, r)
		case r == '\r':
			k.cr = true
		default:
			o.put(k, r)
		}
	}
}

// Skip counts n bytes of stream s that the backend dropped (they go into
// the cut): what it writes next follows them.
func (o *Output) Skip(s kernel.Stream, n int) {
	k := o.of(s)
	if o.cell {
		o.keep(k, k.line) // the line before the gap stays as it was
		k.line, k.col, k.cr = k.line[:0], 0, false
	}
	k.cut += n
}

func (o *Output) of(s kernel.Stream) *kept {
	if s == kernel.Stderr {
		return &o.streams[1]
	}
	return &o.streams[0]
}

// put writes r at the cursor of the line being written.
func (o *Output) put(k *kept, r rune) {
	if k.col < len(k.line) {
		k.line[k.col] = r
	} else {
		k.line = append(k.line, r)
	}
	k.col++
	if len(k.line) > o.max {
		// A line longer than the limit: its front is kept as written (a
		// carriage return overwrites only what follows).
		n := len(k.line) - o.max/2
		o.keep(k, k.line[:n])
		k.line = append(k.line[:0], k.line[n:]...)
		k.col = max(k.col-n, 0)
	}
}

// keep adds finished text to the head, then to the tail.
func (o *Output) keep(k *kept, rs []rune) {
	b := []byte(string(rs))
	if room := o.max/2 - len(k.head); room > 0 && len(k.tail) == 0 {
		n := len(TruncateUTF8(string(b), room))
		k.head = append(k.head, b[:n]...)
		b = b[n:]
		if len(b) == 0 {
			return
		}
	}
	k.tail = append(k.tail, b...)
	if share := o.max - o.max/2; len(k.tail) > 2*share {
		n := len(k.tail) - share
		k.cut += n
		k.tail = append(k.tail[:0], k.tail[n:]...)
	}
}

// forward passes text on as it comes, up to the head's share of max bytes
// per stream; the rest is held back until End.
func (o *Output) forward(k *kept, s kernel.Stream, text string) {
	if o.onOutput == nil || k.muted {
		return
	}
	if room := o.max/2 - len(k.sent); len(text) > room {
		text = TruncateUTF8(text, max(room, 0))
		k.muted = true
	}
	k.sent = append(k.sent, text...)
	if text != "" {
		o.onOutput(s, text)
	}
}

// End forwards, for each stream whose output was held back, the rest of
// what is kept of it: the marker and the tail after the head that was
// forwarded (when carriage returns rewrote what was forwarded, the end of
// the kept text under a note). Call it once the execution is over.
func (o *Output) End() {
	for i, s := range []kernel.Stream{kernel.Stdout, kernel.Stderr} {
		k := &o.streams[i]
		if o.onOutput == nil || !k.muted {
			continue
		}
		k.muted = false
		text := o.text(k)
		if rest, ok := strings.CutPrefix(text, string(k.sent)); ok {
			text = rest
		} else {
			text = "\n[backyard: the output was cut after its first " + fmt.Sprint(len(k.sent)) + " bytes as they came; it ends:]\n" +
				TruncateFront(text, o.max-o.max/2)
		}
		if text != "" {
			o.onOutput(s, text)
		}
	}
}

// Stdout and Stderr are what was kept of each stream.
func (o *Output) Stdout() string { return o.text(&o.streams[0]) }
func (o *Output) Stderr() string { return o.text(&o.streams[1]) }

// Len is the length in bytes of what Stdout (or Stderr) would give now.
func (o *Output) Len(s kernel.Stream) int {
	k := o.of(s)
	if !o.cell {
		return len(k.head)
	}
	if k.cut == 0 && len(k.tail) == 0 {
		n := len(k.head)
		for _, r := range k.line {
			n += utf8.RuneLen(r)
		}
		if n <= o.max {
			return n
		}
	}
	return len(o.text(k))
}

// cutMarkerEnd ends the marker in the middle of cut output.
const cutMarkerEnd = " bytes cut here]\n"

func (o *Output) text(k *kept) string {
	if !o.cell {
		return string(k.head)
	}
	tail := append(append([]byte(nil), k.tail...), string(k.line)...)
	cut := k.cut
	if share := o.max - o.max/2; len(tail) > share {
		kept := TruncateFront(string(tail), share)
		cut += len(tail) - len(kept)
		tail = []byte(kept)
	}
	if cut == 0 {
		return string(k.head) + string(tail)
	}
	return fmt.Sprintf("%s\n[backyard: output truncated at %d bytes: %d"+cutMarkerEnd+"%s", k.head, o.max, cut, tail)
}

// writeHead keeps the first max bytes of a batch snippet's stream.
func (o *Output) writeHead(k *kept, s kernel.Stream, text string) {
	if room := o.max - len(k.head); len(text) > room {
		if room > 0 {
			o.emit(k, s, TruncateUTF8(text, room))
		}
		if k.cut == 0 {
			o.emit(k, s, fmt.Sprintf("\n[backyard: output truncated at %d bytes]\n", o.max))
		}
		k.cut += len(text) - max(room, 0)
		return
	}
	o.emit(k, s, text)
}

func (o *Output) emit(k *kept, s kernel.Stream, text string) {
	k.head = append(k.head, text...)
	if o.onOutput != nil {
		o.onOutput(s, text)
	}
}

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

// TruncateFront keeps the last n bytes of s at most, from the start of a
// line when one starts in them, else from a character's start.
func TruncateFront(s string, n int) string {
	if len(s) <= n {
		return s
	}
	t := s[len(s)-n:]
	if i := strings.IndexByte(t, '\n'); i >= 0 && i < len(t)/4 {
		return t[i+1:]
	}
	for len(t) > 0 && !utf8.RuneStart(t[0]) {
		t = t[1:]
	}
	return t
}
