package notebook

import (
	"strconv"
	"strings"

	"github.com/backyard-ls/backyard-ls/cells"
	"github.com/backyard-ls/backyard-ls/contract"
)

// CellStatus is a code cell and what its last run shows.
type CellStatus struct {
	Cell cells.Cell
	// LensLine is where the cell's code lenses go: its header, or the first
	// line of an implicit cell.
	LensLine int
	// Ran is false for a cell that never ran (or whose run was taken back).
	Ran   bool
	State contract.ExecutionPhase
	Exec  *contract.Execution // nil until the run is done
	// Stale: the cell's code is no longer the code that ran, or the kernel
	// was restarted since.
	Stale bool
}

// Cells lists the document's code cells, in order, with their status.
func (d *Document) Cells() []CellStatus {
	gen := d.sess.generation()
	d.mu.Lock()
	defer d.mu.Unlock()
	snap := d.snapshotLocked()
	d.results.remap(snap)
	byIndex := make(map[int]*cellResult, len(d.results.cells))
	for _, c := range d.results.cells {
		byIndex[c.index] = c
	}
	var out []CellStatus
	for _, c := range snap.Cells() {
		if c.Kind != cells.Code {
			continue
		}
		st := CellStatus{Cell: c, LensLine: lensLine(c)}
		if r := byIndex[c.Index]; r != nil {
			st.Ran, st.State, st.Exec, st.Stale = true, contract.ExecutionPhase(r.state), r.exec, r.stale || r.gen != gen
		}
		out = append(out, st)
	}
	return out
}

// Diagnostic is a runtime error shown on a line of the document.
type Diagnostic struct {
	// Range spans the line from its first non-blank character to its end.
	Range   contract.Range
	Message string // "ZeroDivisionError: division by zero"
}

// Diagnostics returns the document's runtime errors (one per cell or
// selection whose last run failed, on the line its traceback points at),
// and whether they differ from what the last call returned. A cell's
// diagnostic goes when it runs clean or its code changes; a closed
// document has none.
func (d *Document) Diagnostics() ([]Diagnostic, bool) {
	d.pubMu.Lock()
	defer d.pubMu.Unlock()
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []Diagnostic
	if !d.closed {
		snap := d.snapshotLocked()
		d.results.remap(snap)
		out = d.results.diagnostics(snap)
	}
	key := diagnosticsKey(out)
	if key == d.diagKey {
		return out, false
	}
	d.diagKey = key
	return out, true
}

func (r *results) diagnostics(snap *snapshot) []Diagnostic {
	var out []Diagnostic
	add := func(start int, d diagSpot, x *contract.Execution) {
		line := start + d.line
		if line < 0 || line >= snap.LineCount() {
			return
		}
		rng := snap.lineRange(line)
		if end := start + d.endLine; d.endCol > 0 && end < snap.LineCount() {
			// CPython's span, kept within the lines as they are now.
			rng.Start.Character = uint32(min(d.col, utf16Len(snap.Line(line))))
			rng.End = contract.Position{Line: uint32(end), Character: uint32(min(d.endCol, utf16Len(snap.Line(end))))}
		}
		out = append(out, Diagnostic{Range: rng, Message: diagnosticMessage(x.Error)})
	}
	for _, c := range r.cells {
		if c.state == stateDone && !c.stale && c.diag.line >= 0 && showsError(c.exec) {
			add(c.startLine, c.diag, c.exec)
		}
	}
	for _, x := range r.ranges {
		if x.diag.line >= 0 && showsError(x.exec) {
			add(x.startLine, x.diag, x.exec)
		}
	}
	return out
}

func diagnosticsKey(diags []Diagnostic) string {
	if len(diags) == 0 {
		return ""
	}
	var b strings.Builder
	for _, d := range diags {
		b.WriteString(strconv.Itoa(int(d.Range.Start.Line)))
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(int(d.Range.Start.Character)))
		b.WriteByte('-')
		b.WriteString(strconv.Itoa(int(d.Range.End.Character)))
		b.WriteByte(' ')
		b.WriteString(d.Message)
		b.WriteByte('\n')
	}
	return b.String()
}

// Hint is the value of a trailing expression at the end of a cell or
// selection.
type Hint struct {
	Pos   contract.Position
	Value string // the full repr
}

// Hints lists the values of the cells whose last run is current (not
// stale, same kernel) at the end of each cell, and of each selection run at
// its end, within r (the whole document when r is zero). A cell and a
// selection that end together show the newer run's value.
func (d *Document) Hints(r contract.Range) []Hint {
	gen := d.sess.generation()
	d.mu.Lock()
	defer d.mu.Unlock()
	snap := d.snapshotLocked()
	d.results.remap(snap)
	all := snap.Cells()
	newest := map[contract.Position]*contract.Execution{}
	var order []contract.Position
	add := func(pos contract.Position, x *contract.Execution) {
		if x == nil || x.Result == nil || !inRange(pos, r) {
			return
		}
		if old, ok := newest[pos]; !ok {
			order = append(order, pos)
		} else if executionSeq(old.ID) > executionSeq(x.ID) {
			return
		}
		newest[pos] = x
	}
	for _, c := range d.results.cells {
		if c.state != stateDone || c.stale || c.gen != gen || c.index >= len(all) {
			continue
		}
		end := all[c.index].End
		add(contract.Position{Line: uint32(end.Line), Character: uint32(end.Character)}, c.exec)
	}
	for _, x := range d.results.ranges {
		if x.exec != nil {
			add(x.exec.Range.End, x.exec)
		}
	}
	out := make([]Hint, 0, len(order))
	for _, pos := range order {
		out = append(out, Hint{Pos: pos, Value: newest[pos].Result.Text})
	}
	return out
}

// executionSeq is the sequence number in an execution id ("e12" → 12).
func executionSeq(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "e"))
	return n
}

func inRange(p contract.Position, r contract.Range) bool {
	if r == (contract.Range{}) {
		return true
	}
	after := p.Line > r.Start.Line || p.Line == r.Start.Line && p.Character >= r.Start.Character
	before := p.Line < r.End.Line || p.Line == r.End.Line && p.Character <= r.End.Character
	return after && before
}
