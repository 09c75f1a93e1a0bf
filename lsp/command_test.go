package lsp_test

import (
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

const fourCells = "a = 1\n# %%\nb = a + 1\nb\n# %%\n1/0\n# %%\nc = 3\n"

func TestRunAllStopsAfterError(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	uri := open(t, c, "runall.py", fourCells)
	ex := run(t, c, contract.CmdRunAll, lsptest.AllArg(uri))
	if len(ex) != 3 {
		t.Fatalf("got %d executions, want 3 (the cell after the error is skipped): %s", len(ex), mustJSON(ex))
	}
	if ex[0].Status != "ok" || ex[1].Result == nil || ex[1].Result.Text != "2" || ex[2].Status != "error" || ex[2].Error.EName != "ZeroDivisionError" {
		t.Errorf("executions: %s", mustJSON(ex))
	}
	for i, e := range ex {
		if e.ExecutionCount != i+1 {
			t.Errorf("execution %d has count %d", i, e.ExecutionCount)
		}
	}
	// The skipped cell was queued, then done without an execution.
	var skipped []*contract.ExecutionStateParams
	for _, s := range lsptest.ParamsOf[contract.ExecutionStateParams](c, contract.MethodExecutionState) {
		if s.Range.Start.Line == 7 {
			skipped = append(skipped, s)
		}
	}
	if len(skipped) != 2 || skipped[0].State != "queued" || skipped[1].State != "done" || skipped[1].Execution != nil {
		t.Errorf("skipped cell states: %s", mustJSON(skipped))
	}
	// The error's traceback line is a document line.
	if tb := ex[2].Error.Traceback; len(tb) != 1 || tb[0].Line != 5 {
		t.Errorf("traceback: %s", mustJSON(tb))
	}
}

func TestRunAboveAndBelow(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	uri := open(t, c, "abovebelow.py", fourCells)
	above := run(t, c, contract.CmdRunAbove, lsptest.LineArg(uri, 4))
	if len(above) != 2 || above[1].Result.Text != "2" {
		t.Fatalf("runAbove: %s", mustJSON(above))
	}
	below := run(t, c, contract.CmdRunBelow, lsptest.LineArg(uri, 4))
	if len(below) != 1 || below[0].Status != "error" {
		t.Fatalf("runBelow stops at the error: %s", mustJSON(below))
	}
	below = run(t, c, contract.CmdRunBelow, lsptest.LineArg(uri, 6))
	if len(below) != 1 || below[0].Status != "ok" || below[0].Range.Start.Line != 7 {
		t.Fatalf("runBelow from the last cell: %s", mustJSON(below))
	}
	if ex := run(t, c, contract.CmdRunAbove, lsptest.LineArg(uri, 0)); len(ex) != 0 {
		t.Fatalf("runAbove on the first cell: %s", mustJSON(ex))
	}
}

func TestRunCellNonCode(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	uri := open(t, c, "markdown.py", "\n\n# %% [markdown]\n# text\n# %%\nx = 1\n")
	for _, line := range []int{0, 2, 3} {
		if ex := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, line)); len(ex) != 0 {
			t.Errorf("line %d ran: %s", line, mustJSON(ex))
		}
	}
	if ex := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 5)); len(ex) != 1 || ex[0].Status != "ok" {
		t.Errorf("code cell: %s", mustJSON(ex))
	}
	if ex := run(t, c, contract.CmdRunBelow, lsptest.LineArg(uri, 0)); len(ex) != 1 {
		t.Errorf("runBelow above the first marker: %s", mustJSON(ex))
	}
}

