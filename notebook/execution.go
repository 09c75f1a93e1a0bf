package lsp

import (
	"context"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/cells"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// Execution is the record of one run of a cell or selection, as run
// commands return it and backyard/executionState carries it.
//
// Traceback lines are DOCUMENT lines: 0-based, like LSP positions, mapped
// from the kernel's lines (1-based and relative to the code that ran) by
// adding the document line where that code starts. A frame outside the code
// that ran (a function defined in another cell, an eval'd string) has line -1.
type Execution struct {
	ID             string          `json:"id"`
	Range          protocol.Range  `json:"range"` // the cell (first code line to end of last code line) or the selection
	ExecutionCount int             `json:"executionCount"`
	Status         kernel.Status   `json:"status"` // ok, error, interrupted, timeout, crashed
	Stdout         string          `json:"stdout"`
	Stderr         string          `json:"stderr"`
	Result         *kernel.Value   `json:"result,omitzero"` // the trailing expression's value
	Error          *ExecutionError `json:"error,omitzero"`
	Backend        string          `json:"backend"`
	Runtime        string          `json:"runtime"`
	DurationMs     float64         `json:"durationMs"` // wall-clock time in the kernel, milliseconds
}

// ExecutionError is a Python exception (or a stopped, timed-out or crashed
// run) with its traceback, outermost frame first.
type ExecutionError struct {
	EName     string  `json:"ename"`
	EValue    string  `json:"evalue"`
	Traceback []Frame `json:"traceback"`
}

// Frame is one traceback frame; Line is a 0-based document line or -1.
type Frame struct {
	Line int    `json:"line"`
	Name string `json:"name"`
	Text string `json:"text"`
}

// execution is one queued run: a cell or a selection of one document.
type execution struct {
	id        string
	doc       *document
	code      string         // what the kernel runs
	reqs      []string       // the document's declared packages
	rng       protocol.Range // reported range
	startLine int            // document line of the code's first line
	cell      *cells.Cell    // the cell that runs, nil for a selection
	selLines  []string       // a selection's full document lines, to notice edits
	batch     *batch

	ctx    context.Context // cancelled to interrupt this execution
	cancel context.CancelFunc
	done   chan struct{} // closed when finished (ran, skipped or dropped)
	ended  bool          // done is closed; set by the goroutine that ends it
	result *Execution    // nil when it never ran
	rec    *cellResult   // the cell's tracked result; nil for selections
}

// batch is the executions of one run command. runAll, runAbove and
// runBelow stop after the first execution that is not ok.
type batch struct {
	stopOnError bool
	progress    *progressTask // the request's workDoneToken progress, or nil

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

// newExecution converts a kernel result; lines map from the code's 1-based
// lines to document lines by adding startLine-1.
func newExecution(e *execution, r kernel.Result) *Execution {
	return recordOf(e.id, e.rng, e.startLine, r)
}

// CellExecution is the record of cell c's run with result r, as a run
// command would report it (backyard-ls run --json prints these).
func CellExecution(id string, c cells.Cell, r kernel.Result) *Execution {
	return recordOf(id, cellRange(c), c.StartLine, r)
}

// recordOf builds the record of code that starts at document line startLine.
func recordOf(id string, rng protocol.Range, startLine int, r kernel.Result) *Execution {
	x := &Execution{
		ID: id, Range: rng, ExecutionCount: r.ExecutionCount, Status: r.Status,
		Stdout: r.Stdout, Stderr: r.Stderr, Result: r.Value,
		Backend: r.Backend, Runtime: r.Runtime,
		DurationMs: float64(r.Duration.Microseconds()) / 1000,
	}
	if x.Status == "" {
		x.Status = kernel.StatusCrashed
	}
	if r.Error != nil {
		x.Error = &ExecutionError{EName: r.Error.EName, EValue: r.Error.EValue, Traceback: make([]Frame, len(r.Error.Traceback))}
		for i, f := range r.Error.Traceback {
			line := -1
			if f.Line > 0 {
				line = startLine + f.Line - 1
			}
			x.Error.Traceback[i] = Frame{Line: line, Name: f.Name, Text: f.Text}
		}
	}
	return x
}

// kernelErrorExecution records a run that no kernel could take (it could
// not be created or started, or was closed under it).
func kernelErrorExecution(e *execution, backend string, err error, d time.Duration) *Execution {
	return &Execution{
		ID: e.id, Range: e.rng, Status: kernel.StatusCrashed, Backend: backend,
		Error:      &ExecutionError{EName: "KernelError", EValue: err.Error(), Traceback: []Frame{}},
		DurationMs: float64(d.Microseconds()) / 1000,
	}
}

// errorLine is the code line (0-based) a diagnostic goes on: the innermost
// frame whose line is inside the code, else the first non-blank code line.
func errorLine(code string, tb []kernel.Frame) int {
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

// cellRange is the range an execution of c reports: its first code line to
// the end of its last non-blank line (the header line for a blank cell).
func cellRange(c cells.Cell) protocol.Range {
	start := c.StartLine
	if c.LastLine < c.StartLine {
		start = c.End.Line
	}
	return protocol.Range{
		Start: protocol.Position{Line: uint32(start)},
		End:   protocol.Position{Line: uint32(c.End.Line), Character: uint32(c.End.Character)},
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
