package contract_test

import (
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
)

// A payload is read from a display's metadata: IPython sends %edit -n's
// line as the option came (a string), a found definition's as a number.
func TestPayloads(t *testing.T) {
	display := func(meta string) *contract.Display {
		return &contract.Display{Data: map[string]string{"text/plain": "x"}, Metadata: []byte(meta)}
	}
	for _, tc := range []struct {
		meta    string
		payload bool
		file    string
		line    int
		edit    bool
	}{
		{`{"payload":{"source":"edit_magic","filename":"/w/f.py","line_number":4}}`, true, "/w/f.py", 4, true},
		{`{"payload":{"source":"edit_magic","filename":"/w/f.py","line_number":"4"}}`, true, "/w/f.py", 4, true},
		{`{"payload":{"source":"edit_magic","filename":"/w/f.py","line_number":null}}`, true, "/w/f.py", 0, true},
		{`{"payload":{"source":"set_next_input","replace":true}}`, true, "", 0, false},
		{`{"payload":{}}`, false, "", 0, false},
		{`{"width":40}`, false, "", 0, false},
		{``, false, "", 0, false},
	} {
		d := display(tc.meta)
		file, line, edit := d.Edit()
		if d.IsPayload() != tc.payload || file != tc.file || line != tc.line || edit != tc.edit {
			t.Errorf("%s: payload %v, edit %q %d %v", tc.meta, d.IsPayload(), file, line, edit)
		}
	}
}