func TestRunRangeDedentsAndMapsLines(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	text := "# %%\nif True:\n    a = 10\n    b = a * 2\n    b\n    c = 1/0\n"
	uri := open(t, c, "range.py", text)
	sel := func(sl, sc, el, ec int) *contract.RangeArg { return lsptest.RangeArg(uri, sl, sc, el, ec) }
	// From the indentation of line 2 (character 4) to the end of line 4.
	ex := run(t, c, contract.CmdRunRange, sel(2, 4, 4, 5))
	if len(ex) != 1 || ex[0].Status != "ok" || ex[0].Result == nil || ex[0].Result.Text != "20" {
		t.Fatalf("dedented selection: %s", mustJSON(ex))
	}
	if ex[0].Range != (contract.Range{Start: contract.Position{Line: 2, Character: 4}, End: contract.Position{Line: 4, Character: 5}}) {
		t.Errorf("range: %+v", ex[0].Range)
	}
	// From column 0: dedent handles it too; the error is on document line 5,
	// its diagnostic on `1/0` past the indentation the dedent took.
	ex = run(t, c, contract.CmdRunRange, sel(4, 0, 5, 11))
	if len(ex) != 1 || ex[0].Status != "error" || len(ex[0].Error.Traceback) == 0 || ex[0].Error.Traceback[len(ex[0].Error.Traceback)-1].Line != 5 {
		t.Fatalf("error in a selection: %s", mustJSON(ex))
	}
	d, _ := c.PublishedDiagnostics(uri)
	if len(d) != 1 || d[0].Range != (protocol.Range{Start: protocol.Position{Line: 5, Character: 8}, End: protocol.Position{Line: 5, Character: 11}}) ||
		lsptest.Plain(d[0].Message) != "ZeroDivisionError: division by zero" {
		t.Errorf("diagnostics: %s", mustJSON(d))
	}
	// A part of a line.
	ex = run(t, c, contract.CmdRunRange, sel(3, 8, 3, 13))
	if len(ex) != 1 || ex[0].Result == nil || ex[0].Result.Text != "20" {
		t.Errorf("part of a line: %s", mustJSON(ex))
	}
	// A blank selection runs nothing.
	if ex := run(t, c, contract.CmdRunRange, sel(0, 4, 0, 4)); len(ex) != 0 {
		t.Errorf("blank selection: %s", mustJSON(ex))
	}
	// A selection ending past the document (an editor's select-all ends on
	// the line after the last newline, or further) is clamped to it.
	ex = run(t, c, contract.CmdRunRange, sel(2, 4, 40, 99))
	if len(ex) != 1 || ex[0].Status != "error" || ex[0].Error.EName != "ZeroDivisionError" || ex[0].Range != (rng{Start: pos{Line: 2, Character: 4}, End: pos{Line: 6}}) {
		t.Errorf("past the end: %s", mustJSON(ex))
	}
	ex = run(t, c, contract.CmdRunRange, sel(3, 8, 3, 200))
	if len(ex) != 1 || ex[0].Result == nil || ex[0].Result.Text != "20" || ex[0].Range != (rng{Start: pos{Line: 3, Character: 8}, End: pos{Line: 3, Character: 13}}) {
		t.Errorf("past the end of a line: %s", mustJSON(ex))
	}
	// Wholly past the end: nothing to run.
	if ex := run(t, c, contract.CmdRunRange, sel(30, 0, 40, 0)); len(ex) != 0 {
		t.Errorf("after the end: %s", mustJSON(ex))
	}
}

