package lsp_test

import (
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

func TestDiagnosticOnInnermostFrameOfTheCell(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	text := "# %%\ndef helper(n):\n    return 10 / n\n\n# %%\ndef f(n):\n    return helper(n)\n\nf(0)\n"
	uri := open(t, c, "frames.py", text)
	ex := run(t, c, contract.CmdRunAll, map[string]any{"uri": uri})
	if len(ex) != 2 || ex[1].Status != "error" {
		t.Fatalf("%s", mustJSON(ex))
	}
	// Frames: f(0) (line 8), return helper(n) (line 6), then helper's frame,
	// which is in another cell: line -1.
	tb := ex[1].Error.Traceback
	if len(tb) != 3 || tb[0].Line != 8 || tb[1].Line != 6 || tb[2].Line != -1 || tb[2].Name != "helper" {
		t.Fatalf("traceback: %s", mustJSON(tb))
	}
	d, _ := c.Diagnostics(uri)
	if len(d) != 1 || d[0].Line != 6 || d[0].StartChar != 4 || d[0].Source != "backyard" || d[0].Severity != 1 || d[0].Message != "ZeroDivisionError: division by zero" {
		t.Fatalf("diagnostics: %+v", d)
	}
}

func TestDiagnosticClearedByEditAndCleanRun(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	ctx := testCtx(t)
	uri := open(t, c, "clear.py", "# %%\nz\n# %%\nbad syntax here\n")
	run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 0})
	run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 2})
	d, _ := c.Diagnostics(uri)
	if len(d) != 2 || d[0].Message != "NameError: name 'z' is not defined" || d[0].Line != 1 || d[1].Line != 3 {
		t.Fatalf("diagnostics: %+v", d)
	}
	// Editing the second cell clears its diagnostic only.
	n := c.Len()
	if err := c.Change(ctx, uri, 2, lsptest.Edit(3, 0, 3, 15, "z = 1")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Wait(ctx, n, lsptest.Method("textDocument/publishDiagnostics")); err != nil {
		t.Fatal(err)
	}
	if d, _ := c.Diagnostics(uri); len(d) != 1 || d[0].Line != 1 {
		t.Fatalf("after the edit: %+v", d)
	}
	// Running the first cell clean (z is now defined) clears the other.
	run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 2})
	run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 0})
	if d, ok := c.Diagnostics(uri); !ok || len(d) != 0 {
		t.Fatalf("after clean runs: %+v", d)
	}
	// Closing the document clears them too.
	run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 2}) // fine
	if err := c.ChangeFull(ctx, uri, 3, "1/0\n"); err != nil {
		t.Fatal(err)
	}
	run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 0})
	n = c.Len()
	if err := c.CloseDoc(ctx, uri); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Wait(ctx, n, lsptest.Method("textDocument/publishDiagnostics")); err != nil {
		t.Fatal(err)
	}
	if d, _ := c.Diagnostics(uri); len(d) != 0 {
		t.Fatalf("after close: %+v", d)
	}
}
