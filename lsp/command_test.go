package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

// stateMsg is a decoded backyard/executionState.
type stateMsg struct {
	URI         string     `json:"uri"`
	ExecutionID string     `json:"executionId"`
	Range       rng        `json:"range"`
	State       string     `json:"state"`
	Execution   *execution `json:"execution"`
}

// states returns the executionState notifications for id, in order.
func states(c *lsptest.Client, id string) []stateMsg {
	var out []stateMsg
	for _, m := range c.Messages() {
		if m.Method != "backyard/executionState" {
			continue
		}
		var s stateMsg
		if m.Decode(&s) == nil && s.ExecutionID == id {
			out = append(out, s)
		}
	}
	return out
}

// waitDone waits for execution id to be done and returns its final state.
func waitDone(t *testing.T, c *lsptest.Client, id string) stateMsg {
	t.Helper()
	m, _, err := c.Wait(testCtx(t), 0, lsptest.ExecutionState(id, "done"))
	if err != nil {
		t.Fatalf("waiting for %s: %v", id, err)
	}
	var s stateMsg
	if err := m.Decode(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

const fourCells = "a = 1\n# %%\nb = a + 1\nb\n# %%\n1/0\n# %%\nc = 3\n"

func TestRunAllStopsAfterError(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	uri := open(t, c, "runall.py", fourCells)
	ex := run(t, c, contract.CmdRunAll, map[string]any{"uri": uri})
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
	var skipped []stateMsg
	for _, m := range c.Messages() {
		var s stateMsg
		if m.Method == "backyard/executionState" && m.Decode(&s) == nil && s.Range.Start.Line == 7 {
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
	above := run(t, c, contract.CmdRunAbove, map[string]any{"uri": uri, "line": 4})
	if len(above) != 2 || above[1].Result.Text != "2" {
		t.Fatalf("runAbove: %s", mustJSON(above))
	}
	below := run(t, c, contract.CmdRunBelow, map[string]any{"uri": uri, "line": 4})
	if len(below) != 1 || below[0].Status != "error" {
		t.Fatalf("runBelow stops at the error: %s", mustJSON(below))
	}
	below = run(t, c, contract.CmdRunBelow, map[string]any{"uri": uri, "line": 6})
	if len(below) != 1 || below[0].Status != "ok" || below[0].Range.Start.Line != 7 {
		t.Fatalf("runBelow from the last cell: %s", mustJSON(below))
	}
	if ex := run(t, c, contract.CmdRunAbove, map[string]any{"uri": uri, "line": 0}); len(ex) != 0 {
		t.Fatalf("runAbove on the first cell: %s", mustJSON(ex))
	}
}

func TestRunCellNonCode(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	uri := open(t, c, "markdown.py", "\n\n# %% [markdown]\n# text\n# %%\nx = 1\n")
	for _, line := range []int{0, 2, 3} {
		if ex := run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": line}); len(ex) != 0 {
			t.Errorf("line %d ran: %s", line, mustJSON(ex))
		}
	}
	if ex := run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 5}); len(ex) != 1 || ex[0].Status != "ok" {
		t.Errorf("code cell: %s", mustJSON(ex))
	}
	if ex := run(t, c, contract.CmdRunBelow, map[string]any{"uri": uri, "line": 0}); len(ex) != 1 {
		t.Errorf("runBelow above the first marker: %s", mustJSON(ex))
	}
}

func TestRunRangeDedentsAndMapsLines(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	text := "# %%\nif True:\n    a = 10\n    b = a * 2\n    b\n    c = 1/0\n"
	uri := open(t, c, "range.py", text)
	sel := func(sl, sc, el, ec int) map[string]any {
		return map[string]any{"uri": uri, "range": map[string]any{
			"start": map[string]any{"line": sl, "character": sc}, "end": map[string]any{"line": el, "character": ec}}}
	}
	// From the indentation of line 2 (character 4) to the end of line 4.
	ex := run(t, c, contract.CmdRunRange, sel(2, 4, 4, 5))
	if len(ex) != 1 || ex[0].Status != "ok" || ex[0].Result == nil || ex[0].Result.Text != "20" {
		t.Fatalf("dedented selection: %s", mustJSON(ex))
	}
	if ex[0].Range != (rng{pos{2, 4}, pos{4, 5}}) {
		t.Errorf("range: %+v", ex[0].Range)
	}
	// From column 0: dedent handles it too; the error is on document line 5.
	ex = run(t, c, contract.CmdRunRange, sel(4, 0, 5, 11))
	if len(ex) != 1 || ex[0].Status != "error" || len(ex[0].Error.Traceback) == 0 || ex[0].Error.Traceback[len(ex[0].Error.Traceback)-1].Line != 5 {
		t.Fatalf("error in a selection: %s", mustJSON(ex))
	}
	d, _ := c.Diagnostics(uri)
	if len(d) != 1 || d[0].Line != 5 || d[0].StartChar != 4 || d[0].Message != "ZeroDivisionError: division by zero" {
		t.Errorf("diagnostics: %+v", d)
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
	if len(ex) != 1 || ex[0].Status != "error" || ex[0].Error.EName != "ZeroDivisionError" || ex[0].Range != (rng{pos{2, 4}, pos{6, 0}}) {
		t.Errorf("past the end: %s", mustJSON(ex))
	}
	ex = run(t, c, contract.CmdRunRange, sel(3, 8, 3, 200))
	if len(ex) != 1 || ex[0].Result == nil || ex[0].Result.Text != "20" || ex[0].Range != (rng{pos{3, 8}, pos{3, 13}}) {
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
		err := c.Call(testCtx(t), "workspace/executeCommand", map[string]any{"command": tc.cmd, "arguments": tc.args}, nil)
		if rpcCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %s: got %v, want InvalidParams containing %q", tc.cmd, mustJSON(tc.args), err, tc.want)
		}
	}
	alive(t, c, uri)
}

func TestRunWithoutWait(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	uri := open(t, c, "nowait.py", "# %%\nx = 1\n# %%\nx + 1\n")
	var res runResult
	if err := c.Command(testCtx(t), contract.CmdRunAll, map[string]any{"uri": uri, "wait": false}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Queued) != 2 || res.Executions != nil {
		t.Fatalf("wait false: %s", mustJSON(res))
	}
	last := waitDone(t, c, res.Queued[1])
	if last.Execution == nil || last.Execution.Result == nil || last.Execution.Result.Text != "2" {
		t.Fatalf("second execution: %s", mustJSON(last))
	}
	got := states(c, res.Queued[0])
	if len(got) != 3 || got[0].State != "queued" || got[1].State != "running" || got[2].State != "done" {
		t.Errorf("states of the first execution: %s", mustJSON(got))
	}
}

// kernelInfo mirrors the kernelInfo command's result.
type kernelInfo struct {
	URI            string            `json:"uri"`
	Backend        string            `json:"backend"`
	Runtime        string            `json:"runtime"`
	State          string            `json:"state"`
	ExecutionCount int               `json:"executionCount"`
	Versions       map[string]string `json:"versions"`
}

func TestKernelInfoVariablesRestart(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	ctx := testCtx(t)
	uri := open(t, c, "kernel.py", "x = 41\ny = 'hi'\n")
	run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 0})

	var info kernelInfo
	if err := c.Command(ctx, contract.CmdKernelInfo, map[string]any{"uri": uri}, &info); err != nil {
		t.Fatal(err)
	}
	if info.URI != uri || info.Backend != "monty" || info.State != "idle" || info.ExecutionCount != 1 || info.Versions["monty"] == "" {
		t.Errorf("kernelInfo: %+v", info)
	}

	var vars struct {
		Variables []struct{ Name, Type, Repr string } `json:"variables"`
	}
	if err := c.Command(ctx, contract.CmdVariables, map[string]any{"uri": uri}, &vars); err != nil {
		t.Fatal(err)
	}
	if mustJSON(vars.Variables) != `[{"Name":"x","Type":"int","Repr":"41"},{"Name":"y","Type":"str","Repr":"'hi'"}]` {
		t.Errorf("variables: %s", mustJSON(vars.Variables))
	}

	if err := c.Command(ctx, contract.CmdRestart, map[string]any{"uri": uri}, &info); err != nil {
		t.Fatal(err)
	}
	if info.ExecutionCount != 0 {
		t.Errorf("after restart: %+v", info)
	}
	if _, _, err := c.Wait(ctx, 0, lsptest.Method("window/showMessage")); err != nil {
		t.Error("no window/showMessage for the restart")
	}
	ex := run(t, c, contract.CmdRunRange, map[string]any{"uri": uri, "range": map[string]any{
		"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 1}}})
	if len(ex) != 1 || ex[0].Status != "error" || ex[0].Error.EName != "NameError" || ex[0].ExecutionCount != 1 {
		t.Errorf("after restart x must be gone and the count restart at 1: %s", mustJSON(ex))
	}
	if err := c.Command(ctx, contract.CmdVariables, map[string]any{"uri": uri}, &vars); err != nil || len(vars.Variables) != 0 {
		t.Errorf("variables after restart: %v %s", err, mustJSON(vars))
	}
}

func TestSetBackend(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	ctx := testCtx(t)
	uri := open(t, c, "backend.py", "x = 1\n")
	run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 0})
	var info kernelInfo
	if err := c.Command(ctx, contract.CmdSetBackend, map[string]any{"uri": uri, "backend": "monty"}, &info); err != nil {
		t.Fatal(err)
	}
	if info.Backend != "monty" || info.ExecutionCount != 0 {
		t.Errorf("setBackend result: %+v", info)
	}
	var raw json.RawMessage
	ex := run(t, c, contract.CmdRunRange, map[string]any{"uri": uri, "range": map[string]any{
		"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 0, "character": 1}}})
	if len(ex) != 1 || ex[0].Status != "error" {
		t.Errorf("the old kernel's state survived setBackend: %s %s", mustJSON(ex), raw)
	}
}

func TestInterruptKeepsState(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	ctx := testCtx(t)
	uri := open(t, c, "interrupt.py", "x = 5\n# %%\nwhile True:\n    pass\n# %%\nx\n")
	run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 0})
	var q runResult
	if err := c.Command(ctx, contract.CmdRunCell, map[string]any{"uri": uri, "line": 1, "wait": false}, &q); err != nil {
		t.Fatal(err)
	}
	// Queue one more behind the loop: an interrupt drops it.
	var q2 runResult
	if err := c.Command(ctx, contract.CmdRunCell, map[string]any{"uri": uri, "line": 4, "wait": false}, &q2); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Wait(ctx, 0, lsptest.ExecutionState(q.Queued[0], "running")); err != nil {
		t.Fatal(err)
	}
	var ir struct{ Interrupted bool }
	if err := c.Command(ctx, contract.CmdInterrupt, map[string]any{"uri": uri}, &ir); err != nil || !ir.Interrupted {
		t.Fatalf("interrupt: %v %+v", err, ir)
	}
	done := waitDone(t, c, q.Queued[0])
	if done.Execution == nil || done.Execution.Status != "interrupted" {
		t.Fatalf("the loop: %s", mustJSON(done))
	}
	if dropped := waitDone(t, c, q2.Queued[0]); dropped.Execution != nil {
		t.Errorf("the queued cell ran after the interrupt: %s", mustJSON(dropped))
	}
	ex := run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 5})
	if len(ex) != 1 || ex[0].Result == nil || ex[0].Result.Text != "5" {
		t.Fatalf("state after interrupt: %s", mustJSON(ex))
	}
	var none struct{ Interrupted bool }
	if err := c.Command(ctx, contract.CmdInterrupt, map[string]any{"uri": uri}, &none); err != nil || none.Interrupted {
		t.Errorf("interrupting an idle kernel: %v %+v", err, none)
	}
}

