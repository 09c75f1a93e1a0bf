package notebook

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/backyard-ls/backyard-ls/cells"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/pysrc"
)

// RunKind says what a run request runs.
type RunKind int

const (
	RunCell  RunKind = iota // the cell containing Line
	RunAbove                // every code cell above the cell containing Line
	RunBelow                // that cell and every code cell below it
	RunAll                  // every code cell
	RunRange                // exactly the text in Range, dedented
	RunCode                 // Code, which is not in the document's text (see code.go)
)

// RunRequest is one run request of a document.
type RunRequest struct {
	Kind  RunKind
	Line  int
	Range contract.Range
	// Command names the request in messages ("backyard.runCell").
	Command string
	// Code and Limits are RunCode's code and its per-run limit overrides.
	Code   string
	Limits kernel.Limits
	// Progress, when set, is called once the executions exist and before
	// they are told queued; it may start work-done progress whose cancel
	// interrupts the run. The progress ends with the run's last execution.
	Progress func(n int, cancel func()) Progress
}

// Run is the executions of one request, in order.
type Run struct {
	d     *Document
	execs []*execution
	// drain: no goroutine is draining the document's queue; the waiter (or
	// Detach) must.
	drain bool
}

// Start checks req against the document's text as it is now, queues its
// executions (each told queued) and returns them. Nothing runs until Wait
// or Detach. A line or range outside the document is a *contract.ArgError;
// a closed document gives ErrNotOpen.
func (d *Document) Start(req RunRequest) (*Run, error) {
	execs, err := d.prepare(req)
	if err != nil {
		return nil, err
	}
	r := &Run{d: d, execs: execs}
	if len(execs) == 0 {
		return r, nil
	}
	b := execs[0].batch
	b.pending = len(execs)
	if req.Progress != nil {
		if p := req.Progress(len(execs), r.Cancel); p != nil {
			b.onEnd = func() { p.End("") }
		}
	}
	jobs := make([]job, len(execs))
	for i, e := range execs {
		d.nb.executionState(e, contract.PhaseQueued, nil)
		jobs[i] = e
	}
	drain, err := d.sess.add(jobs...)
	if err != nil {
		for _, e := range execs {
			e.drop(d.sess)
		}
		return nil, ErrNotOpen
	}
	r.drain = drain
	return r, nil
}

// IDs are the ids of the run's executions.
func (r *Run) IDs() []string {
	ids := make([]string, len(r.execs))
	for i, e := range r.execs {
		ids[i] = e.id
	}
	return ids
}

// Detach lets the executions run with nobody waiting; their results come
// as Events.ExecutionState.
func (r *Run) Detach() {
	if r.drain {
		r.drain = false
		go r.d.sess.drain(nil)
	}
}

// Drains reports whether Wait runs the executions on the calling goroutine:
// the document's queue was idle, nothing runs before them.
func (r *Run) Drains() bool { return r.drain }

// Cancel interrupts the run: its running execution stops, its queued ones
// are dropped.
func (r *Run) Cancel() { r.d.sess.cancelExecutions(r.execs) }

// Wait waits for the run's executions and returns the records of those
// that ran (skipped and dropped ones are left out). When no goroutine is
// draining the document's queue, the executions run on the calling
// goroutine (one hand-off less per cell), and what is queued after them is
// handed on. Cancelling ctx is Cancel.
func (r *Run) Wait(ctx context.Context) []*contract.Execution {
	out := make([]*contract.Execution, 0, len(r.execs))
	if len(r.execs) == 0 {
		return out
	}
	stop := context.AfterFunc(ctx, r.Cancel)
	defer stop()
	if r.drain {
		r.drain = false
		r.d.sess.drain(r.execs[0].batch.ended)
	}
	for _, e := range r.execs {
		<-e.done
	}
	for _, e := range r.execs {
		if e.result != nil {
			out = append(out, e.result)
		}
	}
	return out
}