func TestBadArguments(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	uri := open(t, c, "args.py", "x = 1\n")
	cases := []struct {
		cmd  string
		args []any
		want string // in the message
	}{
		{contract.CmdRunCell, []any{}, "takes one JSON object argument"},
		{contract.CmdRunCell, []any{map[string]any{}, map[string]any{}}, "got 2 arguments"},
		{contract.CmdRunCell, []any{"file:///x.py"}, "takes one JSON object argument"},
		{contract.CmdRunCell, []any{map[string]any{"line": 0}}, `missing "uri"`},
		{contract.CmdRunCell, []any{map[string]any{"uri": 7, "line": 0}}, `"uri" must be a string`},
		{contract.CmdRunCell, []any{map[string]any{"uri": "file:///nope.py", "line": 0}}, "no open document"},
		{contract.CmdRunCell, []any{map[string]any{"uri": uri}}, `missing "line"`},
		{contract.CmdRunCell, []any{map[string]any{"uri": uri, "line": -1}}, "whole number"},
		{contract.CmdRunCell, []any{map[string]any{"uri": uri, "line": 1.5}}, "whole number"},
		{contract.CmdRunCell, []any{map[string]any{"uri": uri, "line": "0"}}, "whole number"},
		{contract.CmdRunCell, []any{map[string]any{"uri": uri, "line": 9}}, "outside the document"},
		{contract.CmdRunCell, []any{map[string]any{"uri": uri, "line": 0, "wait": "yes"}}, `"wait" must be true or false`},
		{contract.CmdRunAbove, []any{map[string]any{"uri": uri}}, `missing "line"`},
		{contract.CmdRunAll, []any{map[string]any{}}, `missing "uri"`},
		{contract.CmdRunRange, []any{map[string]any{"uri": uri}}, `missing "range"`},
		{contract.CmdRunRange, []any{map[string]any{"uri": uri, "range": 3}}, `"range" must be an object`},
		{contract.CmdRunRange, []any{map[string]any{"uri": uri, "range": map[string]any{"start": map[string]any{"line": 0, "character": 0}}}}, `missing "range.end"`},
		{contract.CmdRunRange, []any{map[string]any{"uri": uri, "range": map[string]any{"start": map[string]any{"line": 0}, "end": map[string]any{"line": 0, "character": 1}}}}, `missing "range.start.character"`},
		{contract.CmdRunRange, []any{map[string]any{"uri": uri, "range": map[string]any{"start": map[string]any{"line": 0, "character": 3}, "end": map[string]any{"line": 0, "character": 1}}}}, "ends (0:1) before it starts"},
		{contract.CmdSetBackend, []any{map[string]any{"uri": uri}}, `missing "backend"`},
		{contract.CmdSetBackend, []any{map[string]any{"uri": uri, "backend": "docker"}}, `"backend" must be "auto", "monty" or "container"`},
		{contract.CmdInterrupt, []any{map[string]any{"uri": "file:///nope.py"}}, "no open document"},
		{contract.CmdKernelInfo, []any{nil}, "takes one JSON object argument"},
		{"backyard.nope", []any{map[string]any{}}, "unknown command"},
	}
	for _, tc := range cases {
		args := make([]protocol.LSPAny, len(tc.args))
		for i, a := range tc.args {
			args[i] = protocol.LSPAny(mustJSON(a))
		}
		err := c.ExecuteCommandParams(testCtx(t), &protocol.ExecuteCommandParams{Command: tc.cmd, Arguments: args}, nil)
		if rpcCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: got %v, want InvalidParams containing %q", tc.cmd, mustJSON(tc.args), err, tc.want)
		}
	}
	alive(t, c, uri)
}

// noWait is a with "wait": false.
func noWait[A interface {
	*contract.LineArg | *contract.AllArg | *contract.RangeArg
}](a A) A {
	switch a := any(a).(type) {
	case *contract.LineArg:
		a.Wait = lsptest.NoWait()
	case *contract.AllArg:
		a.Wait = lsptest.NoWait()
	case *contract.RangeArg:
		a.Wait = lsptest.NoWait()
	}
	return a
}

func TestRunWithoutWait(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	uri := open(t, c, "nowait.py", "# %%\nx = 1\n# %%\nx + 1\n")
	res, err := c.Run(testCtx(t), contract.CmdRunAll, noWait(lsptest.AllArg(uri)))
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Queued) != 2 || res.Executions != nil {
		t.Fatalf("wait false: %s", mustJSON(res))
	}
	last := waitDone(t, c, res.Queued[1])
	if last.Execution == nil || last.Execution.Result == nil || last.Execution.Result.Text != "2" {
		t.Fatalf("second execution: %s", mustJSON(last))
	}
	got := c.ExecutionStates(res.Queued[0])
	if len(got) != 3 || got[0].State != contract.PhaseQueued || got[1].State != contract.PhaseRunning || got[2].State != contract.PhaseDone {
		t.Errorf("states of the first execution: %s", mustJSON(got))
	}
}

