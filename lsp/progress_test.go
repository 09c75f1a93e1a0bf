package lsp_test

import (
	"slices"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

// progressKinds returns the kind and title of each $/progress value
// received, in order, and their tokens.
func progressOf(c *lsptest.Client) (kinds, titles, tokens []string) {
	for _, p := range lsptest.ParamsOf[protocol.ProgressParams](c, protocol.MethodProgress) {
		var v protocol.WorkDoneProgressBegin // kind and title; end has only the kind
		if err := protocol.Unmarshal(p.Value, &v); err != nil {
			continue
		}
		kinds, titles, tokens = append(kinds, v.Kind), append(titles, v.Title), append(tokens, lsptest.TokenString(p.Token))
	}
	return kinds, titles, tokens
}

func TestKernelStartProgress(t *testing.T) {
	c := start(t, lsptest.VSCode, nil)
	uri := open(t, c, "progress.py", "x = 1\n")
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	await(t, c, lsptest.CompletedWork("Starting Monty kernel"))
	if n := c.Requests(protocol.MethodWindowWorkDoneProgressCreate); n != 1 {
		t.Errorf("%d window/workDoneProgress/create, want one", n)
	}
	kinds, titles, tokens := progressOf(c)
	if !slices.Equal(kinds, []string{"begin", "end"}) || titles[0] != "Starting Monty kernel" || tokens[1] != tokens[0] {
		t.Errorf("progress: %v %q %v", kinds, titles, tokens)
	}
	if w, _ := c.WorkDone(tokens[0]); !w.Created {
		t.Errorf("the progress token was not created with window/workDoneProgress/create: %+v", w)
	}

	// Without window.workDoneProgress: no create, no progress.
	quiet := start(t, lsptest.Capabilities{}, nil)
	uri = open(t, quiet, "progress.py", "x = 1\n")
	run(t, quiet, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	if kinds, _, _ := progressOf(quiet); quiet.Requests(protocol.MethodWindowWorkDoneProgressCreate) != 0 || len(kinds) != 0 {
		t.Errorf("progress sent to a client without window.workDoneProgress")
	}
}

func TestWorkDoneProgressCancelInterrupts(t *testing.T) {
	c := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	uri := open(t, c, "cancel.py", "x = 1\n# %%\nwhile True:\n    pass\n")
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	mark := c.Mark()
	res := make(chan *contract.RunResult, 1)
	errs := make(chan error, 1)
	go func() {
		var r *contract.RunResult
		arg, _ := protocol.Marshal(lsptest.LineArg(uri, 1))
		err := c.ExecuteCommandParams(ctx, &protocol.ExecuteCommandParams{
			WorkDoneProgressParams: protocol.WorkDoneProgressParams{WorkDoneToken: protocol.String("run-1")},
			Command:                contract.CmdRunCell, Arguments: []protocol.LSPAny{arg}}, &r)
		errs <- err
		res <- r
	}()
	await(t, c, lsptest.Progress("run-1", false), lsptest.After(mark, lsptest.ExecutionPhase("", contract.PhaseRunning)))
	if err := c.Server().WorkDoneProgressCancel(ctx, &protocol.WorkDoneProgressCancelParams{Token: protocol.String("run-1")}); err != nil {
		t.Fatal(err)
	}
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	r := <-res
	if len(r.Executions) != 1 || r.Executions[0].Status != contract.StatusInterrupted {
		t.Fatalf("%s", mustJSON(r))
	}
	await(t, c, lsptest.Progress("run-1", true))
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
				var s contract.ExecutionStateParams
				running = protocol.Unmarshal(n.Params(), &s) == nil && s.State == contract.PhaseRunning
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
	var res contract.RunResult
	if err := protocol.Unmarshal(resp.Result(), &res); err != nil || len(res.Executions) != 1 || res.Executions[0].Status != contract.StatusInterrupted {
		t.Fatalf("cancelled run answered %s (%v)", resp.Result(), err)
	}
}
