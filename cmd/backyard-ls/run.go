package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"

	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/cells"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/notebook"
)

// runFlags are the settings run takes as flags (they mean what the
// backyard.* settings of the same name mean).
var runFlags = []string{"backend", "timeout", "memory", "monty", "image", "runtime", "auto-install", "index-url", "find-links", "files-write"}

func runRun(args []string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	asJSON := fs.Bool("json", false, "print one JSON object per executed cell (JSON Lines)")
	settings := contract.BindFlags(fs, runFlags...)
	logFile := fs.String("log-file", "", "write logs to this file instead of stderr")
	logLevel := fs.String("log-level", "warn", "log level: debug, info, warn, error")
	workspace := fs.String("workspace", "", "the folder the cells see, read-only (default: FILE's project, the nearest folder above it with .git, pyproject.toml or setup.cfg, else FILE's folder; never / or the home folder, which only this flag shows)")
	saveFiles := fs.Bool("save-files", false, "at the end, write the files the cells wrote (kept apart by files.write=sandbox) to the workspace")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: backyard-ls run [flags] FILE.py\n\nRuns every code cell of FILE.py in order, in FILE's folder, and prints each cell's output.\nExit status 1 when any cell failed, 2 when it could not run (bad flags, no file, no kernel).")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return parseStatus(err)
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	flags, err := settings()
	if err != nil {
		fmt.Fprintln(os.Stderr, "backyard-ls run:", err)
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
	abs, err := filepath.Abs(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "backyard-ls run:", err)
		return 2
	}

	roots, warning, err := runWorkspace(*workspace, abs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "backyard-ls run:", err)
		return 2
	}
	if warning != "" {
		fmt.Fprintln(os.Stderr, "backyard-ls run: warning:", warning)
		if *logFile != "" { // else the line above is the log's
			log.Warn("workspace", zap.String("warning", warning))
		}
	}
	cfg := kernel.Config{Settings: flags.Apply(contract.DefaultSettings()), Roots: roots, Dir: filepath.Dir(abs), Logger: log}
	// One document: its own pre-warm covers it, a warm pool would only
	// start a container it never uses.
	cfg.Settings.Container.WarmPool = 0
	ev := &runEvents{out: os.Stdout, quiet: *asJSON}
	nb := notebook.New(notebook.Options{Config: func(string) kernel.Config { return cfg }, Events: ev, Logger: log})
	defer removeOwnContainers(log)
	defer nb.CloseAll()
	d := nb.Open(string(uri.File(abs)), 1, string(src))

	// Ctrl-C interrupts the running cell; a second one stops the run.
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	go func() {
		<-sigs
		d.Interrupt()
		<-sigs
		stop()
	}()

	// The kernel first: without one (no Monty worker) the run is a setup
	// error, said once, before any cell's header.
	if err := d.StartKernel(); err != nil {
		fmt.Fprintln(os.Stderr, "backyard-ls run:", err)
		return 2
	}
	if cfg.Settings.Prewarm {
		d.Prewarm()
	}
	out := os.Stdout
	failed := false
	for n, c := range cells.CodeCells(cells.Parse(string(src))) {
		if ctx.Err() != nil {
			break
		}
		if !*asJSON {
			printHeader(out, n+1, c)
		}
		line := c.StartLine
		if c.HeaderLine >= 0 {
			line = c.HeaderLine
		}
		r, err := d.Start(notebook.RunRequest{Kind: notebook.RunCell, Line: line, Command: "run"})
		if err != nil {
			fmt.Fprintln(os.Stderr, "backyard-ls run:", err)
			return 2
		}
		execs := r.Wait(ctx)
		if len(execs) == 0 {
			break // stopped
		}
		rec := execs[0]
		if rec.Error != nil && rec.Error.EName == "KernelError" {
			if rec.Status == contract.StatusInterrupted {
				// Else the notebook said why (Message).
				fmt.Fprintln(os.Stderr, "backyard-ls run:", rec.Error.EValue)
			}
			return 2
		}
		if rec.Status != contract.StatusOK {
			failed = true
		}
		if *asJSON {
			out.Write(append(rec.AppendJSON(nil), '\n')) // one line: line separators escaped
		} else {
			printResult(out, path, rec, ev.printedLive(rec.ID))
		}
	}
	if *saveFiles && !saveKernelFiles(d) {
		return 2
	}
	if failed {
		return 1
	}
	return 0
}

