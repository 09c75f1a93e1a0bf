package lsp

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"
)

// maxHintLabel bounds an inlay hint's label, in characters.
const maxHintLabel = 60

// InlayHint answers textDocument/inlayHint: the value of each cell's
// trailing expression ("⇒ 42") at the end of the cell, for cells whose last
// run is current (not stale, same kernel), and of each selection run at the
// end of the selection. Only clients with inlay-hint support ask.
func (s *server) InlayHint(_ context.Context, p *protocol.InlayHintParams) ([]protocol.InlayHint, error) {
	hints := []protocol.InlayHint{}
	d := s.nb.Document(string(p.TextDocument.URI))
	if d == nil {
		return hints, nil
	}
	yes := true
	for _, h := range d.Hints(contractRange(p.Range)) {
		hints = append(hints, protocol.InlayHint{
			Position:    lspPosition(h.Pos),
			Label:       protocol.String(hintLabel(h.Value)),
			Tooltip:     protocol.String(cutUTF8(h.Value, 4000)),
			PaddingLeft: &yes,
		})
	}
	return hints, nil
}

// hintLabel is "⇒ " and the value's first line, cut to maxHintLabel
// characters.
func hintLabel(v string) string {
	line, more := v, false
	if i := strings.IndexByte(v, '\n'); i >= 0 {
		line, more = v[:i], true
	}
	if r := []rune(line); len(r) > maxHintLabel {
		line, more = string(r[:maxHintLabel]), true
	}
	if more {
		line += "…"
	}
	return "⇒ " + line
}

// cutUTF8 cuts s to at most n bytes without splitting a character.
func cutUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
