package lsp_test

import (
	"slices"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

func TestDiagnosticOnInnermostFrameOfTheCell(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	text := "# %%\ndef helper(n):\n    return 10 / n\n\n# %%\ndef f(n):\n    return helper(n)\n\nf(0)\n"
	uri := open(t, c, "frames.py", text)
	ex := run(t, c, contract.CmdRunAll, lsptest.AllArg(uri))
	if len(ex) != 2 || ex[1].Status != "error" {
		t.Fatalf("%s", mustJSON(ex))
	}
	// Frames: f(0) (line 8), return helper(n) (line 6), then helper's frame,
	// which is in another cell: line -1.
	tb := ex[1].Error.Traceback
	if len(tb) != 3 || tb[0].Line != 8 || tb[1].Line != 6 || tb[2].Line != -1 || tb[2].Name != "helper" {
		t.Fatalf("traceback: %s", mustJSON(tb))
	}
	d, _ := c.PublishedDiagnostics(uri)
	if len(d) != 1 {
		t.Fatalf("diagnostics: %s", mustJSON(d))
	}
	// On the span CPython marks: `helper(n)`.
	if src, _ := d[0].Source.Get(); d[0].Range != (protocol.Range{Start: protocol.Position{Line: 6, Character: 11}, End: protocol.Position{Line: 6, Character: 20}}) || src != "backyard" ||
		d[0].Severity != protocol.DiagnosticSeverityError || lsptest.Plain(d[0].Message) != "ZeroDivisionError: division by zero" {
		t.Fatalf("diagnostics: %s", mustJSON(d))
	}
}

// lines are the start lines of diagnostics.
func lines(d []protocol.Diagnostic) []uint32 {
	out := make([]uint32, len(d))
	for i, x := range d {
		out[i] = x.Range.Start.Line
	}
	return out
}

func TestDiagnosticClearedByEditAndCleanRun(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	uri := open(t, c, "clear.py", "# %%\nz\n# %%\nbad syntax here\n")
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 2))
	d, _ := c.PublishedDiagnostics(uri)
	if len(d) != 2 || lsptest.Plain(d[0].Message) != "NameError: name 'z' is not defined" || d[0].Range.Start.Line != 1 || d[1].Range.Start.Line != 3 {
		t.Fatalf("diagnostics: %s", mustJSON(d))
	}
	// Editing the second cell clears its diagnostic only.
	mark := c.Mark()
	edit(t, c, uri, "# %%\nz\n# %%\nz = 1\n", lsptest.Edit(3, 0, 3, 15, "z = 1"))
	await(t, c, lsptest.After(mark, lsptest.Diagnostics(uri, "only line 1", func(d []protocol.Diagnostic) bool {
		return slices.Equal(lines(d), []uint32{1})
	})))
	// Running the first cell clean (z is now defined) clears the other.
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 2))
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	if d, ok := c.PublishedDiagnostics(uri); !ok || len(d) != 0 {
		t.Fatalf("after clean runs: %s", mustJSON(d))
	}
	// Closing the document clears them too.
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 2)) // fine
	if err := c.ChangeFull(testCtx(t), uri, 3, "1/0\n"); err != nil {
		t.Fatal(err)
	}
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	if d, _ := c.PublishedDiagnostics(uri); len(d) != 1 {
		t.Fatalf("before close: %s", mustJSON(d))
	}
	mark = c.Mark()
	if err := c.CloseDoc(testCtx(t), uri); err != nil {
		t.Fatal(err)
	}
	await(t, c, lsptest.After(mark, lsptest.NoDiagnostics(uri)))
}

// A pasted session or an indented cell runs as IPython's clean-up leaves
// it: the traceback shows the clean lines, as IPython's does, and the
// diagnostic lies on the span in the document's line, prompt and all.
// Monty and the container agree.
func TestDiagnosticOfACleanedCellLiesOnTheDocumentLine(t *testing.T) {
	for _, backend := range []string{"monty", "container"} {
		t.Run(backend, func(t *testing.T) {
			c := startWith(t, containerOptions(t), lsptest.Neovim07, map[string]any{"backyard": map[string]any{"backend": backend}})
			text := "# %%\n>>> x = 1\n>>> y = x + 1/0\n# %%\n    z = 2\n    w = z + 1/0\n"
			uri := open(t, c, "pasted.py", text)
			ex := append(run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 1)), run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 4))...)
			if len(ex) != 2 {
				t.Fatalf("%s", mustJSON(ex))
			}
			for i, want := range []struct {
				line uint32
				text string
			}{{2, "y = x + 1/0"}, {5, "w = z + 1/0"}} {
				x := ex[i]
				if x.Backend != backend || x.Error == nil || len(x.Error.Traceback) != 1 {
					t.Fatalf("cell %d: %s", i, mustJSON(x))
				}
				f := x.Error.Traceback[0]
				if f.Line != int(want.line) || f.Text != want.text || f.Col != 12 || f.EndCol != 15 {
					t.Errorf("cell %d frame: %s", i, mustJSON(f))
				}
			}
			d, _ := c.PublishedDiagnostics(uri)
			var got []protocol.Range
			for _, x := range d {
				got = append(got, x.Range)
			}
			span := func(l uint32) protocol.Range {
				return protocol.Range{Start: protocol.Position{Line: l, Character: 12}, End: protocol.Position{Line: l, Character: 15}}
			}
			if want := []protocol.Range{span(2), span(5)}; !slices.Equal(got, want) {
				t.Fatalf("diagnostics on %v, want %v", got, want)
			}
		})
	}
}
