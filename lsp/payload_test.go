package lsp_test

import (
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	lspuri "go.lsp.dev/uri"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

// displaysOf are the backyard/display notifications of execution id.
func displaysOf(c *lsptest.Client, id string) []string {
	var out []string
	for _, m := range c.Messages() {
		if m.Method == contract.MethodDisplay && strings.Contains(string(m.Params), `"executionId":"`+id+`"`) {
			out = append(out, string(m.Params))
		}
	}
	return out
}

// A kernel's payloads (%load's set_next_input, %edit's edit_magic) are no
// outputs, as in Jupyter: no backyard/display goes to the editor for
// them; the record keeps them as data, for the front end to act on.
func TestPayloadsAreNoOutputs(t *testing.T) {
	caps := lsptest.VSCode
	caps.ApplyEdit, caps.VersionedEdits = true, true
	c := startWith(t, containerOptions(t), caps, nil)
	uri := openBesideHelper(t, c, "payloads.py", "# %%\nprint('shown')\n%edit helper.py\n# %%\n%load -r 1 helper.py\n")
	for _, line := range []int{1, 4} {
		x := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, line))[0]
		payloads := 0
		for _, d := range x.Displays {
			if d.IsPayload() {
				payloads++
			}
		}
		if x.Status != contract.StatusOK || payloads != 1 || len(x.Displays) != 1 {
			t.Fatalf("%s", mustJSON(x))
		}
		if ds := displaysOf(c, x.ID); len(ds) != 0 {
			t.Errorf("a payload went as a display output: %v", ds)
		}
	}
}

// %edit FILE has the editor open the file, as Jupyter's front end acts on
// the kernel's edit_magic payload: window/showDocument, with the cursor
// at the payload's line (IPython's 1-based -n), to a client that
// advertises it; nothing to one that does not. A file outside the folders
// the kernel sees (%edit alone makes a temporary file in the kernel) is
// not opened: a warning says so.
func TestEditShowsTheFile(t *testing.T) {
	for _, tc := range []struct {
		name string
		caps lsptest.Capabilities
	}{
		{"showDocument", lsptest.Capabilities{WorkDoneProgress: true, ShowDocument: true}},
		{"without", lsptest.Neovim07},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startWith(t, containerOptions(t), tc.caps, nil)
			uri := openBesideHelper(t, c, "edit.py", "# %%\n%edit -n 2 helper.py\n# %%\n%edit\n# %%\n1\n")
			u, err := url.Parse(uri)
			if err != nil {
				t.Fatal(err)
			}
			helper := lspuri.File(filepath.Join(filepath.Dir(u.Path), "helper.py"))
			ex := run(t, c, contract.CmdRunAll, lsptest.AllArg(uri))
			if len(ex) != 3 || ex[2].Result == nil {
				t.Fatalf("%s", mustJSON(ex))
			}
			for _, x := range ex[:2] {
				if _, _, ok := x.Displays[0].Edit(); x.Status != contract.StatusOK || len(x.Displays) != 1 || !ok {
					t.Fatalf("%s", mustJSON(x))
				}
			}
			await(t, c, lsptest.Received("the warning about the temporary file", func(m lsptest.Message) bool {
				p, ok := m.Value.(*protocol.ShowMessageParams)
				return ok && p.Type == protocol.MessageTypeWarning && strings.Contains(p.Message, "%edit names ") && strings.Contains(p.Message, "it is not opened")
			}))
			if !tc.caps.ShowDocument {
				if shown := lsptest.ParamsOf[protocol.ShowDocumentParams](c, protocol.MethodWindowShowDocument); len(shown) != 0 {
					t.Fatalf("shown to a client without window.showDocument: %s", mustJSON(shown))
				}
				return
			}
			await(t, c, lsptest.Answered(protocol.MethodWindowShowDocument))
			shown := lsptest.ParamsOf[protocol.ShowDocumentParams](c, protocol.MethodWindowShowDocument)
			at := protocol.Position{Line: 1}
			if len(shown) != 1 || shown[0].URI != helper || shown[0].Selection == nil || *shown[0].Selection != (protocol.Range{Start: at, End: at}) || shown[0].External != nil {
				t.Fatalf("%s", mustJSON(shown))
			}
		})
	}
}
