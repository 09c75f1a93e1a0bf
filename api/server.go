// Package api is backyard-ls's API for programs: `backyard-ls api` serves
// the methods declared by contract.API (sandboxes that keep state between
// runs, batches of independent snippets) over JSON-RPC 2.0 on stdio, one
// message per line, on top of package sandbox. It is what the Python
// package backyard_ls (packaging/python) drives: one process serves all of
// a program's sandboxes and batches.
//
// Requests are handled concurrently: one that may wait (a run, an install,
// a batch's end) releases the connection's reader at once, so an interrupt
// or another sandbox's run is read while it waits; the runs of one sandbox
// take turns. What the server sends while a request waits (a run's output,
// a batch's results, progress, host function calls) is declared by
// contract.APIClient.
//
// The server ends when its input ends (the program exited or was killed:
// the pipe closes) or its context is done; it then closes every sandbox
// and batch, so no worker or container outlives the program.
package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/monty"
)

// Options configure Serve.
type Options struct {
	// Settings are the defaults of every sandbox and batch (the command
	// line's flags applied to the declared defaults); open and batch_open
	// override them.
	Settings contract.Settings
	// MaxRequestBytes bounds one request line: a run's code and inputs, a
	// batch_add's snippets (default contract.MaxRequestBytes).
	MaxRequestBytes int
	Version         string
	Logger          *zap.Logger
}

// server implements contract.API.
type server struct {
	opts   Options
	log    *zap.Logger
	st     *stream
	conn   jsonrpc2.Conn
	ctx    context.Context // ends when the server stops
	cancel context.CancelFunc
	keeper keeper

	mu      sync.Mutex
	boxes   map[string]*box
	batches map[string]*batch
	seq     int
	closed  bool
	work    sync.WaitGroup // running batches
}

var _ contract.API = (*server)(nil)

// Serve serves the API on in and out until in ends or ctx is done, then
// closes every sandbox and batch (their workers and containers) before it
// returns.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = contract.MaxRequestBytes
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &server{opts: opts, log: opts.Logger, ctx: ctx, cancel: cancel, boxes: map[string]*box{}, batches: map[string]*batch{}}
	s.st = newStream(in, out, opts.MaxRequestBytes, nil, s.log)
	s.conn = jsonrpc2.NewConn(s.st)
	s.conn.Go(ctx, s.handle)
	select {
	case <-s.st.ended:
		s.log.Info("the client closed its end: stopping")
	case <-ctx.Done():
	case <-s.conn.Done():
	}
	s.shutdown()
	s.keeper.stop()
	cancel()
	closed := make(chan error, 1)
	go func() { closed <- s.conn.Close() }()
	select {
	case err := <-closed:
		return err
	case <-time.After(5 * time.Second):
		// A reader blocked on an input that never ends (a terminal):
		// everything is closed, nothing is left to wait for.
		return nil
	}
}

// shutdown closes every batch and sandbox and waits until they are gone.
func (s *server) shutdown() {
	s.mu.Lock()
	s.closed = true
	boxes, batches := s.boxes, s.batches
	s.boxes, s.batches = map[string]*box{}, map[string]*batch{}
	s.mu.Unlock()
	for _, b := range batches {
		b.cancel()
	}
	var wg sync.WaitGroup
	for _, b := range boxes {
		wg.Go(b.close)
	}
	wg.Wait()
	s.work.Wait()
}

// waits are the methods that may take long: they release the read loop at
// once. A run starts on it (see keeper).
var waits = map[string]bool{
	contract.APIReset: true, contract.APIInfo: true, contract.APIVariables: true,
	contract.APIInstall: true, contract.APIFiles: true, contract.APISaveFiles: true, contract.APIClose: true,
	contract.APIBatchOpen: true, contract.APIBatchEnd: true, contract.APIBatchCancel: true,
}

// keptKey finds the kept call in a run's context.
type keptKey struct{}

