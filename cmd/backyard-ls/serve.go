package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/lsp"
)

// runServe runs the language server on stdin/stdout. Logs go to stderr or
// --log-file, never to stdout (it carries the protocol).
func runServe(args []string) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: backyard-ls [serve] [--stdio] [flags]\n\nRuns the language server on stdin/stdout.")
		fs.PrintDefaults()
	}
	fs.Bool("stdio", true, "talk LSP over stdin/stdout (the only transport)")
	logFile := fs.String("log-file", "", "write the log to this file instead of stderr")
	logLevel := fs.String("log-level", "info", "log level: debug, info, warn or error")
	clientPID := fs.Int("clientProcessId", 0, "exit when this process (the editor) dies")
	montyBin := fs.String("monty", "", "Monty worker binary (default: $MONTY_BIN, the install dir, then PATH)")
	backend := fs.String("backend", kernel.BackendAuto, "default backend of new kernels: auto, monty or container")
	timeout := fs.String("timeout", "30s", "time limit of one cell: a duration (\"30s\") or seconds")
	memory := fs.Int("memory", 256, "memory limit of one kernel, MiB")
	if err := fs.Parse(args); err != nil {
		return parseStatus(err)
	}

	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "backyard-ls serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	switch *backend {
	case kernel.BackendAuto, kernel.BackendMonty, kernel.BackendContainer:
	default:
		fmt.Fprintf(os.Stderr, "backyard-ls serve: --backend must be auto, monty or container, not %q\n", *backend)
		return 2
	}
	limit, err := parseTimeout(*timeout)
	if err != nil {
		fmt.Fprintf(os.Stderr, "backyard-ls serve: --timeout: %v\n", err)
		return 2
	}
	if *memory <= 0 {
		fmt.Fprintf(os.Stderr, "backyard-ls serve: --memory must be a positive number of MiB\n")
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
	go reapOrphans(log)
	defer removeOwnContainers(log)
	err = lsp.Serve(ctx, os.Stdin, os.Stdout, lsp.Options{
		Kernel: kernel.Config{
			Backend:     *backend,
			MontyBinary: *montyBin,
			Limits:      kernel.Limits{Timeout: limit, MemoryBytes: uint64(*memory) << 20},
		},
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

// parseTimeout reads "30s" or "30" (seconds).
func parseTimeout(s string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if f <= 0 {
			return 0, fmt.Errorf("must be positive, got %s", s)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("want a positive duration like 30s or a number of seconds, got %q", s)
	}
	return d, nil
}

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
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := container.Shutdown(ctx); err != nil {
		log.Warn("removing containers at exit", zap.Error(err))
	}
}
