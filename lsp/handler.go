package lsp

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// JSON-RPC error codes LSP adds.
const (
	codeServerNotInitialized jsonrpc2.Code = -32002
	codeRequestFailed        jsonrpc2.Code = -32803
)

// handlerFunc handles one method. For a notification the result is
// ignored and an error is only logged.
type handlerFunc func(ctx context.Context, req *jsonrpc2.Request) (any, error)

// route is one method the server handles.
type route struct {
	h handlerFunc
	// inline calls run on the read loop, in wire order with the
	// notifications around them, and release it themselves (with
	// jsonrpc2.Async) once they hold what they need; other calls are
	// released before they start. Notifications always run inline, so
	// didChange edits apply in order.
	inline bool
}

// testHook, when set (tests only), runs before each message is handled.
var testHook func(method string)

// handler wires the JSON-RPC chain: panics are recovered (a call gets an
// InternalError, the connection stays), notification errors are logged,
// never returned (jsonrpc2 would close the connection), $/cancelRequest
// cancels the context of the call it names, and every call is released
// from the read loop so a long run never blocks a code lens or an
// interrupt.
func (s *server) handler() jsonrpc2.Handler {
	routes := s.routes()
	dispatch := func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		method := req.Method()
		if testHook != nil {
			testHook(method)
		}
		r, ok := routes[method]
		if !ok {
			if req.IsCall() {
				return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", method)
			}
			return nil, nil // unknown notifications ($/setTrace, custom ones) are ignored
		}
		if err := s.admit(method, req.IsCall()); err != nil {
			return nil, err
		}
		if req.IsCall() && !r.inline {
			jsonrpc2.Async(ctx)
		}
		return r.h(ctx, req)
	}
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
					s.log.Debug("request failed", zap.String("method", method), zap.Error(err))
				} else {
					s.log.Warn("notification failed", zap.String("method", method), zap.Error(err))
					res, err = nil, nil
				}
			}
		}()
		if !isCall {
			if method == "$/cancelRequest" {
				return nil, s.cancelRequest(req)
			}
			return dispatch(s.ctx, req)
		}
		// The request context jsonrpc2 passes is pooled: once the handler
		// returns it is recycled, so nothing may derive a context from it
		// (context.WithCancel would watch it from a goroutine). Calls get
		// a context of their own, cancelled by $/cancelRequest; Async
		// still finds the request through Value.
		id := req.ID()
		cctx, cancel := context.WithCancel(s.ctx)
		s.calls.add(id, cancel)
		defer func() {
			s.calls.remove(id)
			cancel()
		}()
		return dispatch(callContext{Context: cctx, req: ctx}, req)
	}
}

// callContext is a call's context: cancellation from the server's own
// context, values (jsonrpc2's release token) from the request's.
type callContext struct {
	context.Context
	req context.Context
}

func (c callContext) Value(key any) any {
	if v := c.Context.Value(key); v != nil {
		return v
	}
	return c.req.Value(key)
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
	if err := decode(req, &p); err != nil {
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
	if method == "exit" {
		return nil
	}
	s.mu.Lock()
	st := s.state
	s.mu.Unlock()
	switch {
	case st == stateUninitialized && method != "initialize":
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

func (s *server) routes() map[string]route {
	return map[string]route{
		"initialize":                       {h: s.initialize, inline: true},
		"initialized":                      {h: s.initialized},
		"shutdown":                         {h: s.shutdown},
		"exit":                             {h: s.exitNotification},
		"textDocument/didOpen":             {h: s.didOpen},
		"textDocument/didChange":           {h: s.didChange},
		"textDocument/didClose":            {h: s.didClose},
		"textDocument/didSave":             {h: ignore},
		"textDocument/codeLens":            {h: s.codeLens},
		"textDocument/inlayHint":           {h: s.inlayHint},
		"workspace/executeCommand":         {h: s.executeCommand, inline: true},
		"workspace/didChangeConfiguration": {h: s.didChangeConfiguration},
		"window/workDoneProgress/cancel":   {h: s.workDoneProgressCancel},
	}
}

func ignore(context.Context, *jsonrpc2.Request) (any, error) { return nil, nil }

// decode unmarshals params into v; a failure is InvalidParams.
func decode(req *jsonrpc2.Request, v any) error {
	params := req.Params()
	if len(params) == 0 {
		params = []byte("null")
	}
	if err := protocol.Unmarshal(params, v); err != nil {
		return jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid %s params: %v", req.Method(), err)
	}
	return nil
}

// invalidParams is an InvalidParams error with a message for a person.
func invalidParams(format string, args ...any) error {
	return jsonrpc2.NewError(jsonrpc2.InvalidParams, fmt.Sprintf(format, args...))
}
