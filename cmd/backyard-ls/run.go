package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/backyard-ls/backyard-ls/cells"
	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/lsp"
	"github.com/backyard-ls/backyard-ls/pypkg"
)

func runRun(args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object per executed cell (JSON Lines)")
	backend := fs.String("backend", kernel.BackendAuto, "kernel backend: auto, monty or container")
	timeout := fs.Duration("timeout", kernel.DefaultLimits.Timeout, "time limit per cell")
	memory := fs.Int("memory", int(kernel.DefaultLimits.MemoryBytes>>20), "memory limit of the kernel, MiB")
	montyPath := fs.String("monty", "", "path of the Monty worker (default: $MONTY_BIN, the install dir, then PATH)")
	image := fs.String("image", "", "container image (default "+container.DefaultImage+")")
	runtime := fs.String("runtime", "", "container runtime: runc or runsc (default: runsc when the engine has it)")
	autoInstall := fs.String("auto-install", kernel.InstallOff, "install packages the container lacks: off, ask or on")
	indexURL := fs.String("index-url", "", "package index for installs (default PyPI)")
	findLinks := fs.String("find-links", "", "directory of wheels to install from")
	logFile := fs.String("log-file", "", "write logs to this file instead of stderr")
	logLevel := fs.String("log-level", "warn", "log level: debug, info, warn, error")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: backyard-ls run [flags] FILE.py\n\nRuns every code cell of FILE.py in order and prints each cell's output.\nExit status 1 when any cell failed.")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return parseStatus(err)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	path := fs.Arg(0)
	src, err := os.ReadFile(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "backyard-ls run:", err)
		return 2
	}
	log, err := newLogger(*logFile, *logLevel)
	if err != nil {
		fmt.Fprintln(os.Stderr, "backyard-ls run:", err)
		return 2
	}
	defer log.Sync()

	script, err := pypkg.ParseScript(string(src))
	if err != nil {
		fmt.Fprintf(os.Stderr, "backyard-ls run: %s: %v\n", path, err)
		return 2
	}
	var requirements []string
	if script != nil {
		requirements = script.Dependencies
	}
	k, err := kernel.New(kernel.Config{
		Backend:     *backend,
		MontyBinary: *montyPath,
		Limits:      kernel.Limits{Timeout: *timeout, MemoryBytes: uint64(*memory) << 20},
		Logger:      log,
		Container: kernel.ContainerConfig{
			Image: *image, Runtime: *runtime, AutoInstall: *autoInstall, IndexURL: *indexURL, FindLinks: *findLinks,
			Confirm:   confirmOnTerminal,
			OnWarning: func(w string) { fmt.Fprintln(os.Stderr, "backyard-ls:", w) },
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "backyard-ls run:", err)
		return 2
	}
	defer removeOwnContainers(log)
	defer k.Close()

	// Ctrl-C interrupts the running cell; a second one stops the run.
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt)
	go func() {
		<-sigs
		k.Interrupt()
		<-sigs
		stop()
	}()

	codeCells := cells.CodeCells(cells.Parse(string(src)))
	if a, ok := k.(*kernel.Auto); ok {
		codes := make([]string, len(codeCells))
		for i, c := range codeCells {
			codes[i] = c.Code
		}
		a.Prewarm(codes)
	}
	out := os.Stdout
	failed := false
	for n, c := range codeCells {
		if ctx.Err() != nil {
			break
		}
		if !*asJSON {
			printHeader(out, n+1, c)
		}
		req := kernel.Request{Code: c.Code, Requirements: requirements}
		if !*asJSON {
			req.OnOutput = func(s kernel.Stream, text string) {
				if s == kernel.Stderr {
					os.Stderr.WriteString(text)
				} else {
					out.WriteString(text)
				}
			}
		}
		r, err := k.Execute(ctx, req)
		if err != nil {
			fmt.Fprintln(os.Stderr, "backyard-ls run:", err)
			return 2
		}
		if r.Status != kernel.StatusOK {
			failed = true
		}
		rec := lsp.CellExecution(fmt.Sprintf("cell-%d", n+1), c, r)
		if *asJSON {
			b, _ := json.Marshal(rec)
			out.Write(append(b, '\n'))
		} else {
			printResult(out, path, rec, r)
		}
	}
	if failed {
		return 1
	}
	return 0
}

func printHeader(w io.Writer, n int, c cells.Cell) {
	title := c.Title
	if title != "" {
		title = " " + title
	}
	head := fmt.Sprintf("── In [%d]%s · line %d", n, title, c.StartLine+1)
	if pad := 59 - len([]rune(head)); pad > 0 {
		head += " " + strings.Repeat("─", pad)
	}
	fmt.Fprintln(w, head)
}

func printResult(w io.Writer, path string, rec *lsp.Execution, r kernel.Result) {
	if r.Stdout != "" && !strings.HasSuffix(r.Stdout, "\n") {
		fmt.Fprintln(w)
	}
	if r.Value != nil {
		fmt.Fprintf(w, "Out[%d]: %s\n", r.ExecutionCount, r.Value.Text)
	}
	if rec.Error != nil {
		for _, f := range rec.Error.Traceback {
			if f.Line >= 0 {
				fmt.Fprintf(w, "  File %q, line %d, in %s\n    %s\n", path, f.Line+1, f.Name, f.Text)
			} else if f.Text != "" {
				fmt.Fprintf(w, "  In %s (code from another cell)\n    %s\n", f.Name, f.Text)
			}
		}
		msg := rec.Error.EName
		if rec.Error.EValue != "" {
			msg += ": " + rec.Error.EValue
		}
		fmt.Fprintln(w, msg)
	}
	if r.Status != kernel.StatusOK && r.Status != kernel.StatusError {
		fmt.Fprintf(w, "[%s]\n", r.Status)
	}
	fmt.Fprintf(w, "   %s · %s · %.2f ms\n\n", r.Status, r.Backend, rec.DurationMs)
}

// confirmOnTerminal asks on the terminal whether to install packages
// (auto-install "ask"); without a terminal the answer is no.
func confirmOnTerminal(_ context.Context, packages []string) bool {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return false
	}
	defer tty.Close()
	fmt.Fprintf(tty, "Install %s into the container's package volume? [y/N] ", strings.Join(packages, ", "))
	var answer string
	fmt.Fscanln(tty, &answer)
	return strings.EqualFold(answer, "y") || strings.EqualFold(answer, "yes")
}
