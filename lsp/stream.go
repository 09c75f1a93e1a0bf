package lsp

import (
	"bufio"
	"io"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// stream is the connection's jsonrpc2.Stream: the tolerant framer reads,
// the coalescer writes.
type stream struct {
	*framer
	*coalescer
	closer func() error
}

var _ jsonrpc2.Stream = (*stream)(nil)

func newStream(in io.Reader, out io.Writer, closer func() error, log *zap.Logger) *stream {
	w := &coalescer{out: out, log: log}
	r := &framer{in: bufio.NewReaderSize(in, 64<<10), log: log, answer: w.write, ended: make(chan struct{})}
	return &stream{framer: r, coalescer: w, closer: closer}
}

// Close implements jsonrpc2.Stream: it sends what is queued, then closes.
func (s *stream) Close() error {
	s.flush()
	if s.closer == nil {
		return nil
	}
	return s.closer()
}
