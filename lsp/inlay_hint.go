package lsp

import (
	"context"
	"strconv"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// maxHintLabel bounds an inlay hint's label, in characters.
const maxHintLabel = 60

// inlayHint answers textDocument/inlayHint: the value of each cell's
// trailing expression ("⇒ 42") at the end of the cell, for cells whose last
// run is current (not stale, same kernel), and of each selection run at the
// end of the selection. Only clients with inlay-hint support ask.
func (s *server) inlayHint(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p protocol.InlayHintParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	hints := []protocol.InlayHint{}
	d := s.docs.get(string(p.TextDocument.URI))
	if d == nil {
		return hints, nil
	}
	gen := d.sess.generation()
	d.mu.Lock()
	defer d.mu.Unlock()
	snap := d.snapshotLocked()
	d.results.remap(snap)
	all := snap.Cells()
	// One hint per position: a cell and a selection that end together show
	// the newer run's value.
	newest := map[protocol.Position]*Execution{}
	var order []protocol.Position
	add := func(pos protocol.Position, x *Execution) {
		if x == nil || x.Result == nil || !inRange(pos, p.Range) {
			return
		}
		if old, ok := newest[pos]; !ok {
			order = append(order, pos)
		} else if executionSeq(old.ID) > executionSeq(x.ID) {
			return
		}
		newest[pos] = x
	}
	for _, c := range d.results.cells {
		if c.state != stateDone || c.stale || c.gen != gen || c.index >= len(all) {
			continue
		}
		end := all[c.index].End
		add(protocol.Position{Line: uint32(end.Line), Character: uint32(end.Character)}, c.exec)
	}
	for _, r := range d.results.ranges {
		if r.exec != nil {
			add(r.exec.Range.End, r.exec)
		}
	}
	yes := true
	for _, pos := range order {
		full := newest[pos].Result.Text
		hints = append(hints, protocol.InlayHint{
			Position:    pos,
			Label:       protocol.String(hintLabel(full)),
			Tooltip:     protocol.String(cutUTF8(full, 4000)),
			PaddingLeft: &yes,
		})
	}
	return hints, nil
}

// executionSeq is the sequence number in an execution id ("e12" → 12).
func executionSeq(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "e"))
	return n
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

func inRange(p protocol.Position, r protocol.Range) bool {
	if r == (protocol.Range{}) {
		return true
	}
	after := p.Line > r.Start.Line || p.Line == r.Start.Line && p.Character >= r.Start.Character
	before := p.Line < r.End.Line || p.Line == r.End.Line && p.Character <= r.End.Character
	return after && before
}
