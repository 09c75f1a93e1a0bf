package lsp

import (
	"testing"

	"go.lsp.dev/protocol"
)

func pos(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }

func partial(sl, sc, el, ec uint32, text string) protocol.TextDocumentContentChangeEvent {
	return &protocol.TextDocumentContentChangePartial{Range: protocol.Range{Start: pos(sl, sc), End: pos(el, ec)}, Text: text}
}

func TestApplyChanges(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		changes []protocol.TextDocumentContentChangeEvent
		want    string
	}{
		{"insert", "ab\ncd\n", []protocol.TextDocumentContentChangeEvent{partial(1, 1, 1, 1, "X")}, "ab\ncXd\n"},
		{"replace across lines", "ab\ncd\nef", []protocol.TextDocumentContentChangeEvent{partial(0, 1, 2, 1, "-")}, "a-f"},
		{"whole document", "ab", []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: "new"}}, "new"},
		{"in order", "abc", []protocol.TextDocumentContentChangeEvent{partial(0, 0, 0, 1, ""), partial(0, 0, 0, 0, "X")}, "Xbc"},
		// "😀" is two UTF-16 code units and four bytes.
		{"utf-16 after emoji", "😀x = 1\n", []protocol.TextDocumentContentChangeEvent{partial(0, 2, 0, 3, "y")}, "😀y = 1\n"},
		{"inside a surrogate pair rounds down", "😀x", []protocol.TextDocumentContentChangeEvent{partial(0, 1, 0, 1, "|")}, "|😀x"},
		{"é is one unit", "é=1", []protocol.TextDocumentContentChangeEvent{partial(0, 1, 0, 2, ":")}, "é:1"},
		{"crlf: end of line is before \\r", "ab\r\ncd\r\n", []protocol.TextDocumentContentChangeEvent{partial(0, 9, 0, 9, "!")}, "ab!\r\ncd\r\n"},
		{"crlf: next line", "ab\r\ncd\r\n", []protocol.TextDocumentContentChangeEvent{partial(1, 0, 1, 2, "XY")}, "ab\r\nXY\r\n"},
		{"past the end clamps", "ab\n", []protocol.TextDocumentContentChangeEvent{partial(7, 0, 9, 0, "z")}, "ab\nz"},
		{"character past the line clamps", "ab\ncd", []protocol.TextDocumentContentChangeEvent{partial(0, 40, 1, 0, "")}, "abcd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := applyChanges(tt.text, tt.changes)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
	if _, err := applyChanges("abc", []protocol.TextDocumentContentChangeEvent{partial(0, 2, 0, 1, "")}); err == nil {
		t.Error("a range that ends before it starts was accepted")
	}
}

func TestSnapshotLines(t *testing.T) {
	s := &snapshot{text: "a\r\nbé😀\n\nlast\r"}
	if n := s.LineCount(); n != 4 {
		t.Fatalf("LineCount = %d, want 4", n)
	}
	for i, want := range []string{"a", "bé😀", "", "last\r"} {
		if got := s.Line(i); got != want {
			t.Errorf("Line(%d) = %q, want %q", i, got, want)
		}
	}
	r := s.lineRange(1)
	if r.Start.Character != 0 || r.End.Character != 4 {
		t.Errorf("lineRange(1) = %v, want characters 0-4 (é 1 unit, 😀 2)", r)
	}
	if got := s.Text(protocol.Range{Start: pos(0, 1), End: pos(1, 2)}); got != "\r\nbé" {
		t.Errorf("Text = %q", got)
	}
}

func TestFormatDuration(t *testing.T) {
	for ms, want := range map[float64]string{0.043: "0.04 ms", 1.23: "1.2 ms", 120.4: "120 ms", 1500: "1.5 s", 125000: "2 min 5 s"} {
		if got := formatDuration(ms); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", ms, got, want)
		}
	}
}

func TestHintLabel(t *testing.T) {
	long := ""
	for range 100 {
		long += "x"
	}
	for v, want := range map[string]string{
		"42":       "⇒ 42",
		"[1,\n 2]": "⇒ [1,…",
		long:       "⇒ " + long[:maxHintLabel] + "…",
	} {
		if got := hintLabel(v); got != want {
			t.Errorf("hintLabel(%q) = %q, want %q", v, got, want)
		}
	}
}
