package lsp_test

import (
	"slices"
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

// backyard/display goes to the editor whose document ran the cell, named by
// that document and execution: not to another document of the same editor,
// not to another editor (each connection has its own server).
func TestDisplaysGoToTheirDocument(t *testing.T) {
	opts := containerOptions(t)
	settings := map[string]any{"backyard": map[string]any{"backend": "container"}}
	c := startWith(t, opts, lsptest.VSCode, settings)
	other := startWith(t, opts, lsptest.VSCode, settings)
	a := open(t, c, "a.py", "# %%\nfrom IPython.display import display, update_display, clear_output\n"+
		"display(1, display_id='x')\nupdate_display(2, display_id='x')\nclear_output()\ndisplay(3)\n")
	b := open(t, c, "b.py", "# %%\n1\n")
	open(t, other, "c.py", "# %%\n1\n")
	x := run(t, c, contract.CmdRunCell, lsptest.LineArg(a, 1))[0]
	if x.Status != contract.StatusOK || len(x.Displays) != 1 || x.Displays[0].Data["text/plain"] != "3" {
		t.Fatalf("%s", mustJSON(x))
	}
	await(t, c, lsptest.ExecutionDone(x.ID))
	var kinds []string
	for _, m := range c.Messages() {
		if m.Method != contract.MethodDisplay {
			continue
		}
		var p contract.DisplayParams
		if err := m.Decode(&p); err != nil {
			t.Fatal(err)
		}
		if p.URI != a || p.ExecutionID != x.ID {
			t.Errorf("a display of %s (%s) names %s (%s); b is %s", a, x.ID, p.URI, p.ExecutionID, b)
		}
		switch {
		case p.Clear:
			kinds = append(kinds, "clear")
		case p.Update:
			kinds = append(kinds, "update "+p.Display.Data["text/plain"])
		default:
			kinds = append(kinds, "new "+p.Display.Data["text/plain"])
		}
	}
	if want := []string{"new 1", "update 2", "clear", "new 3"}; !slices.Equal(kinds, want) {
		t.Errorf("displays sent: %q, want %q", kinds, want)
	}
	for _, m := range other.Messages() {
		if m.Method == contract.MethodDisplay {
			t.Errorf("the other editor got %s", m.Params)
		}
	}
}

// update_display in a later cell updates the display an earlier cell
// showed, as in Jupyter: backyard/display names the earlier execution.
func TestUpdateDisplayOfAnEarlierCell(t *testing.T) {
	c := startWith(t, containerOptions(t), lsptest.VSCode, map[string]any{"backyard": map[string]any{"backend": "container"}})
	a := open(t, c, "a.py", "# %%\nfrom IPython.display import display, update_display\nh = display('first', display_id='progress')\n"+
		"# %%\nupdate_display('second', display_id='progress')\n# %%\nh.update('third')\n")
	first := run(t, c, contract.CmdRunCell, lsptest.LineArg(a, 1))[0]
	if len(first.Displays) != 1 || first.Displays[0].DisplayID != "progress" {
		t.Fatalf("%s", mustJSON(first))
	}
	second := run(t, c, contract.CmdRunCell, lsptest.LineArg(a, 4))[0]
	third := run(t, c, contract.CmdRunCell, lsptest.LineArg(a, 6))[0]
	await(t, c, lsptest.ExecutionDone(third.ID))
	if second.Status != contract.StatusOK || len(second.Displays) != 0 || third.Status != contract.StatusOK || len(third.Displays) != 0 {
		t.Fatalf("%s %s", mustJSON(second), mustJSON(third))
	}
	var updates []string
	for _, m := range c.Messages() {
		var p contract.DisplayParams
		if m.Method != contract.MethodDisplay || m.Decode(&p) != nil || !p.Update || p.ExecutionID != first.ID {
			continue
		}
		updates = append(updates, p.Display.Data["text/plain"])
	}
	if want := []string{"'second'", "'third'"}; !slices.Equal(updates, want) {
		t.Errorf("updates of %s sent: %q, want %q", first.ID, updates, want)
	}
}
