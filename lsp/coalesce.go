package lsp

import (
	"context"
	"io"
	"strconv"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// Writes. Responses and server-to-client calls go out at once, together
// with the notifications queued before them; notifications alone wait up
// to notifyDelay (or until notifyBatchBytes are queued), or, while a call
// kept on the read loop holds them (callContext.keep), for its response or
// its hand-off, with no timer. A trivial cell's queued/running/busy/idle/done
// notifications and its response thus leave in one write, and the client
// wakes once instead of six times.
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
	holds    int // calls whose response is due soon carry the notifications: no timer
}

// hold makes notifications wait for the next response or call, with no
// timer, until unhold: a call on the read loop answers, or releases the
// loop, within handOffDelay.
func (s *coalescer) hold() {
	s.wmu.Lock()
	s.holds++
	s.wmu.Unlock()
}

// unhold ends a hold. Without a response to follow (the call was released
// to finish later), what is queued waits notifyDelay as usual; with one,
// the response, written next, takes it along.
func (s *coalescer) unhold(noResponse bool) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	s.holds--
	if noResponse && s.holds == 0 && len(s.pending) > 0 {
		s.armLocked()
	}
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
	s.pending = append(s.pending, "Content-Length: "...)
	s.pending = strconv.AppendInt(s.pending, int64(len(s.body)), 10)
	s.pending = append(s.pending, "\r\n\r\n"...)
	s.pending = append(s.pending, s.body...)
	n := int64(len(s.body))
	if cap(s.body) > 1<<20 {
		s.body = nil // let a huge body's buffer go
	}
	if now || len(s.pending) >= notifyBatchBytes {
		return n, s.flushLocked()
	}
	if s.holds == 0 {
		s.armLocked()
	}
	return n, nil
}

// armLocked makes what is queued leave within notifyDelay.
func (s *coalescer) armLocked() {
	if s.timer == nil {
		s.timer = time.AfterFunc(notifyDelay, s.flush)
	} else if !s.timerSet {
		s.timer.Reset(notifyDelay)
	}
	s.timerSet = true
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