// runWorkspace is the folder the cells of file see: flag, when given, else
// file's project (notebook.ProjectRoot), none when file lies in the home
// folder or the file system's root. The warning says when that folder is
// broad, or why there is none.
func runWorkspace(flag, file string) (roots []string, warning string, err error) {
	if flag != "" {
		abs, err := filepath.Abs(flag)
		if err != nil {
			return nil, "", err
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return nil, "", fmt.Errorf("--workspace %s is not a folder", flag)
		}
		if notebook.Broad(abs) {
			warning = notebook.BroadWarning(abs)
		}
		return []string{abs}, warning, nil
	}
	root, ok := notebook.ProjectRoot(filepath.Dir(file))
	if !ok {
		return nil, fmt.Sprintf("%s is in the home folder or the file system's root: its cells see none of the files there (--workspace %s shows them)", filepath.Base(file), root), nil
	}
	return []string{root}, "", nil
}

// saveKernelFiles writes every file the kernel kept apart to the workspace
// and lists them on stderr; false when that failed.
func saveKernelFiles(d *notebook.Document) bool {
	ctx := context.Background()
	list, err := d.Files()
	var res *contract.FilesResult
	if err == nil {
		res, err = list(ctx)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "backyard-ls run: --save-files:", err)
		return false
	}
	paths := make([]string, 0, len(res.Files))
	for _, f := range res.Files {
		paths = append(paths, f.Path)
	}
	save, err := d.SaveFiles(paths)
	var saved *contract.SaveFilesResult
	if err == nil {
		saved, err = save(ctx)
	}
	if saved != nil {
		for _, p := range saved.Saved {
			fmt.Fprintln(os.Stderr, "backyard-ls: saved", p)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "backyard-ls run: --save-files:", err)
		return false
	}
	return true
}

// runEvents prints what the notebook tells: output as it streams (unless
// quiet), messages to stderr; install questions go to the terminal.
type runEvents struct {
	out   io.Writer
	quiet bool

	mu sync.Mutex
	// live says, per execution, that its displays were printed as they came
	// (true) or that one changed after it was printed (false: the record's
	// final displays are printed at the end).
	live map[string]bool
}

