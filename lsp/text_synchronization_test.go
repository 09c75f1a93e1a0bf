package lsp_test

import (
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

func TestIncrementalEditsUTF16(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	uri := open(t, c, "utf16.py", "s = '😀a'\ns\n")
	// 😀 is two UTF-16 code units: 'a' is at character 7.
	edit(t, c, uri, "s = '😀bc'\ns\n", lsptest.Edit(0, 7, 0, 8, "bc"))
	if ex := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0)); len(ex) != 1 || ex[0].Result == nil || ex[0].Result.Text != "'😀bc'" {
		t.Fatalf("%s", mustJSON(ex))
	}
}

func TestCRLFDocument(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	uri := open(t, c, "crlf.py", "x = 1\r\n# %%\r\ny = x + 1\r\ny\r\n")
	if got := lensesAt(t, c, uri); len(got[0]) != 2 || len(got[1]) != 3 {
		t.Fatalf("lenses: %s", mustJSON(got))
	}
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	// Character 40 is past the end of line 3: it clamps before "\r\n".
	edit(t, c, uri, "x = 1\r\n# %%\r\ny = x + 1\r\ny * 10\r\n", lsptest.Edit(3, 1, 3, 40, " * 10"))
	ex := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 2))
	if len(ex) != 1 || ex[0].Result == nil || ex[0].Result.Text != "20" || ex[0].Range != (contract.Range{Start: contract.Position{Line: 2}, End: contract.Position{Line: 3, Character: 6}}) {
		t.Fatalf("%s", mustJSON(ex))
	}
}

// A run takes the text of the document version current when it was asked
// for, even when it runs after later edits.
func TestRunUsesTextAtRequestTime(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	uri := open(t, c, "snapshot.py", "import time\ntime.sleep(0.3)\n# %%\nv = 'old'\nv\n")
	queue(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	second := queue(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 2))
	edit(t, c, uri, "import time\ntime.sleep(0.3)\n# %%\nv = 'new'\nv\n", lsptest.Edit(3, 5, 3, 8, "new"))
	done := waitDone(t, c, second)
	if done.Execution == nil || done.Execution.Result == nil || done.Execution.Result.Text != "'old'" {
		t.Fatalf("%s", mustJSON(done))
	}
	// Its status is stale: the cell's code changed after it was asked for.
	if s := status(lensesAt(t, c, uri)[2]); s == "" || s[len(s)-len("(stale)"):] != "(stale)" {
		t.Errorf("status %q", s)
	}
}
