package lsp

import (
	"context"
	"errors"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/cells"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/pysrc"
)

// runResult answers a run command: the executions that ran, in order.
// Executions that never ran (skipped after a failure in runAll, runAbove or
// runBelow, dropped by an interrupt) are left out.
type runResult struct {
	Executions []*Execution `json:"executions"`
}

// queuedResult answers a run command sent with "wait": false: the ids of
// the executions queued; their results come as backyard/executionState.
type queuedResult struct {
	Queued []string `json:"queued"`
}

// run handles the run commands. It snapshots the document, queues one
// execution per cell (or the selection) and, unless "wait" is false, waits
// for them.
//
// Cancelling the request ($/cancelRequest, or window/workDoneProgress/cancel
// of its workDoneToken) interrupts its running execution and drops its
// queued ones; the request still gets its normal answer, with the
// interrupted execution (status "interrupted") and without the dropped ones.
func (s *server) run(ctx context.Context, a *cmdArgs, token protocol.ProgressToken) (any, error) {
	wait, err := a.wait()
	if err != nil {
		jsonrpc2.Async(ctx)
		return nil, err
	}
	execs, err := s.prepareRun(a)
	if err != nil {
		jsonrpc2.Async(ctx)
		return nil, err
	}
	if len(execs) == 0 {
		jsonrpc2.Async(ctx)
		if !wait {
			return &queuedResult{Queued: []string{}}, nil
		}
		return &runResult{Executions: []*Execution{}}, nil
	}
	d := execs[0].doc
	b := execs[0].batch
	b.pending = len(execs)
	if wait {
		// A request's workDoneToken lives until its response: no progress
		// on it when the response comes at once.
		b.progress = s.clientProgress(token, runTitle(a.cmd, len(execs)), func() { d.sess.cancelExecutions(execs) })
	}

	jobs := make([]job, len(execs))
	for i, e := range execs {
		s.executionState(e, stateQueued, nil)
		jobs[i] = e
	}
	drain, err := d.sess.add(jobs...)
	if err != nil {
		for _, e := range execs {
			e.drop(d.sess)
		}
		jsonrpc2.Async(ctx)
		return nil, requestFailed(err)
	}
	if !wait {
		if drain {
			go d.sess.drain(nil)
		}
		ids := make([]string, len(execs))
		for i, e := range execs {
			ids[i] = e.id
		}
		jsonrpc2.Async(ctx)
		return &queuedResult{Queued: ids}, nil
	}
	jsonrpc2.Async(ctx)

	stop := context.AfterFunc(ctx, func() { d.sess.cancelExecutions(execs) })
	defer stop()
	if drain {
		d.sess.drain(b.ended)
	}
	for _, e := range execs {
		<-e.done
	}
	res := &runResult{Executions: make([]*Execution, 0, len(execs))}
	for _, e := range execs {
		if e.result != nil {
			res.Executions = append(res.Executions, e.result)
		}
	}
	return res, nil
}

func runTitle(cmd string, n int) string {
	if cmd == CmdRunRange {
		return "Running selection"
	}
	if n == 1 {
		return "Running cell"
	}
	return "Running cells"
}