// prepare builds the executions of req from the document's current text.
func (d *Document) prepare(req RunRequest) ([]*execution, error) {
	if req.Kind == RunCode {
		return d.codeExecutions(req), nil
	}
	snap := d.snapshot()
	b := &batch{stopOnError: req.Kind == RunAll || req.Kind == RunAbove || req.Kind == RunBelow}
	if req.Kind == RunRange {
		if err := checkRange(req.Command, req.Range); err != nil {
			return nil, err
		}
		req.Range = clampRange(snap, req.Range)
		e := d.selectionExecution(snap, req.Range, b)
		if e == nil {
			return nil, nil
		}
		return []*execution{e}, nil
	}
	all := snap.Cells()
	var pick []cells.Cell
	if req.Kind == RunAll {
		pick = cells.CodeCells(all)
	} else {
		line := req.Line
		if n := snap.LineCount(); line < 0 || line >= n {
			return nil, argErr("%s: line %d is outside the document (its lines are 0 to %d)", req.Command, line, n-1)
		}
		at := cells.At(all, line)
		for _, c := range all {
			if c.Kind != cells.Code {
				continue
			}
			var take bool
			switch req.Kind {
			case RunCell:
				take = c.Index == at
			case RunAbove:
				take = at >= 0 && c.Index < at || at < 0 && c.EndLine <= line
			case RunBelow:
				take = at >= 0 && c.Index >= at || at < 0 && lensLine(c) > line
			}
			if take {
				pick = append(pick, c)
			}
		}
	}
	gen := d.sess.generation()
	execs := make([]*execution, len(pick))
	d.mu.Lock()
	d.results.remap(snap)
	for i := range pick {
		c := pick[i]
		e := d.newExecution(b)
		e.code, e.rng, e.startLine, e.cell, e.reqs = c.Code, CellRange(c), c.StartLine, &c, snap.Requirements()
		e.rec = d.results.queue(c, gen)
		execs[i] = e
	}
	d.mu.Unlock()
	return execs, nil
}

func argErr(format string, args ...any) error {
	return &contract.ArgError{Msg: fmt.Sprintf(format, args...)}
}

func checkRange(cmd string, r contract.Range) error {
	if r.End.Line < r.Start.Line || r.End.Line == r.Start.Line && r.End.Character < r.Start.Character {
		return argErr("%s: range ends (%d:%d) before it starts (%d:%d)", cmd, r.End.Line, r.End.Character, r.Start.Line, r.Start.Character)
	}
	return nil
}

// clampRange clamps r to the document, as LSP clamps positions: a
// position past the end of its line is the line's end, one past the last
// line the document's end (an editor's selection can end on a line the
// text does not have, e.g. after a trailing newline).
func clampRange(snap *snapshot, r contract.Range) contract.Range {
	last := snap.LineCount() - 1
	clamp := func(p contract.Position) contract.Position {
		if int(p.Line) > last {
			return contract.Position{Line: uint32(last), Character: uint32(utf16Len(snap.Line(last)))}
		}
		if n := uint32(utf16Len(snap.Line(int(p.Line)))); p.Character > n {
			p.Character = n
		}
		return p
	}
	return contract.Range{Start: clamp(r.Start), End: clamp(r.End)}
}

// selectionExecution builds the execution of the text in r: its lines are
// dedented (blank text before the start on its line counts as indentation),
// and code line 1 is document line r.Start.Line. A blank selection gives
// nil.
func (d *Document) selectionExecution(snap *snapshot, r contract.Range, b *batch) *execution {
	start := r.Start
	if prefix := snap.Text(contract.Range{Start: contract.Position{Line: start.Line}, End: start}); strings.TrimLeft(prefix, " \t") == "" {
		start.Character = 0
	}
	text := snap.Text(contract.Range{Start: start, End: r.End})
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if strings.TrimSpace(text) == "" {
		return nil
	}
	e := d.newExecution(b)
	e.code, e.rng, e.startLine = pysrc.Dedent(text), r, int(r.Start.Line)
	e.firstCol, e.margin = int(start.Character), len(pysrc.DedentMargin(text))
	for l := int(r.Start.Line); l <= int(r.End.Line); l++ {
		e.selLines = append(e.selLines, snap.Line(l))
	}
	return e
}

func (d *Document) newExecution(b *batch) *execution {
	e := &execution{id: d.nb.nextExecutionID(), doc: d, batch: b, done: make(chan struct{})}
	e.ctx, e.cancel = context.WithCancel(d.nb.life)
	return e
}

// --- the execution job ---

