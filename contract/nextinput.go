package contract

import "github.com/go-json-experiment/json"

// NextInput reports whether d is a kernel's set_next_input payload rather
// than an output (IPython's %load sets the cell's next input): its text,
// and whether it replaces the cell that ran (else a new cell below gets
// it). The container's shell sends the payload as a display whose metadata
// is {"payload": {"source": "set_next_input", "replace": ...}} and whose
// text/plain is the text.
func (d *Display) NextInput() (text string, replace, ok bool) {
	var meta struct {
		Payload *struct {
			Source  string `json:"source"`
			Replace bool   `json:"replace"`
		} `json:"payload"`
	}
	if len(d.Metadata) == 0 || json.Unmarshal(d.Metadata, &meta) != nil || meta.Payload == nil || meta.Payload.Source != "set_next_input" {
		return "", false, false
	}
	return d.Data["text/plain"], meta.Payload.Replace, true
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