// Display prints a new display output where the cell showed it, among its
// output; an update or a clear cannot change what a terminal printed, so
// the displays are printed again at the end, as they ended.
func (e *runEvents) Display(p *contract.DisplayParams) {
	if e.quiet {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.live == nil {
		e.live = map[string]bool{}
	}
	if p.Update || p.Clear || p.Display == nil {
		e.live[p.ExecutionID] = false
		return
	}
	if p.Display.AfterResult {
		return // printed after the value, at the end
	}
	if _, changed := e.live[p.ExecutionID]; !changed {
		e.live[p.ExecutionID] = true
	}
	printDisplay(e.out, *p.Display)
}

// printedLive says whether the displays of execution id were all printed as they came.
func (e *runEvents) printedLive(id string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	live := e.live[id]
	delete(e.live, id)
	return live
}

func (e *runEvents) Output(p *contract.OutputParams) {
	if e.quiet {
		return
	}
	if p.Stream == contract.Stderr {
		os.Stderr.WriteString(p.Text)
	} else {
		io.WriteString(e.out, p.Text)
	}
}

func (*runEvents) ExecutionState(*contract.ExecutionStateParams) {}
func (*runEvents) KernelState(*contract.KernelStateParams)       {}
func (*runEvents) Diagnostics(*notebook.Document)                {}
func (*runEvents) Refresh(bool)                                  {}
func (*runEvents) StartProgress(string, func()) notebook.Progress {
	return nil
}

func (*runEvents) Message(level notebook.Level, text string) {
	if level >= notebook.Warning {
		fmt.Fprintln(os.Stderr, strings.Replace(text, "backyard: ", "backyard-ls: ", 1))
	}
}

func (*runEvents) ConfirmInstall(ctx context.Context, _ string, packages []string) bool {
	return confirmOnTerminal(ctx, packages)
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

// printDisplay prints a display's text/plain form, as a terminal shows it,
// and names its other forms. A kernel's payload (%load, %edit) is no
// output: nothing.
func printDisplay(w io.Writer, d contract.Display) {
	if d.IsPayload() {
		return
	}
	if t := d.Data["text/plain"]; t != "" {
		fmt.Fprintln(w, strings.TrimSuffix(t, "\n"))
	}
	if others := notebook.OtherMIME(d.Data); len(others) > 0 {
		fmt.Fprintf(w, "   [display: %s]\n", strings.Join(others, ", "))
	}
}

// printResult prints the end of a run: its displays unless they were
// printed as they came (live), its value, the displays shown after it (the
// inline backend's figures), its error, notes, files and status.
func printResult(w io.Writer, path string, rec *contract.Execution, live bool) {
	if rec.Stdout != "" && !strings.HasSuffix(rec.Stdout, "\n") {
		fmt.Fprintln(w)
	}
	for _, d := range rec.Displays {
		if !live && !d.AfterResult {
			printDisplay(w, d)
		}
	}
	if rec.Result != nil {
		text := rec.Result.Text
		if strings.Contains(text, "\n") {
			text = "\n" + text // as IPython's terminal: a pretty-printed value lines up at the left
		}
		fmt.Fprintf(w, "Out[%d]: %s\n", rec.ExecutionCount, text)
		if others := notebook.OtherMIME(rec.Result.MIME); len(others) > 0 {
			fmt.Fprintf(w, "   [also: %s]\n", strings.Join(others, ", "))
		}
	}
	for _, d := range rec.Displays {
		if d.AfterResult {
			printDisplay(w, d)
		}
	}
	if rec.Error != nil {
		io.WriteString(w, notebook.Traceback(rec.Error, func(f contract.Frame) string {
			switch {
			case f.Line >= 0:
				return fmt.Sprintf("  File %q, line %d, in %s\n    %s\n", path, f.Line+1, f.Name, f.Text)
			case f.File != "":
				return fmt.Sprintf("  File %q, line %d, in %s\n    %s\n", f.File, f.FileLine, f.Name, f.Text)
			case f.Text != "":
				return fmt.Sprintf("  In %s (code from another cell)\n    %s\n", f.Name, f.Text)
			}
			return ""
		}))
	}
	if rec.Status != contract.StatusOK && rec.Status != contract.StatusError {
		fmt.Fprintf(w, "[%s]\n", rec.Status)
	}
	for _, n := range rec.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, f := range rec.Files {
		fmt.Fprintf(w, "   %s %s\n", notebook.FileMark(f.State), notebook.RelPath(filepath.Dir(path), f.Path))
	}
	if line := routingLine(rec.Routing); line != "" {
		fmt.Fprintf(w, "   [auto: %s]\n", line)
	}
	fmt.Fprintf(w, "   %s · %s · %.2f ms\n\n", rec.Status, rec.Backend, rec.DurationMs)
}

// AnswersInput is true: Input tries the terminal when a cell asks.
func (e *runEvents) AnswersInput() bool { return true }

// Input answers a cell's input() from the terminal (the prompt is in the
// cell's streamed output, unless that is off); without a terminal the cell
// gets EOFError.
func (e *runEvents) Input(ctx context.Context, p *contract.InputParams) (string, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return "", err
	}
	if e.quiet {
		io.WriteString(tty, p.Prompt)
	}
	stop := context.AfterFunc(ctx, func() { tty.Close() }) // an interrupt ends the wait
	defer stop()
	defer tty.Close()
	line, err := bufio.NewReader(tty).ReadString('\n')
	if err != nil {
		return "", err
	}
	return strings.TrimRight(line, "\r\n"), nil
}

// routingLine says in words what an auto kernel did with a cell, when it
// is worth a line: it moved the document, or Monty's result is unconfirmed.
func routingLine(g *contract.Routing) string {
	switch {
	case g == nil:
		return ""
	case g.Moved:
		return fmt.Sprintf("moved to the container (%s): %s", g.Rule, g.Reason)
	case g.Check == contract.CheckUnconfirmed:
		return g.Note
	case g.Check == contract.CheckMessage:
		return "CPython's message is shown: " + g.Reason
	}
	return g.Note
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