// run executes e on the document's kernel, streaming its output, then
// records the result (status, diagnostic, value) and reports it.
func (e *execution) run(s *session) {
	if e.batch.stopped() || e.ctx.Err() != nil {
		e.drop(s)
		return
	}
	nb := s.nb
	started := time.Now()
	k, gen, limit, err := s.kernelForRun()
	if err != nil {
		if !errors.Is(err, errDocumentClosed) {
			nb.ev.Message(Error, "backyard: "+s.cannotCreate(err).Error())
		}
		e.finish(s, kernelErrorRecord(e, s.configuredBackend(), err, time.Since(started)), noDiag, gen)
		return
	}
	e.doc.setState(e.rec, stateRunning)
	s.ran(e.id)
	nb.executionState(e, contract.PhaseRunning, nil)

	uri, id := e.doc.uri, e.id
	out := newOutputStream(limit, func(st kernel.Stream, text string) {
		nb.ev.Output(&contract.OutputParams{URI: uri, ExecutionID: id, Stream: st, Text: text})
	})
	s.setOutput(out)
	req := kernel.Request{Code: e.code, OnOutput: out.write, Requirements: e.reqs, Limits: e.limits}
	if f, ok := nb.ev.(FlushEvents); ok {
		req.OnSent = f.Flush
	}
	de, _ := nb.ev.(DisplayEvents)
	req.OnDisplay = func(d contract.Display, update, clear bool) {
		if de != nil && !d.IsPayload() { // a payload is no output: the record has it for the front end
			out.flush() // the output printed before it goes first
			p := &contract.DisplayParams{URI: uri, ExecutionID: id, Update: update, Clear: clear}
			if !clear {
				p.Display = &d
			}
			de.Display(p)
		}
		if !update {
			return
		}
		// An update reaches the displays of earlier cells too, as in Jupyter.
		for _, earlier := range e.doc.updateDisplays(id, d) {
			if de != nil {
				upd := d
				de.Display(&contract.DisplayParams{URI: uri, ExecutionID: earlier, Update: true, Display: &upd})
			}
		}
	}
	if in, ok := nb.ev.(InputEvents); ok && in.AnswersInput() {
		req.OnInput = func(ctx context.Context, prompt string, password bool) (string, error) {
			out.flush() // the prompt shows before the question
			return in.Input(ctx, &contract.InputParams{URI: uri, ExecutionID: id, Prompt: prompt, Password: password})
		}
	}
	res, err := k.Execute(e.ctx, req)
	s.setOutput(nil)
	out.close()

	var x *contract.Execution
	diag := noDiag
	if err != nil {
		x = kernelErrorRecord(e, s.configuredBackend(), err, time.Since(started))
		if e.ctx.Err() != nil || errors.Is(err, kernel.ErrClosed) {
			x.Status = kernel.StatusInterrupted
		} else {
			nb.ev.Message(Error, fmt.Sprintf("backyard: the kernel of %s cannot run code: %v", DisplayName(e.doc.uri), err))
		}
	} else {
		x = e.record(res)
		if x.Error != nil {
			diag = errorSpot(e.code, e.startLine, x.Error.Traceback)
		}
		if x.Status == kernel.StatusCrashed {
			s.newGeneration()
			gen = s.generation() // the crash itself is the newest fact
			nb.ev.Message(Error, fmt.Sprintf("backyard: the %s kernel of %s crashed (%s); the next run starts a fresh kernel", BackendTitle(contract.Backend(x.Backend)), DisplayName(e.doc.uri), ErrorMessage(x.Error)))
		}
	}
	e.finish(s, x, diag, gen)
}

// finish records a finished run and reports it: diagnostics first, then
// the done state, then the waiting request is released.
func (e *execution) finish(s *session, x *contract.Execution, diag diagSpot, gen int) {
	nb := s.nb
	e.result = x
	if x.Status != kernel.StatusOK {
		e.batch.fail()
	}
	d := e.doc
	hinted := x.Result != nil // the inlay hints change when a value comes or goes
	d.mu.Lock()
	if e.rec != nil {
		if p := e.rec.prev; p != nil && p.exec != nil && p.exec.Result != nil {
			hinted = true
		}
		e.rec.gen = gen
		if d.results.finish(e.rec, x, diag) {
			if _, ok := x.NextInput(); ok {
				e.batch.loaded(e.rec)
			}
		}
	} else if !e.untracked {
		d.results.setRange(&rangeResult{startLine: e.startLine, lines: e.selLines, exec: x, diag: diag})
	}
	d.mu.Unlock()
	nb.ev.Diagnostics(d)
	nb.executionState(e, contract.PhaseDone, x)
	s.showEdited(x)
	e.end()
	nb.ev.Refresh(hinted)
}

