package lsp

import (
	"context"
	"fmt"
	"io"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// Writes. Responses and server-to-client calls go out at once, together
// with the notifications queued before them; notifications alone wait up
// to notifyDelay (or until notifyBatchBytes are queued). A trivial cell's
// queued/running/busy/idle/done notifications and its response thus leave
// in one write, and the client wakes once instead of six times.
const (
	notifyDelay      = time.Millisecond
	notifyBatchBytes = 64 << 10
)

// coalescer is the write side: framed messages queue in pending and leave
// in one write.
type coalescer struct {
	out io.Writer
	log *zap.Logger

	wmu      sync.Mutex // guards the fields below
	body     []byte     // scratch: the body being framed
	pending  []byte     // framed messages not yet written
	timer    *time.Timer
	timerSet bool
}

// Write implements jsonrpc2.Stream (responses and calls).
func (s *coalescer) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return s.writeBody(func(b []byte) []byte { return jsonrpc2.AppendMessage(b, msg) }, true)
}

// WriteFrame writes an encoded JSON body as one frame.
func (s *coalescer) WriteFrame(ctx context.Context, data []byte) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	return s.writeBody(func(b []byte) []byte { return append(b, data...) }, true)
}

func (s *coalescer) write(msg jsonrpc2.Message) error {
	_, err := s.writeBody(func(b []byte) []byte { return jsonrpc2.AppendMessage(b, msg) }, true)
	return err
}

// notify queues a notification whose params are already encoded.
func (s *coalescer) notify(method string, params []byte) {
	if _, err := s.writeBody(func(b []byte) []byte { return jsonrpc2.AppendNotification(b, method, params) }, false); err != nil {
		s.log.Debug("notification not sent", zap.String("method", method), zap.Error(err))
	}
}

// writeBody frames a body and queues it; now flushes everything queued.
func (s *coalescer) writeBody(appendBody func([]byte) []byte, now bool) (int64, error) {
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

func (s *coalescer) flush() {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.flushLocked(); err != nil {
		s.log.Debug("write failed", zap.Error(err))
	}
}

func (s *coalescer) flushLocked() error {
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
