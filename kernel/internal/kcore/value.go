package kcore

import (
	"fmt"
	"maps"
	"slices"
	"unicode/utf8"

	"github.com/backyard-ls/backyard-ls/contract"
)

// CapValue bounds a cell's value like a stream: its text to max bytes,
// with a marker saying how much was cut (cut is what the backend cut
// already, in characters), and MIME data over max is left out (cut data
// would be corrupt), with a marker line each (dropped: MIME type → bytes,
// what the backend left out already).
func CapValue(v *contract.Value, max, cut int, dropped map[string]int) {
	if v == nil {
		return
	}
	if len(v.Text) > max {
		kept := TruncateUTF8(v.Text, max)
		cut += utf8.RuneCountInString(v.Text[len(kept):])
		v.Text = kept
	}
	for k, data := range v.MIME {
		if k != "text/plain" && len(data) > max {
			if dropped == nil {
				dropped = map[string]int{}
			}
			dropped[k] = len(data)
			delete(v.MIME, k)
		}
	}
	if cut > 0 {
		v.Text += fmt.Sprintf("\n[backyard: value truncated at %d bytes; %d more characters not shown]", max, cut)
	}
	for _, k := range slices.Sorted(maps.Keys(dropped)) {
		v.Text += fmt.Sprintf("\n[backyard: its %s data (%d bytes) is over the %d-byte output limit and was left out]", k, dropped[k], max)
	}
	if _, ok := v.MIME["text/plain"]; ok {
		v.MIME["text/plain"] = v.Text
	}
}
