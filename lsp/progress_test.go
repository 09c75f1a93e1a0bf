package lsp_test

import (
	"encoding/json"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

type progress struct {
	Token any `json:"token"`
	Value struct {
		Kind  string `json:"kind"`
		Title string `json:"title"`
	} `json:"value"`
}

func progressOf(c *lsptest.Client) []progress {
	var out []progress
	for _, m := range c.Messages() {
		var p progress
		if m.Method == "$/progress" && m.Decode(&p) == nil {
			out = append(out, p)
		}
	}
	return out
}

func TestKernelStartProgress(t *testing.T) {
	c := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	uri := open(t, c, "progress.py", "x = 1\n")
	run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 0})
	if _, _, err := c.Wait(ctx, 0, func(m lsptest.Message) bool {
		var p progress
		return m.Method == "$/progress" && m.Decode(&p) == nil && p.Value.Kind == "end"
	}); err != nil {
		t.Fatal(err)
	}
	if requests(c, "window/workDoneProgress/create") != 1 {
		t.Errorf("want one window/workDoneProgress/create")
	}
	p := progressOf(c)
	if len(p) != 2 || p[0].Value.Kind != "begin" || p[0].Value.Title != "Starting Monty kernel" || p[1].Token != p[0].Token {
		t.Errorf("progress: %s", mustJSON(p))
	}

	// Without window.workDoneProgress: no create, no progress.
	quiet := start(t, lsptest.Capabilities{}, nil)
	uri = open(t, quiet, "progress.py", "x = 1\n")
	run(t, quiet, contract.CmdRunCell, map[string]any{"uri": uri, "line": 0})
	if n := requests(quiet, "window/workDoneProgress/create"); n != 0 || len(progressOf(quiet)) != 0 {
		t.Errorf("progress sent to a client without window.workDoneProgress")
	}
}

func TestWorkDoneProgressCancelInterrupts(t *testing.T) {
	c := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	uri := open(t, c, "cancel.py", "x = 1\n# %%\nwhile True:\n    pass\n")
	run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 0})
	n := c.Len()
	res := make(chan runResult, 1)
	errs := make(chan error, 1)
	go func() {
		var r runResult
		err := c.Call(ctx, "workspace/executeCommand", map[string]any{
			"command": contract.CmdRunCell, "arguments": []any{map[string]any{"uri": uri, "line": 1}}, "workDoneToken": "run-1"}, &r)
		errs <- err
		res <- r
	}()
	if _, _, err := c.Wait(ctx, 0, func(m lsptest.Message) bool {
		var p progress
		return m.Method == "$/progress" && m.Decode(&p) == nil && p.Token == "run-1" && p.Value.Kind == "begin"
	}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Wait(ctx, n, lsptest.ExecutionState("", "running")); err != nil {
		t.Fatal(err)
	}
	if err := c.Notify(ctx, "window/workDoneProgress/cancel", map[string]any{"token": "run-1"}); err != nil {
		t.Fatal(err)
	}
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	r := <-res
	if len(r.Executions) != 1 || r.Executions[0].Status != "interrupted" {
		t.Fatalf("%s", mustJSON(r))
	}
	if _, _, err := c.Wait(ctx, 0, func(m lsptest.Message) bool {
		var p progress
		return m.Method == "$/progress" && m.Decode(&p) == nil && p.Token == "run-1" && p.Value.Kind == "end"
	}); err != nil {
		t.Fatal(err)
	}
}

// A cancelled run command still answers: with its executions, the running
// one interrupted (not with RequestCancelled).
func TestCancelRequestInterrupts(t *testing.T) {
	r := newRaw(t)
	r.send(call(1, "initialize", initParams))
	r.response(1)
	r.send(frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///c.py","languageId":"python","version":1,"text":"while True:\n    pass\n"}}}`))
	r.send(call(2, "workspace/executeCommand", `{"command":"backyard.runCell","arguments":[{"uri":"file:///c.py","line":0}]}`))
	ctx := testCtx(t)
	for running := false; !running; {
		select {
		case m := <-r.msgs:
			if n, ok := m.(*jsonrpc2.Notification); ok && n.Method() == "backyard/executionState" {
				var s stateMsg
				running = json.Unmarshal(n.Params(), &s) == nil && s.State == "running"
			}
		case <-ctx.Done():
			t.Fatal(ctx.Err())
		}
	}
	r.send(frame(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":2}}`))
	resp := r.response(2)
	if resp.Err() != nil {
		t.Fatalf("cancelled run: %v", resp.Err())
	}
	var res runResult
	if err := json.Unmarshal(resp.Result(), &res); err != nil || len(res.Executions) != 1 || res.Executions[0].Status != "interrupted" {
		t.Fatalf("cancelled run answered %s (%v)", resp.Result(), err)
	}
}
