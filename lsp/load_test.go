package lsp_test

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	lspuri "go.lsp.dev/uri"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

// helperPy is the file the %load tests load, beside their document.
const helperPy = "def double(n):\n    return 2 * n\n\nprint(double(21))\n"

// openBesideHelper opens document name with text in a folder that holds
// helper.py.
func openBesideHelper(t *testing.T, c *lsptest.Client, name, text string) string {
	t.Helper()
	uri := docURI(t, name)
	u, err := url.Parse(uri)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(filepath.Dir(u.Path), "helper.py"), []byte(helperPy), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c.Open(testCtx(t), uri, text); err != nil {
		t.Fatal(err)
	}
	return uri
}

// %load replaces its cell's code with "# %load ARGS" and the code, as
// Jupyter's front end does with the kernel's set_next_input payload: the
// server asks the editor to apply that edit (workspace/applyEdit), naming
// the document's version to a client that takes versions (VS Code), not
// to one that does not (Neovim). The cell's marker and the other cells
// stay; the record still carries the payload's display.
func TestLoadReplacesTheCell(t *testing.T) {
	vscode := lsptest.VSCode
	vscode.ApplyEdit, vscode.VersionedEdits = true, true
	neovim := lsptest.Neovim07
	neovim.ApplyEdit = true
	for _, tc := range []struct {
		name   string
		caps   lsptest.Capabilities
		load   string
		next   string // the payload's text
		stdout string // of the cell run again
	}{
		{"versioned", vscode, "%load helper.py", "# %load helper.py\n" + helperPy, "42\n"},
		{"unversioned", neovim, "%load -r 1-2 helper.py", "# %load -r 1-2 helper.py\ndef double(n):\n    return 2 * n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startWith(t, containerOptions(t), tc.caps, nil)
			uri := openBesideHelper(t, c, "load.py", "# %%\nx = 1\n# %%\n"+tc.load+"\n\n# %%\nx\n")
			x := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 3))[0]
			if next, ok := x.NextInput(); x.Status != contract.StatusOK || !ok || next != tc.next {
				t.Fatalf("%s", mustJSON(x))
			}
			want := "# %%\nx = 1\n# %%\n" + strings.TrimSuffix(tc.next, "\n") + "\n\n# %%\nx\n"
			await(t, c, lsptest.DocumentText(uri, want), lsptest.Answered(protocol.MethodWorkspaceApplyEdit))
			edits := lsptest.ParamsOf[protocol.ApplyWorkspaceEditParams](c, protocol.MethodWorkspaceApplyEdit)
			if len(edits) != 1 || (len(edits[0].Edit.DocumentChanges) == 1) != tc.caps.VersionedEdits {
				t.Fatalf("%s", mustJSON(edits))
			}
			// The server has the new text: the cell runs the loaded code.
			x = run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 4))[0]
			if x.Status != contract.StatusOK || len(x.Displays) != 0 || x.Stdout != tc.stdout {
				t.Fatalf("%s", mustJSON(x))
			}
		})
	}
}

// The cells of one run are replaced by one edit. A cell edited while it
// ran keeps the edit: the loaded code does not replace it.
func TestLoadKeepsAnEditMadeWhileTheCellRan(t *testing.T) {
	caps := lsptest.VSCode
	caps.ApplyEdit, caps.VersionedEdits, caps.Input = true, true, true
	c := startWith(t, containerOptions(t), caps, nil)
	c.Answer(contract.RequestInput, func(json.RawMessage) any { return map[string]any{"value": "y"} })
	release := c.Hold(contract.RequestInput)
	defer release()
	uri := openBesideHelper(t, c, "edited.py", "# %%\n_ = input('go? ')\n%load helper.py\n# %%\n%load -r 4 helper.py\n")
	res, err := c.Run(testCtx(t), contract.CmdRunAll, &contract.AllArg{URI: uri, Wait: lsptest.NoWait()})
	if err != nil || len(res.Queued) != 2 {
		t.Fatalf("%v %s", err, mustJSON(res))
	}
	await(t, c, lsptest.Requested(contract.RequestInput))
	if err := c.EditDocument(testCtx(t), uri, lsptest.Edit(2, 0, 2, 0, "# mine\n")); err != nil {
		t.Fatal(err)
	}
	release()
	for _, id := range res.Queued {
		if _, ok := waitDone(t, c, id).Execution.NextInput(); !ok {
			t.Fatalf("no next input: %s", mustJSON(c.Execution(id)))
		}
	}
	want := "# %%\n_ = input('go? ')\n# mine\n%load helper.py\n# %%\n# %load -r 4 helper.py\nprint(double(21))\n"
	await(t, c, lsptest.DocumentText(uri, want), lsptest.Answered(protocol.MethodWorkspaceApplyEdit))
	edits := lsptest.ParamsOf[protocol.ApplyWorkspaceEditParams](c, protocol.MethodWorkspaceApplyEdit)
	if len(edits) != 1 {
		t.Fatalf("%s", mustJSON(edits))
	}
}

// The cells a runAll loaded are replaced together: one request, one edit
// per cell, each against the text the run started from.
func TestLoadRunAllReplacesEveryCellInOneEdit(t *testing.T) {
	caps := lsptest.Neovim07
	caps.ApplyEdit = true
	c := startWith(t, containerOptions(t), caps, nil)
	uri := openBesideHelper(t, c, "all.py", "# %%\n%load -r 1 helper.py\n# %%\n%load -r 4 helper.py\n")
	if ex := run(t, c, contract.CmdRunAll, lsptest.AllArg(uri)); len(ex) != 2 {
		t.Fatalf("%s", mustJSON(ex))
	}
	want := "# %%\n# %load -r 1 helper.py\ndef double(n):\n# %%\n# %load -r 4 helper.py\nprint(double(21))\n"
	await(t, c, lsptest.DocumentText(uri, want), lsptest.Answered(protocol.MethodWorkspaceApplyEdit))
	edits := lsptest.ParamsOf[protocol.ApplyWorkspaceEditParams](c, protocol.MethodWorkspaceApplyEdit)
	if len(edits) != 1 || len(edits[0].Edit.Changes[lspuri.URI(uri)]) != 2 {
		t.Fatalf("%s", mustJSON(edits))
	}
}
