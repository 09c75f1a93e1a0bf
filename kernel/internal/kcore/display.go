package kcore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/backyard-ls/backyard-ls/contract"
)

// MaxDisplays bounds the display outputs one execution keeps.
const MaxDisplays = 1000

// Displays are an execution's display outputs as they come, bounded: all
// of them hold at most max bytes of data and MaxDisplays outputs; past
// that one note says so and the rest is left out (an update or a clear
// still applies).
type Displays struct {
	max   int
	size  int
	full  bool
	items []contract.Display
	// Position, when set, says how many bytes of stdout and stderr the
	// execution has printed so far: a new output's place among them.
	Position func() (stdout, stderr int)
}

// NewDisplays returns the display outputs of an execution whose output
// limit is max bytes.
func NewDisplays(max int) *Displays { return &Displays{max: max} }

// Add applies one display event of a running cell: a new output, an update
// of the outputs with display id id (Jupyter's update_display_data, which
// changes them where they are), or a clear; after says a new output comes
// after the cell's value. It returns what to show of the event: the new
// output (or the note that outputs are left out), the update's data; false
// when nothing changed.
func (d *Displays) Add(data map[string]string, meta json.RawMessage, id string, update, clear, after bool) (contract.Display, bool) {
	switch {
	case clear:
		d.items, d.size, d.full = d.items[:0], 0, false
		return contract.Display{}, true
	case update:
		found := false
		for i := range d.items {
			if d.items[i].DisplayID == id {
				d.size += bundleSize(data) - bundleSize(d.items[i].Data)
				d.items[i].Data, d.items[i].Metadata = maps.Clone(data), metadata(meta)
				found = true
			}
		}
		return contract.Display{Data: maps.Clone(data), Metadata: metadata(meta), DisplayID: id}, found
	case d.full:
		return contract.Display{}, false
	}
	n := bundleSize(data)
	if d.size+n > d.max || len(d.items) >= MaxDisplays {
		d.full = true
		d.items = append(d.items, contract.Display{Data: map[string]string{"text/plain": fmt.Sprintf(
			"[backyard: further display outputs left out: a cell's displays hold at most %d outputs and %d bytes (the output limit)]", MaxDisplays, d.max)}})
		return d.items[len(d.items)-1], true
	}
	if data == nil {
		data = map[string]string{}
	}
	d.size += n
	x := contract.Display{Data: data, Metadata: metadata(meta), DisplayID: id, AfterResult: after}
	if d.Position != nil {
		x.StdoutBefore, x.StderrBefore = d.Position()
	}
	d.items = append(d.items, x)
	return x, true
}

// Clamp keeps each output's place within the streams as they ended (a
// stream cut at the output limit is shorter than what was printed).
func (d *Displays) Clamp(stdout, stderr int) {
	for i := range d.items {
		d.items[i].StdoutBefore = min(d.items[i].StdoutBefore, stdout)
		d.items[i].StderrBefore = min(d.items[i].StderrBefore, stderr)
	}
}

// List is the outputs so far.
func (d *Displays) List() []contract.Display {
	if len(d.items) == 0 {
		return nil
	}
	return d.items
}

func bundleSize(b map[string]string) int {
	n := 0
	for k, v := range b {
		n += len(k) + len(v)
	}
	return n
}

// metadata is meta as a compact JSON object; nothing when it is empty or
// not an object.
func metadata(meta json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, meta) != nil || b.Len() < 3 || b.Bytes()[0] != '{' {
		return nil
	}
	return b.Bytes()
}
