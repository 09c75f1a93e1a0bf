package lsp_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

// A notebook as Jupyter users write it, over LSP: display() runs on Monty,
// the first magic moves the document to the container, and the records
// carry the display outputs; magic lines get no diagnostics.
func TestIPythonNotebookOverLSP(t *testing.T) {
	c := startWith(t, containerOptions(t), lsptest.VSCode, nil)
	uri := open(t, c, "magics.py", "# %%\nx = 2\ndisplay(x)\n# %%\n%time y = x * 21\n!echo shell $y\n# %%\n%%bash\necho from bash\n"+
		"# %%\nfrom IPython.display import Markdown, display\nfor i in range(2):\n    display(Markdown(f'**{i}**'))\n    !echo line {i}\n")
	ex := run(t, c, contract.CmdRunAll, lsptest.AllArg(uri))
	if len(ex) != 4 {
		t.Fatalf("%s", mustJSON(ex))
	}
	for i, x := range ex {
		if x.Status != contract.StatusOK {
			t.Fatalf("cell %d: %s", i, mustJSON(x))
		}
	}
	if ex[0].Backend != "monty" || len(ex[0].Displays) != 1 || ex[0].Displays[0].Data["text/plain"] != "2" {
		t.Errorf("display on Monty: %s", mustJSON(ex[0]))
	}
	if ex[1].Backend != "container" || ex[1].Routing == nil || ex[1].Routing.Rule != "construct:magic" || !strings.HasPrefix(ex[1].Stdout, "CPU times: ") || !strings.HasSuffix(ex[1].Stdout, "shell 42\n") {
		t.Errorf("magic cell: %s", mustJSON(ex[1]))
	}
	if ex[2].Stdout != "from bash\n" {
		t.Errorf("%%%%bash: %s", mustJSON(ex[2]))
	}
	if d := ex[3].Displays; len(d) != 2 || d[0].Data["text/markdown"] != "**0**" || d[1].Data["text/markdown"] != "**1**" || ex[3].Stdout != "line 0\nline 1\n" {
		t.Errorf("displays in a loop: %s", mustJSON(ex[3]))
	}
	if d, _ := c.PublishedDiagnostics(uri); len(d) != 0 {
		t.Errorf("diagnostics on a notebook whose cells all ran: %s", mustJSON(d))
	}
}

// %pip install goes through autoInstall and the host's installer (here a
// local wheel directory), not pip in the sandbox.
func TestPipMagicInstallsThroughThePolicy(t *testing.T) {
	mod := fmt.Sprintf("backyard_pip%d", rand.Uint32())
	opts := containerOptions(t)
	opts.Flags["container.image"] = containertest.IsolatedImage(t)
	c := startWith(t, opts, lsptest.VSCode, map[string]any{"backyard": map[string]any{
		"backend": "auto", "autoInstall": "on", "findLinks": containertest.WheelDir(t, mod)}})
	uri := open(t, c, "pip.py", "# %%\n%pip install -q "+mod+"\nimport "+mod+"\n"+mod+".ANSWER\n")
	x := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 1))[0]
	if x.Status != contract.StatusOK || x.Result == nil || x.Result.Text != "42" || x.Backend != "container" {
		t.Fatalf("%s", mustJSON(x))
	}
}
