package lsp

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/notebook"
)

// JSON-RPC error codes LSP adds.
const (
	codeServerNotInitialized jsonrpc2.Code = -32002
	codeRequestFailed        jsonrpc2.Code = -32803
)

// policy says when a call is released from the read loop (jsonrpc2.Async),
// so that later messages are handled while it runs. Notifications are
// always ordered: didChange edits apply in order.
type policy int

const (
	// async: released before it starts.
	async policy = iota
	// ordered: runs on the read loop, in wire order with the messages
	// around it.
	ordered
	// orderedThenAsync: its ordered part runs on the read loop (a run takes
	// the document text current when it was asked for); it releases the
	// loop with release once that part is done.
	orderedThenAsync
)

// policies of the calls the server handles; other calls are async.
var policies = map[string]policy{
	protocol.MethodInitialize:              ordered,
	protocol.MethodWorkspaceExecuteCommand: orderedThenAsync,
}

// testHook, when set (tests only), runs before each message is handled.
var testHook func(method string)

// middleware wraps the typed handler with what every message goes
// through: panics are recovered (a call gets an InternalError, the
// connection stays), notification errors are logged, never returned
// (jsonrpc2 would close the connection), the lifecycle is enforced,
// $/cancelRequest cancels the call it names, and each call is released from
// the read loop by its policy.
func (s *server) middleware(next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (res any, err error) {
		method := strings.Clone(req.Method()) // borrowed from the read buffer
		isCall := req.IsCall()
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("panic handling message", zap.String("method", method), zap.Any("panic", p), zap.ByteString("stack", debug.Stack()))
				res, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error handling %s: %v", method, p)
			}
			if err != nil {
				if isCall {
					err = s.rpcError(method, err)
					s.log.Debug("request failed", zap.String("method", method), zap.Error(err))
				} else {
					s.log.Warn("notification failed", zap.String("method", method), zap.Error(err))
					res, err = nil, nil
				}
			}
		}()
		if testHook != nil {
			testHook(method)
		}
		if !isCall {
			if method == protocol.MethodCancelRequest {
				return nil, s.cancelRequest(req)
			}
			if err := s.admit(method, false); err != nil {
				return nil, err
			}
			return next(s.ctx, req)
		}
		if err := s.admit(method, true); err != nil {
			return nil, err
		}
		// The request context jsonrpc2 passes is pooled: once the handler
		// returns it is recycled, so nothing may derive a context from it.
		// Calls get a context of their own, cancelled by $/cancelRequest;
		// Async still finds the request through Value.
		id := req.ID()
		cctx, cancel := context.WithCancel(s.ctx)
		s.calls.add(id, cancel)
		c := &callContext{Context: cctx, req: ctx, s: s}
		defer func() {
			c.finish()
			s.calls.remove(id)
			cancel()
		}()
		switch policies[method] {
		case async:
			c.release()
		case ordered:
			c.released = true // never released: it runs inline
			fallthrough
		default:
			// On the read loop its notifications wait for its response
			// (or its release), with no write timer.
			c.holding = true
			s.stream.hold()
		}
		return next(c, req)
	}
}

// callContext is a call's context: cancellation from the server's own
// context, values (jsonrpc2's release token) from the request's.
type callContext struct {
	context.Context
	req context.Context
	s   *server

	// mu orders releases, which may come from other goroutines (the
	// watchdog, a server-to-client call), before the handler's return:
	// jsonrpc2 reads what its release wrote once the handler returns, and
	// recycles req.
	mu       sync.Mutex
	released bool // the read loop was released, or never held
	finished bool // the handler returned: nothing more to release
	holding  bool // on the read loop: notifications wait for its response
	kept     bool // kept on the read loop past its ordered part (keep)
	drains   bool // a run that drains its document's idle queue (set by the handler, before keep)
}

// callKey finds a call's callContext under values added to it.
type callKey struct{}

func (c *callContext) Value(key any) any {
	if _, ok := key.(callKey); ok {
		return c
	}
	if v := c.Context.Value(key); v != nil {
		return v
	}
	return c.req.Value(key)
}

// release frees the read loop (jsonrpc2.Async) unless that was done or the
// handler returned.
func (c *callContext) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released || c.finished {
		return
	}
	c.released = true
	c.unholdLocked(true)
	jsonrpc2.Async(c.req)
}

// finish runs when the handler returns: a hand-off can no longer happen,
// and notifications it held leave with its response, which jsonrpc2 writes
// next (or with the stream's last flush when the connection closes first).
func (c *callContext) finish() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.finished = true
	c.unholdLocked(false)
}

// keep makes the rest of an orderedThenAsync call run on the read loop:
// it ends at once (a trivial cell on an idle kernel), or the watchdog
// releases the loop after a tick or two, or a call to the client does
// (handOff), whichever comes first. Its notifications stay held meanwhile
// and leave in one write with its response.
func (c *callContext) keep() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.released || c.finished {
		return
	}
	c.kept = true
	c.s.watchdog.watch(c)
}

func (c *callContext) unholdLocked(noResponse bool) {
	if c.kept {
		c.kept = false
		c.s.watchdog.forget(c)
	}
	if c.holding {
		c.holding = false
		c.s.stream.unhold(noResponse)
	}
}

// handOffTick is the watchdog's period: a call kept on the read loop for
// one to two ticks is released, so cancellations, interrupts, edits and
// answers to the server's requests are read while it runs.
const handOffTick = time.Millisecond

