package contract

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// A kernel's payload (IPython's payload manager: set_next_input from %load,
// edit_magic from %edit) is no output: a front end acts on it, as
// Jupyter's does, and shows nothing. The container's shell sends one as a
// display whose metadata is {"payload": {"source": ..., ...}}; the record
// keeps it among the displays, as data.
type payload struct {
	Source string `json:"source"`
	// set_next_input: whether the text replaces the cell that ran.
	Replace bool `json:"replace"`
	// edit_magic: the file and its 1-based line: null for none, a string
	// when %edit -n gave it (IPython sends the option as it came).
	Filename   string         `json:"filename"`
	LineNumber jsontext.Value `json:"line_number"`
}

func (d *Display) payload() (payload, bool) {
	if !bytes.Contains(d.Metadata, []byte(`"payload"`)) {
		return payload{}, false
	}
	var meta struct {
		Payload *payload `json:"payload"`
	}
	if json.Unmarshal(d.Metadata, &meta) != nil || meta.Payload == nil || meta.Payload.Source == "" {
		return payload{}, false
	}
	return *meta.Payload, true
}

// IsPayload reports whether d is a kernel's payload rather than an output:
// no text for a person shows it.
func (d *Display) IsPayload() bool {
	_, ok := d.payload()
	return ok
}

// NextInput reports whether d is a kernel's set_next_input payload
// (IPython's %load sets the cell's next input): its text (the display's
// text/plain), and whether it replaces the cell that ran (else a new cell
// below gets it).
func (d *Display) NextInput() (text string, replace, ok bool) {
	p, ok := d.payload()
	if !ok || p.Source != "set_next_input" {
		return "", false, false
	}
	return d.Data["text/plain"], p.Replace, true
}

// Edit reports whether d is a kernel's edit_magic payload (IPython's
// %edit: a kernel starts no editor, the front end opens the file): the
// file, as the kernel names it, and its 1-based line, 0 for none.
func (d *Display) Edit() (file string, line int, ok bool) {
	p, ok := d.payload()
	if !ok || p.Source != "edit_magic" {
		return "", 0, false
	}
	var n any
	if json.Unmarshal(p.LineNumber, &n) == nil {
		switch v := n.(type) {
		case float64:
			line = int(v)
		case string:
			line, _ = strconv.Atoi(strings.TrimSpace(v))
		}
	}
	return p.Filename, max(line, 0), true
}

// NextInput is the text the execution's cell is to be replaced with, as
// Jupyter's front end replaces a cell whose run set its next input with
// replace (the last such payload wins, as in IPython's payload manager).
func (x *Execution) NextInput() (string, bool) {
	text, found := "", false
	for i := range x.Displays {
		if t, replace, ok := x.Displays[i].NextInput(); ok && replace {
			text, found = t, true
		}
	}
	return text, found
}
