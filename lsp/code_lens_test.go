package lsp_test

import (
	"regexp"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

// lensesAt returns the titles of the lenses on each line, "title>command".
func lensesAt(t *testing.T, c *lsptest.Client, uri string) map[int][]string {
	t.Helper()
	lenses, err := c.CodeLens(testCtx(t), uri)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int][]string{}
	for _, l := range lenses {
		line := int(l.Range.Start.Line)
		out[line] = append(out[line], l.Command.Title+">"+l.Command.Command)
		for _, a := range l.Command.Arguments {
			if want := mustJSON(lsptest.LineArg(uri, line)); string(a) != want {
				t.Errorf("lens %q argument %s, want %s", l.Command.Title, a, want)
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

// edit applies changes to the document and checks the text the client
// now holds (and the server too, as the lenses and runs then show).
func edit(t *testing.T, c *lsptest.Client, uri, want string, changes ...protocol.TextDocumentContentChangeEvent) {
	t.Helper()
	if err := c.EditDocument(testCtx(t), uri, changes...); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Text(uri); got != want {
		t.Fatalf("after the edit the document is %q, want %q", got, want)
	}
}

func TestStatusLens(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	uri := open(t, c, "status.py", "# %%\nx = 1\n# %%\n1/0\n")
	run(t, c, contract.CmdRunAll, lsptest.AllArg(uri))
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 2))
	got := lensesAt(t, c, uri)
	if s := status(got[0]); !okStatus.MatchString(s) || okStatus.FindStringSubmatch(s)[1] != "1" {
		t.Errorf("ok status %q", s)
	}
	if s := status(got[2]); s != "[3] ✗ ZeroDivisionError" {
		t.Errorf("error status %q", s)
	}

	// Editing the cell's code makes its status stale.
	edit(t, c, uri, "# %%\nx = 1\n# %%\n2/0\n", lsptest.Edit(3, 0, 3, 3, "2/0"))
	if s := status(lensesAt(t, c, uri)[2]); s != "[3] ✗ ZeroDivisionError (stale)" {
		t.Errorf("after an edit: %q", s)
	}
	// A new cell above moves the statuses down with their cells.
	edit(t, c, uri, "# %%\nnew = 0\n# %%\nx = 1\n# %%\n2/0\n", lsptest.Edit(0, 0, 0, 0, "# %%\nnew = 0\n"))
	got = lensesAt(t, c, uri)
	if status(got[0]) != "" || !okStatus.MatchString(status(got[2])) || status(got[4]) != "[3] ✗ ZeroDivisionError (stale)" {
		t.Errorf("after inserting a cell: %s", mustJSON(got))
	}
	// Undoing the edit makes it current again.
	edit(t, c, uri, "# %%\nnew = 0\n# %%\nx = 1\n# %%\n1/0\n", lsptest.Edit(5, 0, 5, 3, "1/0"))
	if s := status(lensesAt(t, c, uri)[4]); s != "[3] ✗ ZeroDivisionError" {
		t.Errorf("after undo: %q", s)
	}
	// A restart makes every status stale.
	if err := c.Command(testCtx(t), contract.CmdRestart, lsptest.URIArg(uri), nil); err != nil {
		t.Fatal(err)
	}
	if s := status(lensesAt(t, c, uri)[2]); !strings.HasSuffix(s, "(stale)") {
		t.Errorf("after restart: %q", s)
	}
}

func TestCodeLensRefreshOnlyWhenAdvertised(t *testing.T) {
	vs := start(t, lsptest.VSCode, nil)
	uri := open(t, vs, "refresh.py", "x = 1\n")
	run(t, vs, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	await(t, vs, lsptest.Requested(protocol.MethodWorkspaceCodeLensRefresh))

	nv := start(t, lsptest.Neovim07, nil)
	nv.Refuse(protocol.MethodWorkspaceCodeLensRefresh)
	uri = open(t, nv, "refresh.py", "x = 1\n")
	run(t, nv, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	lensesAt(t, nv, uri)
	if n := nv.Requests(protocol.MethodWorkspaceCodeLensRefresh) + nv.Requests(protocol.MethodWorkspaceInlayHintRefresh); n != 0 {
		t.Errorf("Neovim 0.7 does not advertise refresh support, got %d refresh requests", n)
	}
}
