package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/httpapi"
	"github.com/backyard-ls/backyard-ls/internal/webguard"
	"github.com/backyard-ls/backyard-ls/sandbox"
)

// tokenEnv names the environment variable that may hold the bearer token
// (so that it shows in no process list).
const tokenEnv = "BACKYARD_LS_TOKEN"

// runHTTP serves the HTTP API (package httpapi) until SIGTERM or Ctrl+C,
// then shuts down gracefully.
func runHTTP(args []string) int {
	fs := flag.NewFlagSet("http", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:8080", "address to listen on (host:port; a bare :port listens on 127.0.0.1); beyond loopback a bearer token is required")
	tokenFile := fs.String("token-file", "", "file holding the bearer token every request must carry (or set "+tokenEnv+")")
	hosts := fs.String("allow-host", "", "on loopback: comma-separated Host header values served besides loopback names (e.g. the name a proxy forwards)")
	origins := fs.String("allow-origin", "", "comma-separated browser origins (scheme://host:port) served besides this machine's pages")
	parallel := fs.Int("parallel", runtime.NumCPU(), "snippets running at once: Monty workers, and fork-server containers for the snippets that need one")
	hashSeed := fs.String("hash-seed", "0", "PYTHONHASHSEED of the programs that run in a container (0 to 4294967295, or random), as batch's")
	preload := fs.String("preload", "", "comma-separated modules each fork server imports before any snippet (it also learns what snippets keep importing)")
	maxRunning := fs.Int("max-running", httpapi.DefaultMaxRunning, "run requests served at once")
	maxQueued := fs.Int("max-queued", httpapi.DefaultMaxQueued, "run requests waiting for a slot (0: none); past them a request gets 429")
	maxBody := fs.Int64("max-body-bytes", httpapi.DefaultMaxBodyBytes, "the largest request body; a larger one gets 413")
	maxTimeout := fs.Duration("max-timeout", httpapi.DefaultMaxTimeout, "the longest run_timeout or total_timeout a request gets")
	maxSessions := fs.Int("max-sessions", httpapi.DefaultMaxSessions, "stateful sessions open at once")
	idle := fs.Duration("idle-timeout", httpapi.DefaultIdleTimeout, "close a session that ran nothing for this long")
	grace := fs.Duration("shutdown-timeout", 25*time.Second, "on SIGTERM, how long runs in progress may finish before they are stopped")
	settings := contract.BindFlags(fs, batchFlags...)
	logFile := fs.String("log-file", "", "write logs to this file instead of stderr")
	logLevel := fs.String("log-level", "warn", "log level: debug, info, warn, error")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: backyard-ls http [--listen HOST:PORT] [flags]

Serves SandboxFusion's POST /run_code and /run_jupyter (its sandbox-fusion
client and verl's sandbox_fusion reward work by changing only the URL) and
stateful sessions (POST /sessions, /sessions/ID/run, /sessions/ID/reset,
DELETE /sessions/ID), with /healthz and Prometheus /metrics. See
docs/http.md. SIGTERM lets runs in progress finish, then stops them and
removes every container.
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return parseStatus(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "backyard-ls http: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintln(os.Stderr, "backyard-ls http:", err)
		return 2
	}
	flags, err := settings()
	if err != nil {
		return fail(err)
	}
	if err := sandbox.CheckHashSeed(*hashSeed); err != nil {
		return fail(fmt.Errorf("--hash-seed: %w", err))
	}
	host, port, err := net.SplitHostPort(*listen)
	if err != nil {
		return fail(fmt.Errorf("--listen: %w", err))
	}
	if host == "" {
		host = "127.0.0.1"
	}
	token := strings.TrimSpace(os.Getenv(tokenEnv))
	if *tokenFile != "" {
		data, err := os.ReadFile(*tokenFile)
		if err != nil {
			return fail(fmt.Errorf("--token-file: %w", err))
		}
		token = strings.TrimSpace(string(data))
	}
	loopback := webguard.Loopback(host)
	if !loopback && token == "" {
		return fail(fmt.Errorf("listening on %s lets anyone who reaches it run code: give a bearer token with --token-file or %s (or listen on 127.0.0.1)", host, tokenEnv))
	}
	log, err := newLogger(*logFile, *logLevel)
	if err != nil {
		return fail(err)
	}
	defer log.Sync()
	keepOnBrokenPipe()
	go reapOrphans(log)
	defer removeOwnContainers(log)
	// Requests make garbage at a steady rate and keep little: collect less
	// often (as batch does).
	debug.SetGCPercent(400)
	if *maxQueued == 0 {
		*maxQueued = -1 // none, where Options' zero is the default
	}
	srv, err := httpapi.New(httpapi.Options{
		Settings: flags.Apply(contract.DefaultSettings()), Parallel: *parallel, Preload: splitList(*preload), HashSeed: *hashSeed,
		MaxRunning: *maxRunning, MaxQueued: *maxQueued, MaxBodyBytes: *maxBody, MaxTimeout: *maxTimeout,
		MaxSessions: *maxSessions, IdleTimeout: *idle, Token: token, Loopback: loopback, AllowHosts: splitList(*hosts), AllowOrigins: splitList(*origins),
		PodName: os.Getenv("MY_POD_NAME"), Logger: log,
	})
	if err != nil {
		return fail(err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		srv.Shutdown(context.Background())
		fmt.Fprintln(os.Stderr, "backyard-ls http:", err)
		return 1
	}
	// The address, for a harness that asked for port 0.
	fmt.Fprintf(os.Stderr, "backyard-ls http: serving on http://%s\n", ln.Addr())
	hs := &http.Server{Handler: srv.Handler(), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	served := make(chan error, 1)
	go func() { served <- hs.Serve(ln) }()

	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	code := 0
	select {
	case sig := <-sigs:
		log.Info("shutting down", zap.String("signal", sig.String()))
	case err := <-served:
		log.Error("serving stopped", zap.Error(err))
		code = 1
	}
	go func() {
		if _, ok := <-sigs; ok {
			fmt.Fprintln(os.Stderr, "backyard-ls http: stopped without cleaning up")
			os.Exit(130)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), *grace)
	defer cancel()
	closed := make(chan struct{})
	go func() {
		defer close(closed)
		if err := hs.Shutdown(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
			log.Warn("http shutdown", zap.Error(err))
		}
	}()
	srv.Shutdown(ctx) // runs finish or are stopped; sessions and lanes close
	// Their answers are written; connections still open are closed.
	wait, stop := context.WithTimeout(context.Background(), 2*time.Second)
	defer stop()
	select {
	case <-closed:
	case <-wait.Done():
	}
	_ = hs.Close()
	return code
}
