package lsp

import (
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/notebook"
)

// Options configure a server.
type Options struct {
	// Flags are the server's own settings (its command-line flags): the
	// defaults below what clients set.
	Flags contract.Overrides
	// ClientProcessID, when not 0, is the editor's process: the server
	// exits when it dies. When 0, initialize's processId is used.
	ClientProcessID int
	// Logger receives the server's log; nil logs nothing. It must not
	// write to the LSP output.
	Logger *zap.Logger
	// Version is reported in initialize's serverInfo.
	Version string
	// NewKernel creates kernels (tests; default kernels.New).
	NewKernel func(kernel.Config) (kernel.Kernel, error)
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
	protocol.UnimplementedServer

	opts   Options
	log    *zap.Logger
	conn   jsonrpc2.Conn
	stream *stream
	client *client
	nb     *notebook.Notebook

	// ctx lives as long as the connection; cancelled on exit so
	// server-to-client calls in flight return.
	ctx    context.Context
	cancel context.CancelFunc

	calls    inflight // calls being handled, for $/cancelRequest
	watchdog watchdog // releases the read loop from a call kept on it too long
	refresh  *refresher
	progress progressTokens
	running  sync.Map       // execution id → *time.Timer of its "running…" lens
	pulls    pending        // workspace/configuration requests in flight
	edits    sync.WaitGroup // workspace/applyEdit and window/showDocument requests in flight

	mu        sync.Mutex // guards the fields below
	state     serverState
	caps      clientCaps
	overrides contract.Overrides // what the client set
	folders   []string           // the workspace folders' paths: what kernels see
	watching  bool               // a parent-process watcher runs
	warned    map[string]bool    // workspace warnings given

	exit     chan error // the reason Serve returns
	exitOnce sync.Once
}

type serverState int

const (
	stateUninitialized serverState = iota
	stateInitialized
	stateShutdown
)

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
	s.ctx, s.cancel = context.WithCancel(context.WithoutCancel(ctx))
	defer s.cancel()

	s.stream = newStream(in, out, closeBoth(in, out), log)
	s.conn = handOffConn{jsonrpc2.NewConn(s.stream, jsonrpc2.WithCodec(codec{})), s}
	s.client = newClient(s.conn, s.stream.coalescer, log)
	s.refresh = newRefresher(s)
	s.nb = notebook.New(notebook.Options{Config: s.kernelConfig, Settle: s.settle, NewKernel: opts.NewKernel, Events: events{s}, Logger: log})
	s.conn.Go(s.ctx, s.middleware(protocol.ServerHandler(s, nil)))

	if opts.ClientProcessID > 0 {
		s.watchParent(opts.ClientProcessID)
	}

	var err error
	exited := false
	select {
	case err = <-s.exit:
		exited = true
	case <-s.stream.ended:
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
	s.nb.CloseAll()
	s.cancel() // pending server-to-client calls return
	s.refresh.stop()
	s.edits.Wait()
	s.watchdog.stop()
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

// finish makes Serve return err (once).
func (s *server) finish(err error) {
	s.exitOnce.Do(func() { s.exit <- err })
}

// handOffConn is the connection: a call to the client first releases the
// read loop from a call kept on it, which could not read the answer.
type handOffConn struct {
	jsonrpc2.Conn
	s *server
}

func (c handOffConn) Call(ctx context.Context, method string, params, result any) (jsonrpc2.ID, error) {
	c.s.handOff()
	return c.Conn.Call(ctx, method, params, result)
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

func (s *server) clientCaps() clientCaps {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// settings are the effective settings: the declared defaults, then the
// server's flags, then what the client set.
func (s *server) settings() contract.Settings {
	s.mu.Lock()
	o := s.overrides
	s.mu.Unlock()
	return o.Apply(s.opts.Flags.Apply(contract.DefaultSettings()))
}

// kernelConfig is the configuration of a new kernel of document uri: it
// sees the workspace folders (the broad ones only when files.broadWorkspace
// says so) and runs in the document's folder.
func (s *server) kernelConfig(docURI string) kernel.Config {
	settings := s.settings()
	s.mu.Lock()
	folders, warnings := notebook.NarrowFolders(s.folders, settings.Files.BroadWorkspace)
	var fresh []string
	for _, w := range warnings {
		if !s.warned[w] {
			if s.warned == nil {
				s.warned = map[string]bool{}
			}
			s.warned[w] = true
			fresh = append(fresh, w)
		}
	}
	s.mu.Unlock()
	for _, w := range fresh {
		s.log.Warn("workspace", zap.String("warning", w))
		s.showMessage(protocol.MessageTypeWarning, "backyard: %s", w)
	}
	dir, roots := notebook.FileScope(docURI, folders)
	return kernel.Config{Settings: settings, Roots: roots, Dir: dir, Logger: s.log}
}