// showEdited has the editor open the files the run's edit_magic payloads
// name (IPython's %edit), each resolved against the kernel's folder; one
// outside the folders the kernel sees is refused.
func (s *session) showEdited(x *contract.Execution) {
	se, ok := s.nb.ev.(ShowEvents)
	if !ok {
		return
	}
	s.mu.Lock()
	dir, roots := s.dir, s.roots
	s.mu.Unlock()
	for i := range x.Displays {
		file, line, ok := x.Displays[i].Edit()
		if !ok || file == "" {
			continue
		}
		if !filepath.IsAbs(file) {
			file = filepath.Join(dir, file)
		}
		file = filepath.Clean(file)
		if !slices.ContainsFunc(roots, func(r string) bool { return within(realPath(file), realPath(r)) }) {
			s.nb.ev.Message(Warning, fmt.Sprintf("backyard: %%edit names %s, outside the folders the kernel of %s sees: it is not opened", file, DisplayName(s.doc.uri)))
			continue
		}
		se.Show(s.doc.uri, file, line)
	}
}

// drop ends an execution that never ran; its cell shows what it showed
// before it was queued.
func (e *execution) drop(s *session) {
	if e.rec != nil {
		e.doc.mu.Lock()
		e.doc.results.unqueue(e.rec)
		e.doc.mu.Unlock()
	}
	s.nb.executionState(e, contract.PhaseDone, nil)
	e.end()
	s.nb.ev.Refresh(false)
}

// end releases the waiting request and, with the batch's last execution,
// runs the batch's end.
func (e *execution) end() {
	e.ended = true
	e.cancel()
	close(e.done)
	e.batch.mu.Lock()
	e.batch.pending--
	last := e.batch.pending == 0
	loads := e.batch.loads
	e.batch.mu.Unlock()
	if !last {
		return
	}
	if len(loads) > 0 {
		e.doc.replaceLoaded(loads)
	}
	if e.batch.onEnd != nil {
		e.batch.onEnd()
	}
}

// replaceLoaded has the editor put the next input each of cells set (with
// replace) in place of the cell's code, as Jupyter's front end replaces
// the cell. The edits of a run's cells go together, against one version
// of the text. A cell whose code is no longer the code that ran keeps its
// code (an edit made meanwhile is kept); its header and the blank lines
// after its code stay. The text becomes the cell's code, so its final line
// break goes.
func (d *Document) replaceLoaded(cells []*cellResult) {
	ee, ok := d.nb.ev.(EditEvents)
	if !ok {
		return
	}
	d.mu.Lock()
	snap := d.snapshotLocked()
	d.results.remap(snap)
	all := snap.Cells()
	var edits []TextEdit
	for _, rec := range cells {
		text, ok := rec.exec.NextInput()
		if !ok || rec.stale || !slices.Contains(d.results.cells, rec) || rec.index >= len(all) || all[rec.index].Code != rec.code {
			continue
		}
		c := all[rec.index]
		edits = append(edits, TextEdit{
			Range: contract.Range{Start: contract.Position{Line: uint32(c.StartLine)}, End: contract.Position{Line: uint32(c.End.Line), Character: uint32(c.End.Character)}},
			Text:  strings.TrimSuffix(text, "\n"),
		})
	}
	d.mu.Unlock()
	if len(edits) > 0 {
		ee.Edit(d.uri, snap.version, edits)
	}
}

// setState updates a cell's run state (queued → running).
func (d *Document) setState(rec *cellResult, state string) {
	if rec == nil {
		return
	}
	d.mu.Lock()
	rec.state = state
	d.mu.Unlock()
}

func (nb *Notebook) executionState(e *execution, state contract.ExecutionPhase, x *contract.Execution) {
	nb.ev.ExecutionState(&contract.ExecutionStateParams{URI: e.doc.uri, ExecutionID: e.id, Range: e.rng, State: state, Execution: x})
}

// DisplayName is a uri's last path element, for messages.
func DisplayName(uri string) string {
	if i := strings.LastIndexByte(uri, '/'); i >= 0 && i+1 < len(uri) {
		return uri[i+1:]
	}
	return uri
}

// cannotCreate says that no kernel could be made for the document.
func (s *session) cannotCreate(err error) error {
	b := s.configuredBackend()
	kind := "a " + BackendTitle(b) + " kernel"
	if b == contract.BackendAuto {
		kind = "an auto kernel"
	}
	return fmt.Errorf("cannot create %s for %s: %w", kind, DisplayName(s.doc.uri), err)
}

// BackendTitle names a backend for a person.
func BackendTitle(b contract.Backend) string {
	switch b {
	case contract.BackendMonty:
		return "Monty"
	case contract.BackendContainer:
		return "container"
	}
	return string(b)
}