// handle is the connection's handler: the generated dispatch, with results
// that encode themselves sent as they are and errors given their kind. The
// methods get the server's context: jsonrpc2's request context is
// recycled once the handler returns, so nothing may outlive it.
func (s *server) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	mctx := s.ctx
	method, params, isCall := req.Method(), jsontext.Value(req.Params()), req.IsCall()
	switch {
	case method == contract.APIRun && isCall:
		// The request is not touched once it may be released: its bytes
		// borrow the read buffer, which the next read reuses.
		method, params = contract.APIRun, bytes.Clone(params)
		c := s.keeper.keep(ctx)
		defer s.keeper.finish(c)
		mctx = context.WithValue(s.ctx, keptKey{}, c)
	case waits[method]:
		jsonrpc2.Async(ctx)
		method, params = req.Method(), jsontext.Value(req.Params()) // owned copies now
	}
	res, err := contract.DispatchAPI(mctx, s, method, params)
	if err != nil {
		if !isCall {
			s.log.Warn("notification failed", zap.String("method", method), zap.Error(err))
			return nil, nil // a failed notification must not end the connection
		}
		return nil, s.rpcError(method, err)
	}
	if a, ok := res.(contract.JSONAppender); ok {
		return jsonrpc2.RawMessage(a.AppendJSON(make([]byte, 0, 512))), nil
	}
	return res, nil
}

// apiError is an error with the kind the client is told.
type apiError struct {
	kind contract.APIErrorKind
	err  error
}

func (e *apiError) Error() string { return e.err.Error() }
func (e *apiError) Unwrap() error { return e.err }

func errorf(kind contract.APIErrorKind, format string, args ...any) error {
	return &apiError{kind: kind, err: fmt.Errorf(format, args...)}
}

func errorData(kind contract.APIErrorKind) jsonrpc2.RawMessage {
	b, _ := json.Marshal(contract.APIErrorData{Kind: kind})
	return b
}

// rpcError is the JSON-RPC error of a failed method.
func (s *server) rpcError(method string, err error) error {
	kind := contract.APIInternal
	code := jsonrpc2.InternalError
	var ae *apiError
	var arg *contract.ArgError
	switch {
	case errors.As(err, &arg):
		kind, code = contract.APIBadArgument, jsonrpc2.InvalidParams
	case errors.As(err, &ae):
		kind = ae.kind
		if kind == contract.APIBadArgument {
			code = jsonrpc2.InvalidParams
		}
	case errors.Is(err, monty.ErrNotFound):
		kind = contract.APIBackendUnavailable
	case errors.Is(err, kernel.ErrLimitFixed):
		kind, code = contract.APIBadArgument, jsonrpc2.InvalidParams
	case errors.Is(err, kernel.ErrClosed):
		kind = contract.APIClosed
	}
	if kind == contract.APIInternal {
		s.log.Warn("request failed", zap.String("method", method), zap.Error(err))
	}
	return &jsonrpc2.Error{Code: code, Message: err.Error(), Data: errorData(kind)}
}

// newID returns a new sandbox or batch id: prefix and a number.
func (s *server) newID(prefix string) string {
	s.seq++
	return fmt.Sprintf("%s%d", prefix, s.seq)
}

// notify sends a notification whose params encode themselves.
func (s *server) notify(method string, params contract.JSONAppender) {
	if err := s.st.notify(method, params.AppendJSON(make([]byte, 0, 256))); err != nil {
		s.log.Debug("notification not sent", zap.String("method", method), zap.Error(err))
	}
}

// Hello implements contract.API.
func (s *server) Hello(_ context.Context, a *contract.HelloArgs) (*contract.HelloResult, error) {
	if a.Client != "" {
		s.log.Info("client", zap.String("client", a.Client))
	}
	path, _ := monty.Find(s.opts.Settings.MontyPath)
	return &contract.HelloResult{Version: s.opts.Version, MaxRequestBytes: s.opts.MaxRequestBytes, Monty: path}, nil
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
