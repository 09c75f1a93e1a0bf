package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp"
)

// runServe runs the language server on stdin/stdout. Logs go to stderr or
// --log-file, never to stdout (it carries the protocol).
func runServe(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.Usage = func() {
		usage() // the other commands too: this is what a bare -h shows
		fmt.Fprintln(fs.Output(), "\nThe language server (serve) runs on stdin/stdout; its flags:")
		fs.PrintDefaults()
	}
	fs.Bool("stdio", true, "talk LSP over stdin/stdout (the only transport)")
	logFile := fs.String("log-file", "", "write the log to this file instead of stderr")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	clientPID := fs.Int("clientProcessId", 0, "exit when this process (the editor) dies")
	settings := contract.BindFlags(fs, "monty", "backend", "timeout", "memory")
	if err := fs.Parse(args); err != nil {
		return parseStatus(err)
	}

	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "backyard-ls serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	flags, err := settings()
	if err != nil {
		fmt.Fprintf(os.Stderr, "backyard-ls serve: %v\n", err)
		return 2
	}
	log, err := newLogger(*logFile, *logLevel)
	if err != nil {
		fmt.Fprintf(os.Stderr, "backyard-ls serve: log: %v\n", err)
		return 2
	}
	defer func() { _ = log.Sync() }()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	keepOnBrokenPipe()
	go reapOrphans(log)
	defer removeOwnContainers(log)
	err = lsp.Serve(ctx, os.Stdin, os.Stdout, lsp.Options{
		Flags:           flags,
		ClientProcessID: *clientPID,
		Logger:          log,
		Version:         version,
	})
	if err != nil {
		log.Info("server stopped", zap.Error(err))
		return 1
	}
	log.Info("server stopped")
	return 0
}

// keepOnBrokenPipe makes a write to a client that closed its end of the
// pipes fail with EPIPE instead of killing the process with SIGPIPE: the
// server still stops its kernels and removes its containers. (A handled
// signal, unlike an ignored one, is not inherited by the kernels' worker
// processes.)
func keepOnBrokenPipe() { signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE) }

// reapOrphans removes kernel containers left by backyard-ls processes that
// died without cleaning up. Without a container engine it does nothing.
func reapOrphans(log *zap.Logger) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ids, err := container.ReapOrphans(ctx)
	if err != nil {
		log.Debug("no orphan containers reaped", zap.Error(err))
		return
	}
	if len(ids) > 0 {
		log.Info("removed orphan kernel containers", zap.Int("count", len(ids)))
	}
}

// removeOwnContainers removes whatever container this process still owns
// (the kernels are closed by then; this catches the rest).
func removeOwnContainers(log *zap.Logger) {
	t0 := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := container.Shutdown(ctx); err != nil {
		log.Warn("removing containers at exit", zap.Error(err))
	}
	log.Debug("no container left", zap.Duration("took", time.Since(t0)))
}
