package lsp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// maxFrame bounds one incoming message body. A 10 MB document in a didOpen
// fits with room to spare.
const maxFrame = 256 << 20

// stream is the LSP base-protocol framing ("Content-Length: n\r\n\r\n" + JSON)
// over stdio, made to survive a misbehaving peer instead of closing the
// connection as jsonrpc2's own header stream does:
//   - a body that is not JSON, or not a JSON-RPC message, is answered with a
//     ParseError/InvalidRequest response (id null) and skipped;
//   - a header block that cannot be parsed (garbage, a wrong Content-Length
//     that left the reader mid-body) is skipped up to the next
//     "Content-Length:" field.
//
// It implements jsonrpc2.Stream plus the ReadFrame/WriteFrame pair that lets
// jsonrpc2.Conn take its zero-copy path, and batches notifications (see
// notifyDelay).
type stream struct {
	in     *bufio.Reader
	out    io.Writer
	closer func() error
	log    *zap.Logger

	rbuf    bytes.Buffer // body of the last frame; valid until the next read
	lineBuf []byte       // an overlong header line

	wmu      sync.Mutex // guards the write side
	body     []byte     // scratch: the body being framed
	pending  []byte     // framed messages not yet written
	timer    *time.Timer
	timerSet bool

	// ended is closed when the input ends or fails: the connection lives on
	// until in-flight calls drain, but the client is gone.
	ended   chan struct{}
	endOnce sync.Once
}

func newStream(in io.Reader, out io.Writer, closer func() error, log *zap.Logger) *stream {
	return &stream{in: bufio.NewReaderSize(in, 64<<10), out: out, closer: closer, log: log, ended: make(chan struct{})}
}

var _ jsonrpc2.Stream = (*stream)(nil)

// ReadFrame returns the body of the next well-formed JSON-RPC message. It
// answers and skips malformed ones; it returns an error only when the input
// ends or fails.
func (s *stream) ReadFrame(ctx context.Context) (body []byte, n int64, err error) {
	defer func() {
		if err != nil {
			s.endOnce.Do(func() { close(s.ended) })
		}
	}()
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		n, hdr, err := s.readHeader()
		if err != nil {
			return nil, 0, err
		}
		if s.rbuf.Cap() > 1<<20 {
			s.rbuf = bytes.Buffer{} // do not keep a 10 MB document's buffer
		}
		s.rbuf.Reset()
		// Grow as bytes arrive so a lying Content-Length cannot make us
		// allocate it up front.
		if _, err := io.CopyN(&s.rbuf, s.in, int64(n)); err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF // the input ended inside a body
			}
			return nil, 0, err
		}
		body := s.rbuf.Bytes()
		if rpcErr := validate(body); rpcErr != nil {
			s.log.Warn("skipping malformed message", zap.Int("bytes", len(body)), zap.String("error", rpcErr.Message))
			_ = s.write(jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, rpcErr))
			continue
		}
		return body, int64(hdr + n), nil
	}
}

// validate reports why body is not a JSON-RPC message (or batch), or nil.
func validate(body []byte) *jsonrpc2.Error {
	i := 0
	for i < len(body) && (body[i] == ' ' || body[i] == '\t' || body[i] == '\r' || body[i] == '\n') {
		i++
	}
	if i < len(body) && body[i] == '[' {
		if _, err := jsonrpc2.ParseRequests(body); err != nil {
			return asRPCError(err)
		}
		return nil
	}
	if _, err := jsonrpc2.DecodeMessage(body); err != nil {
		return asRPCError(err)
	}
	return nil
}

func asRPCError(err error) *jsonrpc2.Error {
	var e *jsonrpc2.Error
	if errors.As(err, &e) {
		return e
	}
	return jsonrpc2.NewError(jsonrpc2.ParseError, err.Error())
}

// readHeader reads one header block and returns the body length and the
// header's size. A line that is not a header field starts a resync: the
// reader then waits for a "Content-Length:" field, which may follow the tail
// of a mis-sized body on the same line.
func (s *stream) readHeader() (length, size int, err error) {
	have, skipping := false, false
	skip := func(msg string, field zap.Field) {
		if !skipping {
			s.log.Warn(msg, field)
		}
		skipping, have = true, false
	}
	for {
		line, err := s.readLine()
		size += len(line)
		if err != nil {
			return 0, 0, eofErr(err, size)
		}
		body := bytes.TrimRight(line, "\r\n")
		if len(body) == 0 {
			if have {
				return length, size, nil
			}
			skip("skipping header block without Content-Length", zap.Int("bytes", size))
			continue
		}
		if i := indexContentLength(body); i > 0 {
			// The tail of a body that was longer than its Content-Length said.
			body, have = body[i:], false
		}
		name, value, ok := bytes.Cut(body, []byte(":"))
		if !ok || !isToken(name) {
			skip("skipping malformed header", zap.ByteString("line", truncateBytes(body, 80)))
			continue
		}
		if bytes.EqualFold(name, []byte("Content-Length")) {
			n, err := strconv.Atoi(string(bytes.TrimSpace(value)))
			if err != nil || n <= 0 || n > maxFrame {
				skip("skipping frame with bad Content-Length", zap.ByteString("value", truncateBytes(value, 40)))
				continue
			}
			length, have, skipping = n, true, false
		}
	}
}

