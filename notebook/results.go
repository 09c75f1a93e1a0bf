package notebook

import (
	"regexp"
	"sort"
	"strings"

	"github.com/backyard-ls/backyard-ls/cells"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// Run states of a cell, as backyard/executionState names them.
const (
	stateQueued  = "queued"
	stateRunning = "running"
	stateDone    = "done"
)

// cellResult is what the notebook shows for one cell: its last run's
// status (code lens), error (diagnostic) and value (inlay hint). It follows
// its cell across edits: when cells are inserted or removed above, it moves
// to the cell whose code is still the code that ran.
type cellResult struct {
	index     int    // the cell's index among all cells, kept current by remap
	startLine int    // document line of the cell's first code line, kept current
	code      string // the code that ran (or is queued to run)
	state     string // queued, running or done
	exec      *contract.Execution
	gen       int         // kernel generation it ran in; an older one is stale
	diag      diagSpot    // where the error diagnostic goes
	stale     bool        // the cell's code is no longer the code that ran
	prev      *cellResult // what the cell showed before this run was queued
}

// rangeResult is the last run of a selection. It is dropped as soon as the
// selection's lines change.
type rangeResult struct {
	startLine int
	lines     []string // the document lines the selection covered
	exec      *contract.Execution
	diag      diagSpot // where the diagnostic goes
}

// results are a document's tracked results, valid for one document version.
type results struct {
	version int32 // the document version the results are mapped onto
	mapped  bool  // false: map again even if the version did not change
	cells   []*cellResult
	ranges  []*rangeResult
}

func (r *results) empty() bool { return len(r.cells) == 0 && len(r.ranges) == 0 }

// remap moves the results onto the cells of snapshot s (see cellResult) and
// reports whether anything a person sees changed (staleness, a dropped
// result). A result stays on its cell while that cell's code is the code
// that ran; else it moves to the nearest unclaimed cell with that code;
// else it stays where it was, marked stale.
func (r *results) remap(s *snapshot) bool {
	if r.mapped && r.version == s.version {
		return false
	}
	r.version, r.mapped = s.version, true
	if r.empty() {
		return false
	}
	all := s.Cells()
	changed := false
	isCode := func(i int) bool { return i >= 0 && i < len(all) && all[i].Kind == cells.Code }
	claimed := make(map[int]bool, len(r.cells))
	old := make([]int, len(r.cells))
	// to is the new index; -1 while unplaced, -2-i placed at i but stale.
	to := make([]int, len(r.cells))
	for j, c := range r.cells {
		old[j], to[j] = c.index, -1
	}
	for j, c := range r.cells { // in place, unchanged
		if isCode(c.index) && all[c.index].Code == c.code && !claimed[c.index] {
			claimed[c.index], to[j] = true, c.index
		}
	}
	for j, c := range r.cells { // moved with its code
		if to[j] >= 0 {
			continue
		}
		best := -1
		for i := range all {
			if !claimed[i] && isCode(i) && all[i].Code == c.code && (best < 0 || abs(i-c.index) < abs(best-c.index)) {
				best = i
			}
		}
		if best >= 0 {
			claimed[best], to[j] = true, best
		}
	}
	// The rest changed: each keeps its place relative to the nearest result
	// that was placed (cells inserted above shift it too), marked stale.
	order := make([]int, len(r.cells))
	for j := range order {
		order[j] = j
	}
	sort.Slice(order, func(a, b int) bool { return old[order[a]] < old[order[b]] })
	for k, j := range order {
		if to[j] >= 0 {
			continue
		}
		delta, found := 0, false
		for a := k - 1; a >= 0 && !found; a-- {
			if p := order[a]; to[p] >= 0 {
				delta, found = to[p]-old[p], true
			}
		}
		for a := k + 1; a < len(order) && !found; a++ {
			if p := order[a]; to[p] >= 0 {
				delta, found = to[p]-old[p], true
			}
		}
		if i := old[j] + delta; isCode(i) && !claimed[i] {
			claimed[i], to[j] = true, -2-i // placed, stale
		}
	}
	kept := r.cells[:0]
	for j, c := range r.cells {
		stale := false
		switch {
		case to[j] == -1:
			changed = true // its cell is gone
			continue
		case to[j] <= -2:
			c.index, stale = -2-to[j], true
		default:
			c.index = to[j]
		}
		if stale != c.stale {
			changed = true
		}
		c.stale = stale
		c.startLine = all[c.index].StartLine
		kept = append(kept, c)
	}
	clear(r.cells[len(kept):])
	r.cells = kept

	keptR := r.ranges[:0]
	for _, x := range r.ranges {
		if linesEqual(s, x.startLine, x.lines) {
			keptR = append(keptR, x)
		} else {
			changed = true
		}
	}
	clear(r.ranges[len(keptR):])
	r.ranges = keptR
	return changed
}

func linesEqual(s *snapshot, start int, lines []string) bool {
	if start+len(lines) > s.LineCount() {
		return false
	}
	for i, l := range lines {
		if s.Line(start+i) != l {
			return false
		}
	}
	return true
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// queue records that cell c is queued to run code, replacing what the cell
// showed before (as a notebook clears a cell's output when it runs again).
func (r *results) queue(c cells.Cell, gen int) *cellResult {
	rec := &cellResult{index: c.Index, startLine: c.StartLine, code: c.Code, state: stateQueued, gen: gen, diag: noDiag}
	for i, old := range r.cells {
		if old.index == c.Index {
			if old.state == stateDone {
				rec.prev = old
			} else {
				rec.prev = old.prev
			}
			r.cells[i] = rec
			return rec
		}
	}
	r.cells = append(r.cells, rec)
	return rec
}

// finish records a cell's finished run. It reports false when the result
// no longer belongs to the document (its cell was removed meanwhile).
func (r *results) finish(rec *cellResult, x *contract.Execution, diag diagSpot) bool {
	for _, c := range r.cells {
		if c == rec {
			c.state, c.exec, c.diag, c.prev = stateDone, x, diag, nil
			return true
		}
	}
	return false
}

// unqueue takes back a run that never happened (skipped or dropped): the
// cell shows its previous result again, moved to where the cell is now.
func (r *results) unqueue(rec *cellResult) {
	for i, c := range r.cells {
		if c != rec {
			continue
		}
		if p := rec.prev; p != nil {
			p.index, p.startLine = rec.index, rec.startLine
			r.cells[i] = p
			r.mapped = false // its staleness is computed against the text again
		} else {
			r.cells = append(r.cells[:i], r.cells[i+1:]...)
		}
		return
	}
}

// setRange records a selection's run, replacing one that started on the
// same line.
func (r *results) setRange(x *rangeResult) {
	for i, old := range r.ranges {
		if old.startLine == x.startLine {
			r.ranges[i] = x
			return
		}
	}
	r.ranges = append(r.ranges, x)
}

// showsError reports whether an execution's error deserves a diagnostic:
// not a KeyboardInterrupt a person asked for.
func showsError(x *contract.Execution) bool {
	return x != nil && x.Error != nil && x.Status != kernel.StatusInterrupted && x.Status != kernel.StatusOK
}

// ErrorMessage is an error in one line: "ZeroDivisionError: division by zero".
func ErrorMessage(e *contract.ExecutionError) string {
	if e.EValue == "" {
		return e.EName
	}
	return e.EName + ": " + strings.TrimSpace(e.EValue)
}

// diagnosticMessage is an error as its diagnostic reads: the message and
// its notes, without the terminal control sequences a message may hold
// (the output keeps them; an editor's problem list cannot show them).
func diagnosticMessage(e *contract.ExecutionError) string {
	msg := ErrorMessage(e)
	for _, n := range e.Notes {
		msg += "\n" + n
	}
	return StripANSI(msg)
}

// ansi matches ECMA-48 control sequences (CSI: colours, cursor moves),
// operating system commands (OSC: titles, links) and two-byte escapes.
var ansi = regexp.MustCompile(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]`)

// StripANSI removes terminal control sequences from s.
func StripANSI(s string) string {
	if !strings.ContainsAny(s, "\x1b\u009b") {
		return s
	}
	return ansi.ReplaceAllString(s, "")
}
