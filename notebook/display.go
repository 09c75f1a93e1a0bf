package notebook

import (
	"maps"
	"slices"

	"github.com/backyard-ls/backyard-ls/contract"
)

// updateDisplays applies update_display (upd, with its display id) of the
// running execution to the display outputs of the document's earlier runs
// that have that id, as Jupyter updates a display wherever it is shown;
// it returns the IDs of the executions whose records it changed. A record
// is replaced, not changed in place: views handed out keep what they had.
func (d *Document) updateDisplays(running string, upd contract.Display) []string {
	if upd.DisplayID == "" {
		return nil
	}
	var changed []string
	apply := func(x *contract.Execution) *contract.Execution {
		if x == nil || x.ID == running {
			return x
		}
		var out *contract.Execution
		for i, disp := range x.Displays {
			if disp.DisplayID != upd.DisplayID {
				continue
			}
			if out == nil {
				c := *x
				c.Displays = slices.Clone(x.Displays)
				out = &c
			}
			out.Displays[i].Data, out.Displays[i].Metadata = maps.Clone(upd.Data), upd.Metadata
		}
		if out == nil {
			return x
		}
		changed = append(changed, x.ID)
		return out
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, c := range d.results.cells {
		c.exec = apply(c.exec)
	}
	for _, r := range d.results.ranges {
		r.exec = apply(r.exec)
	}
	return changed
}
