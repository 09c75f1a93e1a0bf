package kcore

import (
	"encoding/json"
	"maps"

	"github.com/backyard-ls/backyard-ls/contract"
)

// MaxDisplays bounds the display outputs one execution keeps; later ones
// are dropped (an update or a clear still applies).
const MaxDisplays = 1000

// AddDisplay applies one display event of a running cell to its outputs:
// a new output, an update of the outputs with display id id (Jupyter's
// update_display_data, which changes them where they are), or a clear.
func AddDisplay(ds []contract.Display, data map[string]string, meta json.RawMessage, id string, update, clear bool) []contract.Display {
	switch {
	case clear:
		return ds[:0]
	case update:
		for i := range ds {
			if ds[i].DisplayID == id {
				ds[i].Data, ds[i].Metadata = maps.Clone(data), metadata(meta)
			}
		}
		return ds
	case len(ds) >= MaxDisplays:
		return ds
	}
	if data == nil {
		data = map[string]string{}
	}
	return append(ds, contract.Display{Data: data, Metadata: metadata(meta), DisplayID: id})
}

// metadata is meta unless it says nothing.
func metadata(meta json.RawMessage) []byte {
	if len(meta) == 0 || string(meta) == "{}" || string(meta) == "null" {
		return nil
	}
	return meta
}
