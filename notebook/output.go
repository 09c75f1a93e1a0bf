package notebook

import (
	"slices"
	"sync"
	"time"

	"github.com/backyard-ls/backyard-ls/kernel"
)

// Output batching: chunks are merged until a batch reaches outputBatchBytes
// or has waited outputBatchDelay, and flushed at once when the stream
// changes, so stdout and stderr stay in order. The kernel already caps each
// stream (Limits.MaxOutputBytes, with a marker); outputSlack lets that marker
// through and stops streaming after it, whatever a backend does.
const (
	outputBatchBytes = 32 << 10
	outputBatchDelay = 5 * time.Millisecond
	outputSlack      = 4 << 10
)

// outputStream forwards one execution's output as backyard/output
// notifications.
type outputStream struct {
	send  func(stream kernel.Stream, text string)
	limit int // bytes streamed per stream before dropping

	mu     sync.Mutex
	stream kernel.Stream
	buf    []byte
	timer  *time.Timer
	sent   [2]int
	closed bool
}

func newOutputStream(maxOutput int, send func(kernel.Stream, string)) *outputStream {
	return &outputStream{send: send, limit: maxOutput + outputSlack}
}

// write is the kernel's OnOutput callback.
func (o *outputStream) write(s kernel.Stream, text string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.closed {
		return
	}
	i := 0
	if s == kernel.Stderr {
		i = 1
	}
	if room := o.limit - o.sent[i]; len(text) > room {
		text = cutUTF8(text, max(room, 0))
	}
	if text == "" {
		return
	}
	o.sent[i] += len(text)
	if len(o.buf) > 0 && s != o.stream {
		o.flushLocked()
	}
	o.stream = s
	o.buf = append(o.buf, text...)
	if len(o.buf) >= outputBatchBytes {
		o.flushLocked()
		return
	}
	if o.timer == nil {
		o.timer = time.AfterFunc(outputBatchDelay, o.flush)
	}
}

func (o *outputStream) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.flushLocked()
}

func (o *outputStream) flushLocked() {
	if o.timer != nil {
		o.timer.Stop()
		o.timer = nil
	}
	if len(o.buf) == 0 {
		return
	}
	text := validPrefix(o.buf)
	rest := len(o.buf) - len(text)
	o.send(o.stream, text)
	// Keep an incomplete UTF-8 sequence for the next chunk.
	o.buf = append(o.buf[:0], o.buf[len(o.buf)-rest:]...)
	if cap(o.buf) > outputBatchBytes*2 {
		o.buf = append([]byte(nil), o.buf...)
	}
}

// close flushes what is left; later writes are dropped.
func (o *outputStream) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.flushLocked()
	o.buf = nil // at most a dangling partial character
	o.closed = true
}

// validPrefix returns b up to a trailing incomplete UTF-8 sequence, as a
// string (a cut inside a character would turn into U+FFFD on the wire).
func validPrefix(b []byte) string {
	n := len(b)
	for i := n - 1; i >= 0 && i >= n-3; i-- {
		c := b[i]
		if c < 0x80 {
			break
		}
		if c >= 0xC0 { // a leading byte: is its sequence complete?
			need := 2
			if c >= 0xF0 {
				need = 4
			} else if c >= 0xE0 {
				need = 3
			}
			if n-i < need {
				return string(b[:i])
			}
			break
		}
	}
	return string(b)
}

// cutUTF8 cuts s to at most n bytes without splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// OtherMIME are the MIME types of a bundle other than text/plain, sorted.
func OtherMIME(bundle map[string]string) []string {
	var out []string
	for k := range bundle {
		if k != "text/plain" {
			out = append(out, k)
		}
	}
	slices.Sort(out)
	return out
}
