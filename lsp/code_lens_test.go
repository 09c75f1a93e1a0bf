package lsp_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

// lensesAt returns the titles of the lenses on each line, "title>command".
func lensesAt(t *testing.T, c *lsptest.Client, uri string) map[int][]string {
	t.Helper()
	lenses, err := c.CodeLenses(testCtx(t), uri)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int][]string{}
	for _, l := range lenses {
		out[l.Line] = append(out[l.Line], l.Title+">"+l.Command)
		for _, a := range l.Args {
			if want := fmt.Sprintf(`{"uri":%q,"line":%d}`, uri, l.Line); string(a) != want {
				t.Errorf("lens %q argument %s, want %s", l.Title, a, want)
			}
		}
	}
	return out
}

func TestCodeLensLayout(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	uri := open(t, c, "lenses.py", "x = 1\n# %%\ny\n# %% [markdown]\n# md\n# %%\nz = 1\n")
	got := lensesAt(t, c, uri)
	want := map[int][]string{
		0: {"▶ Run Cell>backyard.runCell", "Run Below>backyard.runBelow"},
		1: {"▶ Run Cell>backyard.runCell", "Run Above>backyard.runAbove", "Run Below>backyard.runBelow"},
		5: {"▶ Run Cell>backyard.runCell", "Run Above>backyard.runAbove", "Run Below>backyard.runBelow"},
	}
	if mustJSON(got) != mustJSON(want) {
		t.Errorf("lenses\n got %s\nwant %s", mustJSON(got), mustJSON(want))
	}
	uri2 := open(t, c, "header-first.py", "\n# %%\na\n")
	if got := lensesAt(t, c, uri2); mustJSON(got) != `{"1":["▶ Run Cell\u003ebackyard.runCell","Run Below\u003ebackyard.runBelow"]}` {
		t.Errorf("no implicit cell: %s", mustJSON(got))
	}
	if got := lensesAt(t, c, "file:///not/open.py"); len(got) != 0 {
		t.Errorf("lenses for a closed document: %v", got)
	}
}

var okStatus = regexp.MustCompile(`^\[(\d+)\] ✓ [0-9.]+ (ms|s) · monty$`)

func status(lines []string) string {
	for _, l := range lines {
		if strings.HasSuffix(l, ">") {
			return strings.TrimSuffix(l, ">")
		}
	}
	return ""
}

func TestStatusLens(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	ctx := testCtx(t)
	uri := open(t, c, "status.py", "# %%\nx = 1\n# %%\n1/0\n")
	run(t, c, contract.CmdRunAll, map[string]any{"uri": uri})
	run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 2})
	got := lensesAt(t, c, uri)
	if s := status(got[0]); !okStatus.MatchString(s) || okStatus.FindStringSubmatch(s)[1] != "1" {
		t.Errorf("ok status %q", s)
	}
	if s := status(got[2]); s != "[3] ✗ ZeroDivisionError" {
		t.Errorf("error status %q", s)
	}

	// Editing the cell's code makes its status stale.
	if err := c.Change(ctx, uri, 2, lsptest.Edit(3, 0, 3, 3, "2/0")); err != nil {
		t.Fatal(err)
	}
	if s := status(lensesAt(t, c, uri)[2]); s != "[3] ✗ ZeroDivisionError (stale)" {
		t.Errorf("after an edit: %q", s)
	}
	// A new cell above moves the statuses down with their cells.
	if err := c.Change(ctx, uri, 3, lsptest.Edit(0, 0, 0, 0, "# %%\nnew = 0\n")); err != nil {
		t.Fatal(err)
	}
	got = lensesAt(t, c, uri)
	if status(got[0]) != "" || !okStatus.MatchString(status(got[2])) || status(got[4]) != "[3] ✗ ZeroDivisionError (stale)" {
		t.Errorf("after inserting a cell: %s", mustJSON(got))
	}
	// Undoing the edit makes it current again.
	if err := c.Change(ctx, uri, 4, lsptest.Edit(5, 0, 5, 3, "1/0")); err != nil {
		t.Fatal(err)
	}
	if s := status(lensesAt(t, c, uri)[4]); s != "[3] ✗ ZeroDivisionError" {
		t.Errorf("after undo: %q", s)
	}
	// A restart makes every status stale.
	if err := c.Command(ctx, contract.CmdRestart, map[string]any{"uri": uri}, nil); err != nil {
		t.Fatal(err)
	}
	if s := status(lensesAt(t, c, uri)[2]); !strings.HasSuffix(s, "(stale)") {
		t.Errorf("after restart: %q", s)
	}
}

// requests returns the server-to-client requests seen for method.
func requests(c *lsptest.Client, method string) int {
	n := 0
	for _, m := range c.Messages() {
		if m.Call && m.Method == method {
			n++
		}
	}
	return n
}

func TestCodeLensRefreshOnlyWhenAdvertised(t *testing.T) {
	vs := start(t, lsptest.VSCode, nil)
	uri := open(t, vs, "refresh.py", "x = 1\n")
	run(t, vs, contract.CmdRunCell, map[string]any{"uri": uri, "line": 0})
	if _, _, err := vs.Wait(testCtx(t), 0, lsptest.Method("workspace/codeLens/refresh")); err != nil {
		t.Fatalf("VS Code advertises refreshSupport, no refresh came: %v", err)
	}

	nv := start(t, lsptest.Neovim07, nil)
	nv.Refuse("workspace/codeLens/refresh")
	uri = open(t, nv, "refresh.py", "x = 1\n")
	run(t, nv, contract.CmdRunCell, map[string]any{"uri": uri, "line": 0})
	lensesAt(t, nv, uri)
	if n := requests(nv, "workspace/codeLens/refresh") + requests(nv, "workspace/inlayHint/refresh"); n != 0 {
		t.Errorf("Neovim 0.7 does not advertise refresh support, got %d refresh requests", n)
	}
}