// infoCommand sends backyard.kernelInfo (or another command answering a
// KernelInfo) for uri.
func infoCommand(t *testing.T, c *lsptest.Client, cmd string, arg any) *contract.KernelInfo {
	t.Helper()
	info, err := lsptest.ExecuteCommand[*contract.KernelInfo](testCtx(t), c, cmd, arg)
	if err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	return info
}

func variables(t *testing.T, c *lsptest.Client, uri string) []contract.Variable {
	t.Helper()
	vars, err := lsptest.ExecuteCommand[*contract.VariablesResult](testCtx(t), c, contract.CmdVariables, lsptest.URIArg(uri))
	if err != nil {
		t.Fatal(err)
	}
	return vars.Variables
}

func TestKernelInfoVariablesRestart(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	uri := open(t, c, "kernel.py", "x = 41\ny = 'hi'\n")
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))

	info := infoCommand(t, c, contract.CmdKernelInfo, lsptest.URIArg(uri))
	if info.URI != uri || info.Backend != contract.BackendMonty || info.State != contract.KernelIdle || info.ExecutionCount != 1 || info.Versions["monty"] == "" {
		t.Errorf("kernelInfo: %+v", info)
	}

	if vars := variables(t, c, uri); mustJSON(vars) != `[{"name":"x","type":"int","repr":"41"},{"name":"y","type":"str","repr":"'hi'"}]` {
		t.Errorf("variables: %s", mustJSON(vars))
	}

	if info := infoCommand(t, c, contract.CmdRestart, lsptest.URIArg(uri)); info.ExecutionCount != 0 {
		t.Errorf("after restart: %+v", info)
	}
	await(t, c, lsptest.Sent(protocol.MethodWindowShowMessage))
	ex := run(t, c, contract.CmdRunRange, lsptest.RangeArg(uri, 0, 0, 0, 1))
	if len(ex) != 1 || ex[0].Status != contract.StatusError || ex[0].Error.EName != "NameError" || ex[0].ExecutionCount != 1 {
		t.Errorf("after restart x must be gone and the count restart at 1: %s", mustJSON(ex))
	}
	if vars := variables(t, c, uri); len(vars) != 0 {
		t.Errorf("variables after restart: %s", mustJSON(vars))
	}
}

func TestSetBackend(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	uri := open(t, c, "backend.py", "x = 1\n")
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	info := infoCommand(t, c, contract.CmdSetBackend, &contract.BackendArg{URI: uri, Backend: contract.BackendMonty})
	if info.Backend != contract.BackendMonty || info.ExecutionCount != 0 {
		t.Errorf("setBackend result: %+v", info)
	}
	ex := run(t, c, contract.CmdRunRange, lsptest.RangeArg(uri, 0, 0, 0, 1))
	if len(ex) != 1 || ex[0].Status != contract.StatusError {
		t.Errorf("the old kernel's state survived setBackend: %s", mustJSON(ex))
	}
}

func interrupt(t *testing.T, c *lsptest.Client, uri string) bool {
	t.Helper()
	r, err := lsptest.ExecuteCommand[*contract.InterruptResult](testCtx(t), c, contract.CmdInterrupt, lsptest.URIArg(uri))
	if err != nil {
		t.Fatalf("interrupt: %v", err)
	}
	return r.Interrupted
}

// queue sends a run command with "wait": false and returns the one
// execution id it queued.
func queue(t *testing.T, c *lsptest.Client, cmd string, arg *contract.LineArg) string {
	t.Helper()
	res, err := c.Run(testCtx(t), cmd, noWait(arg))
	if err != nil || len(res.Queued) != 1 {
		t.Fatalf("%s: %v %s", cmd, err, mustJSON(res))
	}
	return res.Queued[0]
}

