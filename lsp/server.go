// Package lsp is the backyard-ls language server: it keeps one stateful
// kernel per open Python document and runs the document's "# %%" cells, a
// selection or the whole file when an editor sends a workspace/executeCommand
// (from a code lens or a key). Results come back as the command's response,
// as custom notifications (backyard/output, backyard/executionState,
// backyard/kernelState), as code lenses, diagnostics and inlay hints.
//
// The wire contract (commands, the Execution shape, notifications) is in
// DESIGN.md; testdata/contract holds it as data-driven cases that the
// editor plugins replay (format in testdata/contract/README.md).
//
// One file per LSP feature, as gopls does: lifecycle.go,
// text_synchronization.go, code_lens.go, command.go and run.go
// (workspace/executeCommand), diagnostics.go, inlay_hint.go, progress.go,
// configuration.go, notify.go (custom notifications). Underneath: handler.go
// (the JSON-RPC handler chain), stream.go (LSP framing that survives a
// misbehaving client), json.go (reflection-free JSON for the run hot path),
// document.go (text, versions, UTF-16 positions), session.go (a document's
// kernel and FIFO queue), results.go (what each cell shows, tracked across
// edits), output.go (output batching), refresh.go, settings.go.
package lsp

import (
	"context"
	"errors"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/kernel"
)

// Options configure a server.
type Options struct {
	// Kernel is the default configuration of new kernels (backend, limits,
	// Monty binary), the server's flags; backyard.* settings override it.
	// OnState and Logger are set by the server.
	Kernel kernel.Config
	// ClientProcessID, when not 0, is the editor's process: the server
	// exits when it dies. When 0, initialize's processId is used.
	ClientProcessID int
	// Logger receives the server's log; nil logs nothing. It must not
	// write to the LSP output.
	Logger *zap.Logger
	// Version is reported in initialize's serverInfo.
	Version string
}

// Errors Serve returns for an unclean end.
var (
	// ErrExitWithoutShutdown: the client sent exit without shutdown first
	// (the process should exit with code 1, as LSP asks).
	ErrExitWithoutShutdown = errors.New("exit without shutdown")
	// ErrClientGone: the editor process died.
	ErrClientGone = errors.New("the client process is gone")
)

// server is one language server connection, made by Serve.
type server struct {
	opts   Options
	log    *zap.Logger
	conn   jsonrpc2.Conn
	stream *stream

	// ctx lives as long as the connection; cancelled on exit so
	// server-to-client calls in flight return.
	ctx    context.Context
	cancel context.CancelFunc

	docs     docs
	closing  sync.WaitGroup // documents whose kernels are closing
	calls    inflight       // calls being handled, for $/cancelRequest
	execSeq  atomic.Int64
	refresh  *refresher
	progress progressTokens

	mu        sync.Mutex // guards the fields below
	state     serverState
	caps      clientCaps
	settings  Settings
	workspace string // the workspace folder's path, for container mounts
	watching  bool   // a parent-process watcher runs

	exit     chan error // the reason Serve returns
	exitOnce sync.Once
}

type serverState int

const (
	stateUninitialized serverState = iota
	stateInitialized
	stateShutdown
)

// clientCaps are the client capabilities the server acts on.
type clientCaps struct {
	codeLensRefresh  bool // workspace.codeLens.refreshSupport
	inlayHintRefresh bool // workspace.inlayHint.refreshSupport
	workDoneProgress bool // window.workDoneProgress
}

// Serve runs a language server over in and out (the LSP base protocol:
// Content-Length framed JSON-RPC) until the client sends exit, in ends, ctx
// is cancelled or the client process dies. On return every kernel is
// closed: no backend process outlives it. It returns nil after a clean
// shutdown+exit or when the input ends, ErrExitWithoutShutdown or
// ErrClientGone otherwise. in and out are closed on return when they are
// io.Closers.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	log := opts.Logger
	if log == nil {
		log = zap.NewNop()
	}
	s := &server{opts: opts, log: log, exit: make(chan error, 1)}
	s.docs.m = map[string]*document{}
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	defer s.cancel()

	st := newStream(in, out, closeBoth(in, out), log)
	s.stream = st
	s.conn = jsonrpc2.NewConn(st, jsonrpc2.WithCodec(codec{}))
	s.refresh = newRefresher(s)
	s.conn.Go(s.ctx, s.handler())

	if opts.ClientProcessID > 0 {
		s.watchParent(opts.ClientProcessID)
	}

	var err error
	exited := false
	select {
	case err = <-s.exit:
		exited = true
	case <-st.ended:
		log.Info("input closed")
	case <-ctx.Done():
		log.Info("context done")
	}
	s.stop(exited)
	return err
}

// stop closes every kernel, then the connection. After exit nothing more
// is read, so it does not wait for the reader of an input the client keeps
// open (Neovim does).
func (s *server) stop(exited bool) {
	s.closeAll()
	s.cancel() // pending server-to-client calls return
	s.refresh.stop()
	done := make(chan struct{})
	go func() {
		_ = s.conn.Close()
		close(done)
	}()
	// Close waits for the reader, which a blocking read of stdin may hold
	// for ever; the process is about to exit then anyway.
	wait := 2 * time.Second
	if exited {
		wait = 0
	}
	select {
	case <-done:
	case <-time.After(wait):
		if !exited {
			s.log.Warn("connection did not close in time")
		}
	}
}

// closeAll closes every document's kernel, in parallel.
func (s *server) closeAll() {
	s.docs.mu.Lock()
	all := make([]*document, 0, len(s.docs.m))
	for _, d := range s.docs.m {
		all = append(all, d)
	}
	clear(s.docs.m)
	s.docs.mu.Unlock()
	var wg sync.WaitGroup
	for _, d := range all {
		wg.Go(func() {
			d.markClosed()
			d.sess.close()
		})
	}
	wg.Wait()
	s.closing.Wait()
}

// finish makes Serve return err (once).
func (s *server) finish(err error) {
	s.exitOnce.Do(func() { s.exit <- err })
}

func closeBoth(in io.Reader, out io.Writer) func() error {
	return func() error {
		var errs []error
		if c, ok := in.(io.Closer); ok {
			errs = append(errs, c.Close())
		}
		if c, ok := out.(io.Closer); ok && any(out) != any(in) {
			errs = append(errs, c.Close())
		}
		return errors.Join(errs...)
	}
}

func (s *server) nextExecutionID() string {
	return "e" + strconv.FormatInt(s.execSeq.Add(1), 10)
}

func (s *server) clientCaps() clientCaps {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// kernelConfig is the configuration of a new kernel of a document whose
// backend choice is backend ("" for the settings' one).
func (s *server) kernelConfig(backend string) kernel.Config {
	s.mu.Lock()
	set := s.settings
	ws := s.workspace
	s.mu.Unlock()
	cfg := kernelConfig(s.opts.Kernel, set, backend)
	cfg.Logger = s.log
	if cfg.Container.Workspace == "" {
		cfg.Container.Workspace = ws
	}
	return cfg
}