// maxLineTail is how much of an overlong line is kept: only its end can hold
// a "Content-Length:" field to resync on.
const maxLineTail = 1 << 10

// readLine returns the next line including its "\n". The result is valid
// until the next read. Of a line longer than the reader's buffer only the
// last maxLineTail bytes are returned (no header line is that long).
func (s *stream) readLine() ([]byte, error) {
	line, err := s.in.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, err
	}
	s.lineBuf = append(s.lineBuf[:0], line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = s.in.ReadSlice('\n')
		s.lineBuf = append(s.lineBuf, line...)
		if len(s.lineBuf) > 2*maxLineTail {
			s.lineBuf = append(s.lineBuf[:0], s.lineBuf[len(s.lineBuf)-maxLineTail:]...)
		}
	}
	return s.lineBuf, err
}

func eofErr(err error, consumed int) error {
	if errors.Is(err, io.EOF) && consumed > 0 {
		return io.ErrUnexpectedEOF
	}
	return err
}

var contentLength = []byte("content-length:")

// indexContentLength finds "Content-Length:" in b, ignoring case, or -1.
func indexContentLength(b []byte) int {
	for i := 0; i+len(contentLength) <= len(b); i++ {
		if (b[i] == 'C' || b[i] == 'c') && bytes.EqualFold(b[i:i+len(contentLength)], contentLength) {
			return i
		}
	}
	return -1
}

// isToken reports whether b is an HTTP header field name.
func isToken(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !(c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

func truncateBytes(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}

// Read implements jsonrpc2.Stream; jsonrpc2.Conn uses ReadFrame instead.
func (s *stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	body, n, err := s.ReadFrame(ctx)
	if err != nil {
		return nil, 0, err
	}
	msg, err := jsonrpc2.DecodeMessage(bytes.Clone(body))
	return msg, n, err
}

// Writes. Responses and server-to-client calls go out at once, together
// with the notifications queued before them; notifications alone wait up
// to notifyDelay (or until notifyBatchBytes are queued). A trivial cell's
// queued/running/busy/idle/done notifications and its response thus leave
// in one write, and the client wakes once instead of six times.
const (
	notifyDelay      = time.Millisecond
	notifyBatchBytes = 64 << 10
)

// Write implements jsonrpc2.Stream (responses and calls).
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return s.writeBody(func(b []byte) []byte { return jsonrpc2.AppendMessage(b, msg) }, true)
}

// WriteFrame writes an encoded JSON body as one frame.
func (s *stream) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return s.writeBody(func(b []byte) []byte { return append(b, data...) }, true)
}

func (s *stream) write(msg jsonrpc2.Message) error {
	_, err := s.writeBody(func(b []byte) []byte { return jsonrpc2.AppendMessage(b, msg) }, true)
	return err
}

// notify queues a notification whose params are already encoded.
func (s *stream) notify(method string, params []byte) {
	if _, err := s.writeBody(func(b []byte) []byte { return jsonrpc2.AppendNotification(b, method, params) }, false); err != nil {
		s.log.Debug("notification not sent", zap.String("method", method), zap.Error(err))
	}
}

// writeBody frames a body and queues it; now flushes everything queued.
func (s *stream) writeBody(appendBody func([]byte) []byte, now bool) (int64, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.body = appendBody(s.body[:0])
	s.pending = fmt.Appendf(s.pending, "Content-Length: %d\r\n\r\n", len(s.body))
	s.pending = append(s.pending, s.body...)
	n := int64(len(s.body))
	if cap(s.body) > 1<<20 {
		s.body = nil // let a huge body's buffer go
	}
	if now || len(s.pending) >= notifyBatchBytes {
		return n, s.flushLocked()
	}
	if s.timer == nil {
		s.timer = time.AfterFunc(notifyDelay, s.flush)
	} else if !s.timerSet {
		s.timer.Reset(notifyDelay)
	}
	s.timerSet = true
	return n, nil
}

func (s *stream) flush() {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.flushLocked(); err != nil {
		s.log.Debug("write failed", zap.Error(err))
	}
}

func (s *stream) flushLocked() error {
	if s.timerSet {
		s.timer.Stop()
		s.timerSet = false
	}
	if len(s.pending) == 0 {
		return nil
	}
	_, err := s.out.Write(s.pending)
	if cap(s.pending) > 1<<20 {
		s.pending = nil
	} else {
		s.pending = s.pending[:0]
	}
	return err
}

// Close implements jsonrpc2.Stream: it sends what is queued, then closes.
func (s *stream) Close() error {
	s.flush()
	if s.closer == nil {
		return nil
	}
	return s.closer()
}
