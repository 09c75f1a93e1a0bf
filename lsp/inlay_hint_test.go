package lsp_test

import (
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

type hint struct {
	Position pos    `json:"position"`
	Label    string `json:"label"`
	Tooltip  string `json:"tooltip"`
}

func hints(t *testing.T, c *lsptest.Client, uri string) []hint {
	t.Helper()
	var out []hint
	err := c.Call(testCtx(t), "textDocument/inlayHint", map[string]any{
		"textDocument": map[string]any{"uri": uri},
		"range":        map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": 100, "character": 0}},
	}, &out)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestInlayHints(t *testing.T) {
	c := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	uri := open(t, c, "hints.py", "# %%\nx = 40\nx + 2\n\n# %%\nlist(range(100))\n# %%\ny = 1\n")
	run(t, c, contract.CmdRunAll, map[string]any{"uri": uri})
	got := hints(t, c, uri)
	if len(got) != 2 || got[0].Label != "⇒ 42" || got[0].Position != (pos{2, 5}) {
		t.Fatalf("hints: %s", mustJSON(got))
	}
	if !strings.HasSuffix(got[1].Label, "…") || len([]rune(got[1].Label)) > 64 || !strings.HasSuffix(got[1].Tooltip, "99]") {
		t.Errorf("long value: %s", mustJSON(got[1]))
	}
	if _, _, err := c.Wait(ctx, 0, lsptest.Method("workspace/inlayHint/refresh")); err != nil {
		t.Errorf("no inlay hint refresh for a client that supports it: %v", err)
	}
	// A changed cell's value is no longer shown.
	if err := c.Change(ctx, uri, 2, lsptest.Edit(2, 4, 2, 5, "3")); err != nil {
		t.Fatal(err)
	}
	if got := hints(t, c, uri); len(got) != 1 || got[0].Position.Line != 5 {
		t.Errorf("after an edit: %s", mustJSON(got))
	}
}

// A cell and a selection that end at the same place show one hint: the
// value of the newer run.
func TestInlayHintOnePerPosition(t *testing.T) {
	c := start(t, lsptest.VSCode, nil)
	uri := open(t, c, "same.py", "# %%\nx = 40\nx + 2\n")
	run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 1})
	run(t, c, contract.CmdRunRange, map[string]any{"uri": uri, "range": map[string]any{
		"start": map[string]any{"line": 1, "character": 0}, "end": map[string]any{"line": 2, "character": 5}}})
	if got := hints(t, c, uri); len(got) != 1 || got[0].Label != "⇒ 42" {
		t.Fatalf("hints: %s", mustJSON(got))
	}
	run(t, c, contract.CmdRunRange, map[string]any{"uri": uri, "range": map[string]any{
		"start": map[string]any{"line": 2, "character": 0}, "end": map[string]any{"line": 2, "character": 5}}})
	run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 1})
	if got := hints(t, c, uri); len(got) != 1 || got[0].Label != "⇒ 42" {
		t.Fatalf("hints after a rerun: %s", mustJSON(got))
	}
}
