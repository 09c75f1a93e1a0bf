package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/internal/bounded"
)

// stream is the connection's jsonrpc2.Stream: one JSON-RPC message per
// line each way. Reading survives a misbehaving client instead of closing
// the connection as jsonrpc2's own stream does: a line over max bytes is
// read past without being held (bounded.Lines) and answered with a
// too_large error carrying its id, a line that is not a JSON-RPC message
// with a parse error (id null).
type stream struct {
	lines *bounded.Lines
	max   int
	log   *zap.Logger

	wmu  sync.Mutex
	out  io.Writer
	wbuf []byte

	// ended is closed when the input ends or fails: the client is gone.
	ended   chan struct{}
	endOnce sync.Once
	closer  func() error
}

var _ jsonrpc2.Stream = (*stream)(nil)

func newStream(in io.Reader, out io.Writer, max int, closer func() error, log *zap.Logger) *stream {
	return &stream{lines: bounded.NewLines(in, max), max: max, log: log, out: out, ended: make(chan struct{}), closer: closer}
}

// ReadFrame returns the next well-formed message. It answers and skips
// malformed and oversized ones; it returns an error only when the input
// ends or fails (ended is closed then). The body is valid until the next
// read.
func (s *stream) ReadFrame(ctx context.Context) ([]byte, int64, error) {
	for ctx.Err() == nil {
		line, over, err := s.lines.Next()
		if over != nil {
			s.log.Warn("skipping a request over the size limit", zap.Int64("bytes", over.Bytes), zap.Int("limit", s.max))
			s.answer(idOf(over.ID), &jsonrpc2.Error{Code: jsonrpc2.InvalidRequest,
				Message: fmt.Sprintf("the request is %d bytes, over the %d this server reads (max_request_bytes); nothing of it was done", over.Bytes, s.max),
				Data:    errorData(contract.APITooLarge)})
		}
		switch {
		case err != nil:
			s.endOnce.Do(func() { close(s.ended) })
			return nil, 0, err
		case over != nil, len(bytes.TrimSpace(line)) == 0:
		case bytes.HasPrefix(bytes.TrimSpace(line), []byte("[")):
			s.answer(jsonrpc2.ID{}, &jsonrpc2.Error{Code: jsonrpc2.InvalidRequest, Message: "batch requests (JSON arrays) are not supported: send one message per line", Data: errorData(contract.APIBadArgument)})
		default:
			if _, err := jsonrpc2.DecodeMessage(line); err != nil {
				var e *jsonrpc2.Error
				if !errors.As(err, &e) {
					e = jsonrpc2.NewError(jsonrpc2.ParseError, err.Error())
				}
				s.log.Warn("skipping a malformed message", zap.Int("bytes", len(line)), zap.String("error", e.Message))
				s.answer(jsonrpc2.ID{}, &jsonrpc2.Error{Code: e.Code, Message: e.Message, Data: errorData(contract.APIBadArgument)})
				continue
			}
			return line, int64(len(line) + 1), nil
		}
	}
	s.endOnce.Do(func() { close(s.ended) })
	return nil, 0, ctx.Err()
}

// idOf is the JSON-RPC id of a raw JSON id (a number or a string); the
// zero ID (null) for anything else.
func idOf(raw []byte) jsonrpc2.ID {
	v := jsontext.Value(raw)
	switch v.Kind() {
	case '0':
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil {
			return jsonrpc2.NewNumberID(n)
		}
	case '"':
		var id string
		if jsonUnmarshal(v, &id) == nil {
			return jsonrpc2.NewStringID(id)
		}
	}
	return jsonrpc2.ID{}
}

// answer writes an error response (the framer's own answers).
func (s *stream) answer(id jsonrpc2.ID, e *jsonrpc2.Error) {
	if _, err := s.writeBody(func(b []byte) []byte { return jsonrpc2.AppendResponse(b, id, nil, e) }); err != nil {
		s.log.Debug("answer not sent", zap.Error(err))
	}
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

// Write implements jsonrpc2.Stream (responses and calls).
func (s *stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return s.writeBody(func(b []byte) []byte { return jsonrpc2.AppendMessage(b, msg) })
}

// WriteFrame writes an encoded message as one line.
func (s *stream) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return s.writeBody(func(b []byte) []byte { return append(b, data...) })
}

// notify writes a notification whose params are already encoded.
func (s *stream) notify(method string, params []byte) error {
	_, err := s.writeBody(func(b []byte) []byte { return jsonrpc2.AppendNotification(b, method, params) })
	return err
}

// writeBody writes one message and its newline with one write.
func (s *stream) writeBody(appendBody func([]byte) []byte) (int64, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.wbuf = append(appendBody(s.wbuf[:0]), '\n')
	n, err := s.out.Write(s.wbuf)
	if cap(s.wbuf) > 1<<20 {
		s.wbuf = nil // let a huge message's buffer go
	}
	return int64(n), err
}

// Close implements jsonrpc2.Stream.
func (s *stream) Close() error {
	if s.closer == nil {
		return nil
	}
	return s.closer()
}
