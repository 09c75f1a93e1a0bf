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
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/mcp"
	"github.com/backyard-ls/backyard-ls/notebook"
)

// runMCP serves the MCP tools on stdio, or on streamable HTTP with --http.
// It takes run's flags; logs never go to stdout (stdio carries the
// protocol).
func runMCP(args []string) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	httpAddr := fs.String("http", "", "serve streamable HTTP on this address (host:port; a bare :port listens on 127.0.0.1) instead of stdio")
	workspace := fs.String("workspace", "", "the project folder the kernels see, read-only: writes stay in the kernel (default: the current directory, unless it is / or the home folder, which only this flag shows: then none)")
	maxSessions := fs.Int("max-sessions", mcp.DefaultMaxSessions, "the most sessions (kernels) kept at once")
	idle := fs.Duration("idle-timeout", mcp.DefaultIdleTimeout, "close a session that ran nothing for this long")
	allowHosts := fs.String("allow-host", "", "with --http: comma-separated Host header values served besides loopback names (e.g. the name a proxy forwards)")
	allowOrigins := fs.String("allow-origin", "", "with --http: comma-separated browser origins (scheme://host:port) served besides loopback ones")
	settings := contract.BindFlags(fs, runFlags...)
	logFile := fs.String("log-file", "", "write logs to this file instead of stderr")
	logLevel := fs.String("log-level", "warn", "log level: debug, info, warn, error")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: backyard-ls mcp [--http HOST:PORT] [flags]\n\nServes the run_python, reset_session, list_variables and install_packages tools\nto an AI agent over the Model Context Protocol: stdio by default.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return parseStatus(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "backyard-ls mcp: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	flags, err := settings()
	if err != nil {
		fmt.Fprintln(os.Stderr, "backyard-ls mcp:", err)
		return 2
	}
	ws := *workspace
	if ws == "" {
		ws, _ = os.Getwd()
	}
	if ws, err = filepath.Abs(ws); err == nil {
		var st os.FileInfo
		if st, err = os.Stat(ws); err == nil && !st.IsDir() {
			err = fmt.Errorf("%s is not a directory", ws)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "backyard-ls mcp: --workspace:", err)
		return 2
	}
	log, err := newLogger(*logFile, *logLevel)
	if err != nil {
		fmt.Fprintln(os.Stderr, "backyard-ls mcp:", err)
		return 2
	}
	defer log.Sync()
	switch {
	case !notebook.Broad(ws):
	case *workspace != "":
		log.Warn("workspace", zap.String("warning", notebook.BroadWarning(ws)))
	default:
		log.Warn("workspace", zap.String("warning", fmt.Sprintf("the current directory %s is the file system's root or the home folder: kernels see no workspace (--workspace %s shows it)", ws, ws)))
		ws = ""
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	keepOnBrokenPipe()
	go reapOrphans(log)
	defer removeOwnContainers(log)
	srv := mcp.New(mcp.Options{
		Settings: flags.Apply(contract.DefaultSettings()), Workspace: ws,
		MaxSessions: *maxSessions, IdleTimeout: *idle, Logger: log, Version: version,
	})
	defer srv.Close()
	log.Info("mcp server", zap.Int("pid", os.Getpid()), zap.String("workspace", ws), zap.String("http", *httpAddr))

	if *httpAddr == "" {
		err = srv.Serve(ctx, srv.StdioTransport())
		if err != nil && !errors.Is(err, context.Canceled) {
			log.Info("mcp server stopped", zap.Error(err))
		}
		return 0
	}
	return serveHTTP(ctx, *httpAddr, srv.Handler(mcp.HTTPOptions{AllowedHosts: splitList(*allowHosts), AllowedOrigins: splitList(*allowOrigins)}), log)
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}

// serveHTTP serves streamable HTTP at /mcp (and /) until ctx ends.
func serveHTTP(ctx context.Context, addr string, h http.Handler, log *zap.Logger) int {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "backyard-ls mcp: --http:", err)
		return 2
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		fmt.Fprintf(os.Stderr, "backyard-ls mcp: warning: listening on %s: anyone who can reach it can run code in the sandbox (requests for other names than loopback ones need --allow-host)\n", host)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, port))
	if err != nil {
		fmt.Fprintln(os.Stderr, "backyard-ls mcp:", err)
		return 1
	}
	// The address, for a harness that asked for port 0.
	fmt.Fprintf(os.Stderr, "backyard-ls mcp: serving streamable HTTP on http://%s/mcp\n", ln.Addr())
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-done:
		log.Error("http server", zap.Error(err))
		return 1
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = hs.Shutdown(sctx)
	return 0
}
