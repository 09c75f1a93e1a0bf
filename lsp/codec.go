package lsp

import (
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// codec encodes params and results with the protocol package: its generated,
// reflection-free coders for LSP types (and their unions), encoding/json/v2
// for backyard's own types.
type codec struct{}

var _ jsonrpc2.Codec = codec{}

func (codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case nil:
		return []byte("null"), nil
	case jsonrpc2.RawMessage:
		if m == nil {
			return []byte("null"), nil
		}
		return m, nil
	case appendJSONer:
		return m.appendJSON(make([]byte, 0, 256)), nil
	}
	return protocol.Marshal(v)
}

func (codec) Unmarshal(data []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append((*p)[:0], data...)
		return nil
	}
	return protocol.Unmarshal(data, v)
}

// appendJSONer is implemented by the hot-path messages that encode
// themselves without reflection.
type appendJSONer interface {
	appendJSON(dst []byte) []byte
}
