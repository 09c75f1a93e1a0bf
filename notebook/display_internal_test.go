package notebook

import (
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
)

// update_display reaches the outputs with its id in earlier runs' records,
// which are replaced (a view handed out keeps what it had); the running
// execution's own record is the kernel's to update.
func TestUpdateDisplaysOfEarlierRuns(t *testing.T) {
	d := &Document{}
	shown := func(id, text string) contract.Display {
		return contract.Display{DisplayID: id, Data: map[string]string{"text/plain": text}}
	}
	first := &contract.Execution{ID: "e1", Displays: []contract.Display{shown("x", "1"), shown("y", "a"), shown("x", "1")}}
	other := &contract.Execution{ID: "e2", Displays: []contract.Display{shown("z", "z")}}
	running := &contract.Execution{ID: "e3", Displays: []contract.Display{shown("x", "old")}}
	sel := &contract.Execution{ID: "e4", Displays: []contract.Display{shown("x", "1")}}
	d.results.cells = []*cellResult{{exec: first}, {exec: other}, {exec: running}, {exec: nil}}
	d.results.ranges = []*rangeResult{{exec: sel}}
	changed := d.updateDisplays("e3", shown("x", "2"))
	if len(changed) != 2 || changed[0] != "e1" || changed[1] != "e4" {
		t.Fatalf("changed %q", changed)
	}
	now := d.results.cells[0].exec
	if now == first || now.Displays[0].Data["text/plain"] != "2" || now.Displays[2].Data["text/plain"] != "2" || now.Displays[1].Data["text/plain"] != "a" {
		t.Fatalf("%+v", now.Displays)
	}
	if first.Displays[0].Data["text/plain"] != "1" {
		t.Error("the record handed out changed")
	}
	if d.results.cells[1].exec != other || d.results.cells[2].exec != running || d.results.ranges[0].exec.Displays[0].Data["text/plain"] != "2" {
		t.Error("the wrong records changed")
	}
	if got := d.updateDisplays("e3", shown("", "2")); got != nil {
		t.Errorf("an update without an id changed %q", got)
	}
}