func TestInterruptKeepsState(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	uri := open(t, c, "interrupt.py", "x = 5\n# %%\nwhile True:\n    pass\n# %%\nx\n")
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	loop := queue(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 1))
	// Queue one more behind the loop: an interrupt drops it.
	behind := queue(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 4))
	await(t, c, lsptest.ExecutionPhase(loop, contract.PhaseRunning))
	if !interrupt(t, c, uri) {
		t.Fatal("interrupt: not interrupted")
	}
	done := waitDone(t, c, loop)
	if done.Execution == nil || done.Execution.Status != contract.StatusInterrupted {
		t.Fatalf("the loop: %s", mustJSON(done))
	}
	if dropped := waitDone(t, c, behind); dropped.Execution != nil {
		t.Errorf("the queued cell ran after the interrupt: %s", mustJSON(dropped))
	}
	ex := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 5))
	if len(ex) != 1 || ex[0].Result == nil || ex[0].Result.Text != "5" {
		t.Fatalf("state after interrupt: %s", mustJSON(ex))
	}
	if interrupt(t, c, uri) {
		t.Errorf("interrupting an idle kernel interrupted something")
	}
}

func TestCrashReportsAndStartsFresh(t *testing.T) {
	// A small heap and a huge recursion limit: deep recursion kills the
	// worker (out of memory), a crash.
	c := start(t, lsptest.VSCode, map[string]any{"backyard": map[string]any{"memory": 16, "recursionLimit": 100000000}})
	uri := open(t, c, "crash.py", "kept = 1\n# %%\ndef f(n):\n    return f(n + 1)\nf(0)\n# %%\nkept\n")
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	ex := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 1))
	if len(ex) != 1 || ex[0].Status != contract.StatusCrashed {
		t.Fatalf("%s", mustJSON(ex))
	}
	await(t, c, lsptest.ShownMessage(protocol.MessageTypeError, "crashed"))
	if s := status(lensesAt(t, c, uri)[0]); !strings.HasSuffix(s, "(stale)") {
		t.Errorf("results from before the crash should be stale: %q", s)
	}
	if s := status(lensesAt(t, c, uri)[1]); s != "[2] ✗ kernel crashed" {
		t.Errorf("crash status %q", s)
	}
	// (The execution count after a crash is the kernel's business.)
	ex = run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 5))
	if len(ex) != 1 || ex[0].Status != contract.StatusError || ex[0].Error.EName != "NameError" {
		t.Fatalf("the next run must start a fresh kernel: %s", mustJSON(ex))
	}
}

func TestSettingsApplyToNewKernels(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	loop := "while True:\n    pass\n"
	if err := c.ChangeConfiguration(testCtx(t), map[string]any{"backyard": map[string]any{"timeout": 0.3, "maxOutputBytes": -5}}); err != nil {
		t.Fatal(err)
	}
	await(t, c, lsptest.ShownMessage(protocol.MessageTypeWarning, "backyard.maxOutputBytes"))
	uri := open(t, c, "timeout.py", loop)
	if ex := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0)); len(ex) != 1 || ex[0].Status != contract.StatusTimeout {
		t.Fatalf("%s", mustJSON(ex))
	}
	if s := status(lensesAt(t, c, uri)[0]); s != "[1] ⏱ timed out" {
		t.Errorf("status %q", s)
	}
}

// A waiting run on an idle document runs on the read loop; a cell that
// keeps running must not hold the loop: a request sent while it runs is
// answered, and an interrupt sent after it stops it.
func TestLongRunLeavesTheReadLoop(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	ctx := testCtx(t)
	uri := open(t, c, "long.py", "x = 1\n# %%\nwhile True:\n    pass\n")
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0)) // the kernel is up and idle
	mark := c.Mark()
	res := make(chan []*contract.Execution, 1)
	go func() {
		r, err := c.Run(ctx, contract.CmdRunCell, lsptest.LineArg(uri, 2))
		if err != nil {
			t.Error(err)
			r = &contract.RunResult{}
		}
		res <- r.Executions
	}()
	await(t, c, lsptest.After(mark, lsptest.ExecutionPhase("", contract.PhaseRunning)))
	if _, err := c.CodeLens(ctx, uri); err != nil {
		t.Fatalf("codeLens while a cell runs: %v", err)
	}
	if !interrupt(t, c, uri) {
		t.Fatal("interrupt: not interrupted")
	}
	if ex := <-res; len(ex) != 1 || ex[0].Status != contract.StatusInterrupted {
		t.Fatalf("the interrupted run answered %s", mustJSON(ex))
	}
}
