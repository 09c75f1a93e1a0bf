package notebook

import (
	"context"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"github.com/backyard-ls/backyard-ls/cells"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// execution is one queued run: a cell or a selection of one document.
type execution struct {
	id        string
	doc       *Document
	code      string         // what the kernel runs
	reqs      []string       // the document's declared packages
	rng       contract.Range // reported range
	startLine int            // document line of the code's first line
	cell      *cells.Cell    // the cell that runs, nil for a selection
	selLines  []string       // a selection's full document lines, to notice edits
	batch     *batch

	ctx    context.Context // cancelled to interrupt this execution
	cancel context.CancelFunc
	done   chan struct{}       // closed when finished (ran, skipped or dropped)
	ended  bool                // done is closed; set by the goroutine that ends it
	result *contract.Execution // nil when it never ran
	rec    *cellResult         // the cell's tracked result; nil for selections

	limits    kernel.Limits // per-run overrides
	untracked bool          // RunCode: no result is shown in the document
}

// batch is the executions of one run request. runAll, runAbove and
// runBelow stop after the first execution that is not ok.
type batch struct {
	stopOnError bool
	onEnd       func() // runs when the last execution ended

	mu      sync.Mutex
	failed  bool
	pending int // executions not yet ended
}

func (b *batch) fail() {
	b.mu.Lock()
	b.failed = b.stopOnError
	b.mu.Unlock()
}

// ended reports whether every execution of the batch has ended.
func (b *batch) ended() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.pending == 0
}

func (b *batch) stopped() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.failed
}

// record builds the execution's record from a kernel result; lines map
// from the code's 1-based lines to document lines by adding startLine-1.
func (e *execution) record(r kernel.Result) *contract.Execution {
	return Record(e.id, e.rng, e.startLine, r)
}

// Record is the record of code that started at document line startLine
// (0-based) and ran with result r, reported with range rng. Traceback lines
// become document lines; a frame outside the code that ran gets -1.
func Record(id string, rng contract.Range, startLine int, r kernel.Result) *contract.Execution {
	x := &contract.Execution{
		ID: id, Range: rng, ExecutionCount: r.ExecutionCount, Status: r.Status,
		Stdout: r.Stdout, Stderr: r.Stderr, Result: r.Value,
		Backend: string(r.Backend), Runtime: r.Runtime,
		DurationMs: float64(r.Duration.Microseconds()) / 1000, Notes: r.Notes, Files: r.Files,
		Routing: r.Routing,
	}
	if x.Status == "" {
		x.Status = kernel.StatusCrashed
	}
	if r.Error != nil {
		x.Error = &contract.ExecutionError{EName: r.Error.EName, EValue: r.Error.EValue, Traceback: make([]contract.Frame, len(r.Error.Traceback))}
		for i, f := range r.Error.Traceback {
			line := -1
			if f.Line > 0 {
				line = startLine + f.Line - 1
			}
			x.Error.Traceback[i] = contract.Frame{Line: line, Name: f.Name, Text: f.Text, File: f.File, FileLine: f.FileLine}
		}
	}
	return x
}

// CodeRecord is the record of code run on its own (a program's run, a
// batch's snippet) with result r: its range is the whole code, its
// traceback lines count from the code's first line (0-based). A snippet's
// record has execution count 1: a fresh kernel's first cell.
func CodeRecord(code string, r kernel.Result, snippet bool) *contract.Execution {
	x := Record("", codeRange(code), 0, r)
	if snippet {
		x.ExecutionCount = 1
	}
	return x
}

// codeRange is the range of the whole code, its lines counted from 0
// (UTF-16 characters, as everywhere in the records).
func codeRange(code string) contract.Range {
	last := code
	line := 0
	if i := strings.LastIndexByte(code, '\n'); i >= 0 {
		line = strings.Count(code, "\n")
		last = code[i+1:]
	}
	return contract.Range{End: contract.Position{Line: uint32(line), Character: uint32(len(utf16.Encode([]rune(last))))}}
}

// kernelErrorRecord records a run that no kernel could take (it could not
// be created or started, or was closed under it).
func kernelErrorRecord(e *execution, backend contract.Backend, err error, d time.Duration) *contract.Execution {
	return &contract.Execution{
		ID: e.id, Range: e.rng, Status: kernel.StatusCrashed, Backend: string(backend),
		Error:      &contract.ExecutionError{EName: "KernelError", EValue: err.Error(), Traceback: []contract.Frame{}},
		DurationMs: float64(d.Microseconds()) / 1000,
	}
}

// errorLine is the code line (0-based) a diagnostic goes on: the innermost
// frame whose line is inside the code, else the first non-blank code line.
func errorLine(code string, tb []contract.Frame) int {
	n := strings.Count(code, "\n") + 1
	for i := len(tb) - 1; i >= 0; i-- {
		if l := tb[i].Line; l >= 1 && l <= n {
			return l - 1
		}
	}
	for i, l := range strings.Split(code, "\n") {
		if strings.TrimSpace(l) != "" {
			return i
		}
	}
	return 0
}

// CellRange is the range an execution of c reports: its first code line to
// the end of its last non-blank line (the header line for a blank cell).
func CellRange(c cells.Cell) contract.Range {
	start := c.StartLine
	if c.LastLine < c.StartLine {
		start = c.End.Line
	}
	return contract.Range{
		Start: contract.Position{Line: uint32(start)},
		End:   contract.Position{Line: uint32(c.End.Line), Character: uint32(c.End.Character)},
	}
}

// lensLine is the line a cell's code lenses go on: its header, or the first
// line of an implicit cell.
func lensLine(c cells.Cell) int {
	if c.HeaderLine >= 0 {
		return c.HeaderLine
	}
	return c.StartLine
}