func TestCrashReportsAndStartsFresh(t *testing.T) {
	// A small heap and a huge recursion limit: deep recursion kills the
	// worker (out of memory), a crash.
	c := start(t, lsptest.VSCode, map[string]any{"backyard": map[string]any{"memory": 16, "recursionLimit": 100000000}})
	ctx := testCtx(t)
	uri := open(t, c, "crash.py", "kept = 1\n# %%\ndef f(n):\n    return f(n + 1)\nf(0)\n# %%\nkept\n")
	run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 0})
	ex := run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 1})
	if len(ex) != 1 || ex[0].Status != "crashed" {
		t.Fatalf("%s", mustJSON(ex))
	}
	m, _, err := c.Wait(ctx, 0, lsptest.Method("window/showMessage"))
	var msg struct {
		Type    int
		Message string
	}
	if err != nil || m.Decode(&msg) != nil || msg.Type != 1 || !strings.Contains(msg.Message, "crashed") {
		t.Errorf("showMessage for the crash: %v %+v", err, msg)
	}
	if s := status(lensesAt(t, c, uri)[0]); !strings.HasSuffix(s, "(stale)") {
		t.Errorf("results from before the crash should be stale: %q", s)
	}
	if s := status(lensesAt(t, c, uri)[1]); s != "[2] ✗ kernel crashed" {
		t.Errorf("crash status %q", s)
	}
	// (The execution count after a crash is the kernel's business.)
	ex = run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 5})
	if len(ex) != 1 || ex[0].Status != "error" || ex[0].Error.EName != "NameError" {
		t.Fatalf("the next run must start a fresh kernel: %s", mustJSON(ex))
	}
}

func TestSettingsApplyToNewKernels(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	ctx := testCtx(t)
	loop := "while True:\n    pass\n"
	if err := c.Notify(ctx, "workspace/didChangeConfiguration", map[string]any{"settings": map[string]any{"backyard": map[string]any{"timeout": 0.3, "maxOutputBytes": -5}}}); err != nil {
		t.Fatal(err)
	}
	m, _, err := c.Wait(ctx, 0, lsptest.Method("window/showMessage"))
	var msg struct {
		Type    int
		Message string
	}
	if err != nil || m.Decode(&msg) != nil || msg.Type != 2 || !strings.Contains(msg.Message, "backyard.maxOutputBytes") {
		t.Errorf("warning for an invalid setting: %v %+v", err, msg)
	}
	uri := open(t, c, "timeout.py", loop)
	if ex := run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 0}); len(ex) != 1 || ex[0].Status != "timeout" {
		t.Fatalf("%s", mustJSON(ex))
	}
	if s := status(lensesAt(t, c, uri)[0]); s != "[1] ⏱ timed out" {
		t.Errorf("status %q", s)
	}
}
