package lsp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/internal/bounded"
)

// framer reads the LSP base-protocol framing ("Content-Length: n\r\n\r\n" + JSON)
// over stdio, made to survive a misbehaving peer instead of closing the
// connection as jsonrpc2's own header stream does:
//   - a body that is not JSON, or not a JSON-RPC message, is answered with a
//     ParseError/InvalidRequest response (id null) and skipped;
//   - a body over contract.MaxLSPMessageBytes is read past without being
//     held and skipped: a request gets an InvalidRequest response with its
//     id, a notification a window/showMessage;
//   - a header block that cannot be parsed (garbage, a wrong Content-Length
//     that left the reader mid-body) is skipped up to the next
//     "Content-Length:" field.
//
// Its ReadFrame lets jsonrpc2.Conn take its zero-copy path.
type framer struct {
	in  *bufio.Reader
	log *zap.Logger
	// answer sends the reply to a malformed message.
	answer func(jsonrpc2.Message) error

	rbuf    bytes.Buffer // body of the last frame; valid until the next read
	lineBuf []byte       // an overlong header line

	// ended is closed when the input ends or fails: the connection lives on
	// until in-flight calls drain, but the client is gone.
	ended   chan struct{}
	endOnce sync.Once
}

// ReadFrame returns the body of the next well-formed JSON-RPC message. It
// answers and skips malformed ones; it returns an error only when the input
// ends or fails.
func (s *framer) ReadFrame(ctx context.Context) (body []byte, n int64, err error) {
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
		if n > contract.MaxLSPMessageBytes {
			if err := s.refuse(n); err != nil {
				return nil, 0, err
			}
			continue
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
			_ = s.answer(jsonrpc2.NewResponse(jsonrpc2.ID{}, nil, rpcErr))
			continue
		}
		return body, int64(hdr + n), nil
	}
}

// refuse reads past a body of n bytes over the limit and answers it.
func (s *framer) refuse(n int) error {
	h, err := bounded.Scan(io.LimitReader(s.in, int64(n)))
	if err != nil {
		return err
	}
	if h.Bytes < int64(n) {
		return io.ErrUnexpectedEOF // the input ended inside the body
	}
	msg := fmt.Sprintf("a message of %d bytes is over the server's limit of %d bytes: it was skipped", n, contract.MaxLSPMessageBytes)
	s.log.Warn("skipping a message over the limit", zap.Int("bytes", n), zap.String("method", h.Method))
	if id, ok := rpcID(h.ID); ok {
		return s.answer(jsonrpc2.NewResponse(id, nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, msg)))
	}
	if h.Method != "" {
		params, err := json.Marshal(&protocol.ShowMessageParams{Type: protocol.MessageTypeError, Message: "backyard-ls: " + h.Method + ": " + msg})
		if err == nil {
			return s.answer(jsonrpc2.NewNotification(protocol.MethodWindowShowMessage, params))
		}
	}
	return nil
}

// rpcID reads a request id (a string or a number that fits).
func rpcID(raw []byte) (jsonrpc2.ID, bool) {
	if len(raw) == 0 {
		return jsonrpc2.ID{}, false
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return jsonrpc2.ID{}, false
	}
	switch x := v.(type) {
	case string:
		return jsonrpc2.NewStringID(x), true
	case float64:
		if x == float64(int64(x)) {
			return jsonrpc2.NewNumberID(int64(x)), true
		}
	}
	return jsonrpc2.ID{}, false
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
func (s *framer) readHeader() (length, size int, err error) {
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
			if err != nil || n <= 0 {
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
func (s *framer) readLine() ([]byte, error) {
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
func (s *framer) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	body, n, err := s.ReadFrame(ctx)
	if err != nil {
		return nil, 0, err
	}
	msg, err := jsonrpc2.DecodeMessage(bytes.Clone(body))
	return msg, n, err
}