// prepareRun validates a run command's argument and builds its executions
// from the document's current text.
func (s *server) prepareRun(a *cmdArgs) ([]*execution, error) {
	d, err := s.document(a)
	if err != nil {
		return nil, err
	}
	snap := d.snapshot()
	b := &batch{stopOnError: a.cmd == CmdRunAll || a.cmd == CmdRunAbove || a.cmd == CmdRunBelow}

	if a.cmd == CmdRunRange {
		r, err := a.rng()
		if err != nil {
			return nil, err
		}
		if err := checkRange(a.cmd, snap, r); err != nil {
			return nil, err
		}
		e := s.selectionExecution(d, snap, r, b)
		if e == nil {
			return nil, nil
		}
		return []*execution{e}, nil
	}

	all := snap.Cells()
	var pick []cells.Cell
	if a.cmd == CmdRunAll {
		pick = cells.CodeCells(all)
	} else {
		line, err := a.line()
		if err != nil {
			return nil, err
		}
		if n := snap.LineCount(); line >= n {
			return nil, invalidParams("%s: line %d is outside the document (its lines are 0 to %d)", a.cmd, line, n-1)
		}
		at := cells.At(all, line)
		for _, c := range all {
			if c.Kind != cells.Code {
				continue
			}
			var take bool
			switch a.cmd {
			case CmdRunCell:
				take = c.Index == at
			case CmdRunAbove:
				take = at >= 0 && c.Index < at || at < 0 && c.EndLine <= line
			case CmdRunBelow:
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
		e := s.newExecution(d, b)
		e.code, e.rng, e.startLine, e.cell, e.reqs = c.Code, cellRange(c), c.StartLine, &c, snap.Requirements()
		e.rec = d.results.queue(c, gen)
		execs[i] = e
	}
	d.mu.Unlock()
	return execs, nil
}

func checkRange(cmd string, snap *snapshot, r protocol.Range) error {
	n := snap.LineCount()
	if int(r.Start.Line) >= n || int(r.End.Line) >= n {
		return invalidParams("%s: range %d:%d-%d:%d is outside the document (its lines are 0 to %d)", cmd, r.Start.Line, r.Start.Character, r.End.Line, r.End.Character, n-1)
	}
	if r.End.Line < r.Start.Line || r.End.Line == r.Start.Line && r.End.Character < r.Start.Character {
		return invalidParams("%s: range ends (%d:%d) before it starts (%d:%d)", cmd, r.End.Line, r.End.Character, r.Start.Line, r.Start.Character)
	}
	return nil
}

// selectionExecution builds the execution of the text in r: its lines are
// dedented (blank text before the start on its line counts as indentation),
// and code line 1 is document line r.Start.Line. A blank selection gives
// nil.
func (s *server) selectionExecution(d *document, snap *snapshot, r protocol.Range, b *batch) *execution {
	start := r.Start
	if prefix := snap.Text(protocol.Range{Start: protocol.Position{Line: start.Line}, End: start}); strings.TrimLeft(prefix, " \t") == "" {
		start.Character = 0
	}
	text := snap.Text(protocol.Range{Start: start, End: r.End})
	text = strings.ReplaceAll(text, "\r\n", "\n")
	if strings.TrimSpace(text) == "" {
		return nil
	}
	e := s.newExecution(d, b)
	e.code, e.rng, e.startLine = pysrc.Dedent(text), r, int(r.Start.Line)
	for l := int(r.Start.Line); l <= int(r.End.Line); l++ {
		e.selLines = append(e.selLines, snap.Line(l))
	}
	return e
}

func (s *server) newExecution(d *document, b *batch) *execution {
	e := &execution{id: s.nextExecutionID(), doc: d, batch: b, done: make(chan struct{})}
	e.ctx, e.cancel = context.WithCancel(s.ctx)
	return e
}

func (s *session) generation() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gen
}

// --- the execution job ---

// run executes e on the document's kernel, streaming its output, then
// records the result (status lens, diagnostic, inlay hint) and reports it.
func (e *execution) run(s *session) {
	if e.batch.stopped() || e.ctx.Err() != nil {
		e.drop(s)
		return
	}
	srv := s.srv
	started := time.Now()
	k, gen, limit, err := s.kernelForRun()
	if err != nil {
		if !errors.Is(err, errDocumentClosed) {
			srv.showMessage(protocol.MessageTypeError, "backyard: cannot create a %s kernel for %s: %v", s.configuredBackend(), displayName(e.doc.uri), err)
		}
		e.finish(s, kernelErrorExecution(e, s.configuredBackend(), err, time.Since(started)), -1, gen)
		return
	}
	e.doc.setState(e.rec, stateRunning)
	srv.executionState(e, stateRunning, nil)
	// Show "running…" only for cells that take a while: most are done
	// before a refreshed lens could be drawn.
	if srv.clientCaps().codeLensRefresh {
		t := time.AfterFunc(runningLensDelay, srv.refreshLenses)
		defer t.Stop()
	}

	uri, id := e.doc.uri, e.id
	out := newOutputStream(limit, func(st kernel.Stream, text string) {
		srv.notify(methodOutput, &outputParams{URI: uri, ExecutionID: id, Stream: st, Text: text})
	})
	s.setOutput(out)
	res, err := k.Execute(e.ctx, kernel.Request{Code: e.code, OnOutput: out.write, Requirements: e.reqs})
	s.setOutput(nil)
	out.close()

	var x *Execution
	diagLine := -1
	if err != nil {
		x = kernelErrorExecution(e, s.configuredBackend(), err, time.Since(started))
		if e.ctx.Err() != nil || errors.Is(err, kernel.ErrClosed) {
			x.Status = kernel.StatusInterrupted
		} else {
			srv.showMessage(protocol.MessageTypeError, "backyard: the kernel of %s cannot run code: %v", displayName(e.doc.uri), err)
		}
	} else {
		x = newExecution(e, res)
		if res.Error != nil {
			diagLine = errorLine(e.code, res.Error.Traceback)
		}
		if x.Status == kernel.StatusCrashed {
			s.newGeneration()
			gen = s.generation() // the crash itself is the newest fact
			srv.showMessage(protocol.MessageTypeError, "backyard: the %s kernel of %s crashed (%s); the next run starts a fresh kernel", backendTitle(x.Backend), displayName(e.doc.uri), errorMessage(x.Error))
		}
	}
	e.finish(s, x, diagLine, gen)
}

func (s *session) setOutput(out *outputStream) {
	s.mu.Lock()
	s.out = out
	s.mu.Unlock()
}

// kernelForRun returns the kernel, its generation and the output limit.
func (s *session) kernelForRun() (kernel.Kernel, int, int, error) {
	k, gen, err := s.kernel()
	if err != nil {
		return nil, gen, 0, err
	}
	s.mu.Lock()
	limit := s.maxOutput
	s.mu.Unlock()
	return k, gen, limit, nil
}

// finish records a finished run and reports it: diagnostics first, then
// backyard/executionState done, then the waiting request is released.
func (e *execution) finish(s *session, x *Execution, diagLine, gen int) {
	srv := s.srv
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
		d.results.finish(e.rec, x, diagLine)
	} else {
		d.results.setRange(&rangeResult{startLine: e.startLine, lines: e.selLines, exec: x, diagLine: diagLine})
	}
	d.mu.Unlock()
	srv.publishDiagnostics(d)
	srv.executionState(e, stateDone, x)
	e.end()
	srv.refreshLenses()
	if hinted {
		srv.refreshInlayHints()
	}
}

// runningLensDelay is how long a cell runs before its lens shows it.
const runningLensDelay = 200 * time.Millisecond

// drop ends an execution that never ran; its cell shows what it showed
// before it was queued.
func (e *execution) drop(s *session) {
	if e.rec != nil {
		e.doc.mu.Lock()
		e.doc.results.unqueue(e.rec)
		e.doc.mu.Unlock()
	}
	s.srv.executionState(e, stateDone, nil)
	e.end()
	s.srv.refreshLenses()
}

// end releases the waiting request and, with the batch's last execution,
// ends its work-done progress.
func (e *execution) end() {
	e.ended = true
	e.cancel()
	close(e.done)
	e.batch.mu.Lock()
	e.batch.pending--
	last := e.batch.pending == 0
	e.batch.mu.Unlock()
	if last {
		e.batch.progress.end("")
	}
}

// setState updates a cell's run state (queued → running).
func (d *document) setState(rec *cellResult, state string) {
	if rec == nil {
		return
	}
	d.mu.Lock()
	rec.state = state
	d.mu.Unlock()
}
