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
	"github.com/backyard-ls/backyard-ls/pysrc/ipysyntax"
)

// execution is one queued run: a cell or a selection of one document.
type execution struct {
	id        string
	doc       *Document
	code      string         // what the kernel runs
	reqs      []string       // the document's declared packages
	rng       contract.Range // reported range
	startLine int            // document line of the code's first line
	firstCol  int            // UTF-16 columns before a selection's code on its first line
	margin    int            // bytes its dedent took from each line
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
	pending int           // executions not yet ended
	loads   []*cellResult // cells whose run set their next input (%load), in order
}

// loaded notes a cell whose run set its next input: the batch's end
// replaces its code.
func (b *batch) loaded(rec *cellResult) {
	b.mu.Lock()
	b.loads = append(b.loads, rec)
	b.mu.Unlock()
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
	return Record(e.id, e.rng, Placement{Code: e.code, StartLine: e.startLine, FirstCol: e.firstCol, Margin: e.margin, Cell: true}, r)
}

// Placement is where code that ran lies in its document.
type Placement struct {
	Code string
	// StartLine is the document line (0-based) of the code's first line.
	StartLine int
	// FirstCol is how many UTF-16 columns precede the code on its first
	// line (a selection that starts within a line), and Margin how many
	// bytes (spaces and tabs) a dedent took from the start of every line.
	FirstCol, Margin int
	// Cell: the code ran as a kernel's cell, which runs it as IPython's
	// clean-up leaves it (ipysyntax.Removed): its columns are those of the
	// clean lines. A batch's snippet runs as written.
	Cell bool
	// removed is how many code points the clean-up took from the start of
	// each line, when Cell.
	removed []int
}

// Record is the record of code placed at at that ran with result r,
// reported with range rng. Traceback lines become document lines (a frame
// outside the code that ran gets -1), the spans' code point columns UTF-16
// columns of the document's lines.
func Record(id string, rng contract.Range, at Placement, r kernel.Result) *contract.Execution {
	x := &contract.Execution{
		ID: id, Range: rng, ExecutionCount: r.ExecutionCount, Status: r.Status,
		Stdout: r.Stdout, Stderr: r.Stderr, Result: r.Value, Displays: r.Displays,
		Backend: string(r.Backend), Runtime: r.Runtime,
		DurationMs: float64(r.Duration.Microseconds()) / 1000, Notes: r.Notes, Files: r.Files,
		Routing: r.Routing,
	}
	if x.Status == "" {
		x.Status = kernel.StatusCrashed
	}
	if r.Error != nil {
		if at.Cell {
			at.removed = ipysyntax.Removed(at.Code)
		}
		x.Error = at.error(r.Error, strings.Split(at.Code, "\n"))
	}
	return x
}

// error is e in document terms, its chain and members too.
func (at Placement) error(e *contract.ExecutionError, lines []string) *contract.ExecutionError {
	if e == nil {
		return nil
	}
	x := &contract.ExecutionError{EName: e.EName, EValue: e.EValue, Traceback: make([]contract.Frame, len(e.Traceback)),
		Notes: e.Notes, Cause: at.error(e.Cause, lines), Context: at.error(e.Context, lines), MoreExceptions: e.MoreExceptions}
	for i, f := range e.Traceback {
		x.Traceback[i] = at.frame(f, lines)
	}
	if len(e.Exceptions) > 0 {
		x.Exceptions = make([]contract.ExecutionError, len(e.Exceptions))
		for i := range e.Exceptions {
			x.Exceptions[i] = *at.error(&e.Exceptions[i], lines)
		}
	}
	return x
}

// frame is f in document terms.
func (at Placement) frame(f contract.Frame, lines []string) contract.Frame {
	x := contract.Frame{Line: -1, Name: f.Name, Text: f.Text, File: f.File, FileLine: f.FileLine}
	if f.Line <= 0 {
		return x
	}
	x.Line = at.StartLine + f.Line - 1
	if f.EndCol <= 0 || f.EndLine < f.Line || f.EndLine > len(lines) || f.Line > len(lines) {
		return x
	}
	x.Col = at.column(lines, f.Line, f.Col)
	x.EndCol = at.column(lines, f.EndLine, f.EndCol)
	if f.EndLine != f.Line {
		x.EndLine = at.StartLine + f.EndLine - 1
	}
	return x
}

// column is the document's UTF-16 column of code point col of code line
// n (1-based).
func (at Placement) column(lines []string, n, col int) int {
	c := at.Margin
	if n == 1 {
		c += at.FirstCol
	}
	if n <= len(at.removed) {
		col += at.removed[n-1]
	}
	for _, r := range lines[n-1] {
		if col <= 0 {
			break
		}
		col--
		c += utf16.RuneLen(r)
	}
	return c
}

// CodeRecord is the record of code run on its own (a program's run, a
// batch's snippet) with result r: its range is the whole code, its
// traceback lines count from the code's first line (0-based). A snippet's
// record has execution count 1: a fresh kernel's first cell.
func CodeRecord(code string, r kernel.Result, snippet bool) *contract.Execution {
	x := Record("", CodeRange(code), Placement{Code: code}, r)
	if snippet {
		x.ExecutionCount = 1
	}
	return x
}

// CodeRange is the range of the whole code, its lines counted from 0
// (UTF-16 characters, as everywhere in the records).
func CodeRange(code string) contract.Range {
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

// diagSpot is where a diagnostic goes, relative to the code: its code
// line (0-based; -1 for no diagnostic) and, when the error's frame marks
// a span there, that span (UTF-16 columns, the end line a code line too);
// endCol 0 means the whole line.
type diagSpot struct {
	line, col, endLine, endCol int
}

var noDiag = diagSpot{line: -1}

// errorSpot is where the diagnostic of a recorded error goes: the span of
// the innermost frame inside the code (startLine is the code's first
// document line), else its line, else the first non-blank code line.
func errorSpot(code string, startLine int, tb []contract.Frame) diagSpot {
	n := strings.Count(code, "\n") + 1
	for i := len(tb) - 1; i >= 0; i-- {
		f := tb[i]
		l := f.Line - startLine
		if f.Line < 0 || l < 0 || l >= n {
			continue
		}
		d := diagSpot{line: l}
		if f.EndCol > 0 {
			d.col, d.endLine, d.endCol = f.Col, l, f.EndCol
			if f.EndLine > f.Line && f.EndLine-startLine < n {
				d.endLine = f.EndLine - startLine
			}
		}
		return d
	}
	for i, l := range strings.Split(code, "\n") {
		if strings.TrimSpace(l) != "" {
			return diagSpot{line: i}
		}
	}
	return diagSpot{}
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
