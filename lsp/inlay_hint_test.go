package lsp_test

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

func hints(t *testing.T, c *lsptest.Client, uri string) []protocol.InlayHint {
	t.Helper()
	out, err := c.InlayHint(testCtx(t), uri, 100)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func TestInlayHints(t *testing.T) {
	c := start(t, lsptest.VSCode, nil)
	uri := open(t, c, "hints.py", "# %%\nx = 40\nx + 2\n\n# %%\nlist(range(100))\n# %%\ny = 1\n")
	run(t, c, contract.CmdRunAll, lsptest.AllArg(uri))
	got := hints(t, c, uri)
	if len(got) != 2 || lsptest.Plain(got[0].Label) != "⇒ 42" || got[0].Position != (protocol.Position{Line: 2, Character: 5}) {
		t.Fatalf("hints: %s", mustJSON(got))
	}
	if l := lsptest.Plain(got[1].Label); !strings.HasSuffix(l, "…") || len([]rune(l)) > 64 || !strings.HasSuffix(lsptest.Plain(got[1].Tooltip), "99]") {
		t.Errorf("long value: %s", mustJSON(got[1]))
	}
	await(t, c, lsptest.Requested(protocol.MethodWorkspaceInlayHintRefresh))
	// A changed cell's value is no longer shown.
	edit(t, c, uri, "# %%\nx = 40\nx + 3\n\n# %%\nlist(range(100))\n# %%\ny = 1\n", lsptest.Edit(2, 4, 2, 5, "3"))
	if got := hints(t, c, uri); len(got) != 1 || got[0].Position.Line != 5 {
		t.Errorf("after an edit: %s", mustJSON(got))
	}
}

// A cell and a selection that end at the same place show one hint: the
// value of the newer run.
func TestInlayHintOnePerPosition(t *testing.T) {
	c := start(t, lsptest.VSCode, nil)
	uri := open(t, c, "same.py", "# %%\nx = 40\nx + 2\n")
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 1))
	run(t, c, contract.CmdRunRange, lsptest.RangeArg(uri, 1, 0, 2, 5))
	if got := hints(t, c, uri); len(got) != 1 || lsptest.Plain(got[0].Label) != "⇒ 42" {
		t.Fatalf("hints: %s", mustJSON(got))
	}
	run(t, c, contract.CmdRunRange, lsptest.RangeArg(uri, 2, 0, 2, 5))
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 1))
	if got := hints(t, c, uri); len(got) != 1 || lsptest.Plain(got[0].Label) != "⇒ 42" {
		t.Fatalf("hints after a rerun: %s", mustJSON(got))
	}
}