// watchdog releases the call kept on the read loop once it has been kept
// at two ticks in a row. It has one timer, armed only while a call is kept:
// back-to-back short calls cost a timer expiry per tick, not a timer per
// call (a new earliest timer wakes another thread).
type watchdog struct {
	mu    sync.Mutex
	timer *time.Timer
	armed bool
	cur   *callContext // the call kept on the read loop
	seen  *callContext // cur at the last tick
}

func (w *watchdog) watch(c *callContext) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.cur = c
	if w.armed {
		return
	}
	w.armed = true
	if w.timer == nil {
		w.timer = time.AfterFunc(handOffTick, w.tick)
	} else {
		w.timer.Reset(handOffTick)
	}
}

func (w *watchdog) forget(c *callContext) {
	w.mu.Lock()
	if w.cur == c {
		w.cur = nil
	}
	w.mu.Unlock()
}

// kept is the call kept on the read loop, or nil.
func (w *watchdog) kept() *callContext {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cur
}

func (w *watchdog) tick() {
	w.mu.Lock()
	var late *callContext
	if w.cur != nil && w.cur == w.seen {
		late, w.cur = w.cur, nil
	}
	w.seen = w.cur
	if w.cur != nil {
		w.timer.Reset(handOffTick)
	} else {
		w.armed = false
	}
	w.mu.Unlock()
	if late != nil {
		late.release()
	}
}

// stop ends the timer (the connection is closing).
func (w *watchdog) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.timer != nil {
		w.timer.Stop()
	}
	w.cur, w.seen, w.armed = nil, nil, false
}

// release ends the ordered part of an orderedThenAsync call; later calls
// do nothing.
func release(ctx context.Context) {
	if c, ok := ctx.Value(callKey{}).(*callContext); ok {
		c.release()
	}
}

// handOff releases the read loop from the call that kept it, if any: the
// server is about to wait on the client.
func (s *server) handOff() {
	if c := s.watchdog.kept(); c != nil {
		c.release()
	}
}

// rpcError gives an error the JSON-RPC code a client acts on.
func (s *server) rpcError(method string, err error) error {
	var rpc *jsonrpc2.Error
	var arg *contract.ArgError
	switch {
	case errors.As(err, &rpc):
		return err
	case errors.As(err, &arg):
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, arg.Msg)
	case errors.Is(err, jsonrpc2.ErrParse):
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf("invalid %s params: %v", method, errors.Unwrap(err)))
	case errors.Is(err, context.Canceled):
		return protocol.ErrRequestCancelled
	case errors.Is(err, notebook.ErrNotOpen):
		return jsonrpc2.NewError(codeRequestFailed, "the document was closed")
	}
	return jsonrpc2.NewError(codeRequestFailed, err.Error())
}

// inflight maps the ids of calls being handled to their cancel functions.
type inflight struct {
	mu sync.Mutex
	m  map[jsonrpc2.ID]context.CancelFunc
}

func (f *inflight) add(id jsonrpc2.ID, cancel context.CancelFunc) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[jsonrpc2.ID]context.CancelFunc{}
	}
	f.m[id] = cancel
}

func (f *inflight) remove(id jsonrpc2.ID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.m, id)
}

// cancelRequest handles $/cancelRequest: the named call's context is
// cancelled (a run command then interrupts its executions); the call still
// answers.
func (s *server) cancelRequest(req *jsonrpc2.Request) error {
	var p protocol.CancelParams
	if err := protocol.Unmarshal(req.Params(), &p); err != nil {
		return err
	}
	var id jsonrpc2.ID
	switch v := p.ID.(type) {
	case protocol.Integer:
		id = jsonrpc2.NewNumberID(int64(v))
	case protocol.String:
		id = jsonrpc2.NewStringID(string(v))
	default:
		return fmt.Errorf("$/cancelRequest without an id")
	}
	s.calls.mu.Lock()
	cancel := s.calls.m[id]
	s.calls.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return nil
}

// admit enforces the lifecycle: nothing but initialize before it, nothing
// but exit after shutdown.
func (s *server) admit(method string, call bool) error {
	if method == protocol.MethodExit {
		return nil
	}
	s.mu.Lock()
	st := s.state
	s.mu.Unlock()
	switch {
	case st == stateUninitialized && method != protocol.MethodInitialize:
		if call {
			return jsonrpc2.NewError(codeServerNotInitialized, "the server is not initialized yet: send initialize first")
		}
		return errors.New("dropped before initialize")
	case st == stateShutdown:
		if call {
			return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shutting down")
		}
		return errors.New("dropped after shutdown")
	}
	return nil
}

// Request answers methods the server does not know: MethodNotFound for a
// call; a notification is ignored ($/setTrace, custom ones).
func (s *server) Request(ctx context.Context, method string, _ any) (any, error) {
	if _, ok := ctx.Value(callKey{}).(*callContext); ok {
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", method)
	}
	return nil, nil
}

// codec encodes params and results with the protocol package's codec; the
// contract's records encode themselves (generated, no reflection).
type codec struct{}

// Codec is the server connection's codec, for clients that must encode
// alike (the test client, package lsptest).
type Codec = codec

var _ jsonrpc2.Codec = codec{}

// Marshal implements jsonrpc2.Codec.
func (codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case nil:
		return []byte("null"), nil
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case jsontext.Value:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case contract.JSONAppender:
		return m.AppendJSON(make([]byte, 0, 256)), nil
	}
	return protocol.Marshal(v)
}

// Unmarshal implements jsonrpc2.Codec.
func (codec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append((*p)[:0], data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}
