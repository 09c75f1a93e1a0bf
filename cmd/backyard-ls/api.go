package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/api"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/internal/proc"
)

// parentPoll is how often api checks that the process that started it is
// still there.
const parentPoll = 200 * time.Millisecond

// runAPI serves the API for programs (package api) on stdio: the Python
// package backyard_ls starts it. It stops when its input ends, its parent
// dies or it gets SIGTERM, and then closes every sandbox and batch.
func runAPI(args []string) int {
	fs := flag.NewFlagSet("api", flag.ContinueOnError)
	fs.Bool("stdio", true, "talk JSON-RPC over stdin/stdout, one message per line (the only transport)")
	maxRequest := fs.Int("max-request-bytes", contract.MaxRequestBytes, "the largest request line read; a larger one is answered with an error and skipped")
	settings := contract.BindFlags(fs, runFlags...)
	logFile := fs.String("log-file", "", "write logs to this file instead of stderr")
	logLevel := fs.String("log-level", "error", "log level: debug, info, warn, error (warnings also go to the client)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: backyard-ls api [--stdio] [flags]\n\nServes the API for programs (the Python package backyard_ls starts it):\nsandboxes and batches over JSON-RPC 2.0 on stdin/stdout. The flags are the\ndefaults of every sandbox and batch; the client's requests override them.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return parseStatus(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "backyard-ls api: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	flags, err := settings()
	if err != nil {
		fmt.Fprintln(os.Stderr, "backyard-ls api:", err)
		return 2
	}
	log, err := newLogger(*logFile, *logLevel)
	if err != nil {
		fmt.Fprintln(os.Stderr, "backyard-ls api:", err)
		return 2
	}
	defer log.Sync()

	// Batches make garbage at a steady rate and keep little (as batch
	// does): collect less often.
	debug.SetGCPercent(400)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	keepOnBrokenPipe()
	go watchParent(ctx, os.Getppid(), stop, log)
	go reapOrphans(log)
	go func() {
		if dirs := api.ReapFolders(); len(dirs) > 0 {
			log.Info("removed the folders of killed servers' sandboxes", zap.Strings("folders", dirs))
		}
	}()
	defer removeOwnContainers(log)
	err = api.Serve(ctx, os.Stdin, os.Stdout, api.Options{
		Settings: flags.Apply(contract.DefaultSettings()), MaxRequestBytes: *maxRequest, Version: version, Logger: log,
	})
	if err != nil {
		log.Info("api server stopped", zap.Error(err))
	}
	return 0
}

// watchParent calls stop when the process that started this one (ppid,
// taken before the goroutine starts) dies, even if the pipes it left open
// (a forked child holds them) keep the input from ending.
func watchParent(ctx context.Context, ppid int, stop func(), log *zap.Logger) {
	if ppid <= 1 {
		return // no parent to outlive
	}
	t := time.NewTicker(parentPoll)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if proc.ParentGone(ppid) {
				log.Info("the parent process is gone: stopping", zap.Int("ppid", ppid))
				stop()
				return
			}
		}
	}
}
