// Package bounded reads JSON messages under a size limit (contract's
// MaxRequestBytes and MaxLSPMessageBytes): a message over it is read past
// without being held, keeping only what an error answer needs, its
// JSON-RPC id and method (Head). Newline-delimited input (MCP over stdio,
// batch lines) is cut by Lines; a framed or whole message (an LSP body, an
// HTTP request body) is read past by Scan.
package bounded

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// Head is what is known of a message over the limit.
type Head struct {
	// ID is the raw JSON of the top-level "id" member (a number, a string
	// or null); nil when there is none (a notification, or not an object).
	ID json.RawMessage
	// Method is the top-level "method" member, "" when there is none.
	Method string
	// Bytes is the message's size.
	Bytes int64
}

// maxHeadValue bounds the id and method kept: longer ones are not kept.
const maxHeadValue = 256

// Scan reads r to its end, holding a few KiB at a time, and returns the
// head of the JSON object it holds (whatever of it is well formed before
// the first error). The error is r's, never io.EOF.
func Scan(r io.Reader) (Head, error) {
	cr := &countReader{r: r}
	s := scanner{r: bufio.NewReaderSize(cr, 4096)}
	h := s.head()
	_, err := io.Copy(io.Discard, s.r)
	h.Bytes = cr.n
	if err == nil {
		err = cr.err
	}
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return h, err
}

type countReader struct {
	r   io.Reader
	n   int64
	err error
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF {
		c.err = err
	}
	return n, err
}

type scanner struct {
	r *bufio.Reader
}

// head reads the members of a top-level object, keeping "id" and "method".
func (s *scanner) head() Head {
	var h Head
	if c, ok := s.nonSpace(); !ok || c != '{' {
		return h
	}
	for {
		c, ok := s.nonSpace()
		if !ok || c != '"' {
			return h // '}' (the end) or malformed
		}
		key, exact, ok := s.str(8)
		if !ok {
			return h
		}
		if c, ok := s.nonSpace(); !ok || c != ':' {
			return h
		}
		v, ok := s.nonSpace()
		if !ok {
			return h
		}
		switch {
		case exact && key == "id" && (v == '"' || v == '-' || v >= '0' && v <= '9' || v == 'n'):
			raw, ok := s.scalar(v)
			if !ok {
				return h
			}
			if raw != nil && json.Valid(raw) {
				h.ID = raw
			}
		case exact && key == "method" && v == '"':
			raw, ok := s.scalar(v)
			if !ok {
				return h
			}
			_ = json.Unmarshal(raw, &h.Method)
		default:
			if !s.skip(v) {
				return h
			}
		}
		if c, ok := s.nonSpace(); !ok || c != ',' {
			return h
		}
	}
}

func (s *scanner) nonSpace() (byte, bool) {
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return 0, false
		}
		if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
			return c, true
		}
	}
}

// str reads the rest of a string whose '"' was read, keeping up to keep
// bytes of it; exact says it had no escapes and was kept whole; !ok is the
// end of the input first.
func (s *scanner) str(keep int) (str string, exact, ok bool) {
	var b []byte
	exact = true
	for {
		c, err := s.r.ReadByte()
		if err != nil {
			return "", false, false
		}
		switch c {
		case '"':
			return string(b), exact, true
		case '\\':
			exact = false
			if _, err := s.r.ReadByte(); err != nil {
				return "", false, false
			}
		default:
			if len(b) < keep {
				b = append(b, c)
			} else {
				exact = false
			}
		}
	}
}

// scalar reads a string, number or literal whose first byte c was read
// and returns its raw JSON, nil when it is longer than maxHeadValue.
func (s *scanner) scalar(c byte) ([]byte, bool) {
	raw := []byte{c}
	long := false
	add := func(c byte) {
		if len(raw) < maxHeadValue {
			raw = append(raw, c)
		} else {
			long = true
		}
	}
	if c == '"' {
		for {
			c, err := s.r.ReadByte()
			if err != nil {
				return nil, false
			}
			add(c)
			if c == '\\' {
				e, err := s.r.ReadByte()
				if err != nil {
					return nil, false
				}
				add(e)
				continue
			}
			if c == '"' {
				break
			}
		}
	} else {
		for {
			c, err := s.r.ReadByte()
			if err != nil {
				break // the end of the input ends a number too
			}
			if bytes.IndexByte([]byte(",}] \t\r\n"), c) >= 0 {
				_ = s.r.UnreadByte()
				break
			}
			add(c)
		}
	}
	if long {
		return nil, true
	}
	return raw, true
}

// skip reads past a value whose first byte c was read, however deep.
func (s *scanner) skip(c byte) bool {
	switch c {
	case '"':
		_, _, ok := s.str(0)
		return ok
	case '{', '[':
		depth := 1
		for depth > 0 {
			c, err := s.r.ReadByte()
			if err != nil {
				return false
			}
			switch c {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			case '"':
				if _, _, ok := s.str(0); !ok {
					return false
				}
			}
		}
		return true
	default:
		_, ok := s.scalar(c)
		return ok
	}
}

// Lines cuts newline-delimited input into lines of at most a limit of
// bytes each; a longer line is read past (Scan) and reported by its head.
type Lines struct {
	r     *bufio.Reader
	limit int
	buf   []byte
}

// NewLines reads lines of at most limit bytes (the newline not counted)
// from r.
func NewLines(r io.Reader, limit int) *Lines {
	return &Lines{r: bufio.NewReaderSize(r, 1<<16), limit: limit}
}

// Next returns the next line without its newline (valid until the next
// call) and nil, or, for a line over the limit, nil and the line's head.
// At the end of the input it returns io.EOF (after a last line without a
// newline); another read error ends it too.
func (l *Lines) Next() ([]byte, *Head, error) {
	l.buf = l.buf[:0]
	for {
		chunk, err := l.r.ReadSlice('\n')
		l.buf = append(l.buf, chunk...)
		if len(l.buf) > l.limit+2 { // room for "\r\n"
			h, err := l.over(err)
			return nil, h, err
		}
		switch {
		case err == nil:
			return trimEOL(l.buf), nil, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case len(l.buf) > 0 && errors.Is(err, io.EOF):
			return trimEOL(l.buf), nil, nil // the next call returns io.EOF
		default:
			return nil, nil, err
		}
	}
}

// over reads past the rest of a line over the limit; err is the error of
// the read that found it over.
func (l *Lines) over(err error) (*Head, error) {
	rest := &lineRest{r: l.r, done: !errors.Is(err, bufio.ErrBufferFull)}
	newline := err == nil
	h, err := Scan(io.MultiReader(bytes.NewReader(l.buf), rest))
	if cap(l.buf) > 1<<20 {
		l.buf = nil // do not keep the large buffer
	}
	if newline || rest.newline {
		h.Bytes--
	}
	return &h, err
}

// lineRest reads up to and including the next newline.
type lineRest struct {
	r             *bufio.Reader
	done, newline bool
}

func (l *lineRest) Read(p []byte) (int, error) {
	if l.done {
		return 0, io.EOF
	}
	if l.r.Buffered() == 0 {
		if _, err := l.r.Peek(1); err != nil {
			return 0, err
		}
	}
	buf, _ := l.r.Peek(min(len(p), l.r.Buffered()))
	n := len(buf)
	if i := bytes.IndexByte(buf, '\n'); i >= 0 {
		n, l.done, l.newline = i+1, true, true
	}
	copy(p, buf[:n])
	_, _ = l.r.Discard(n)
	return n, nil
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}
