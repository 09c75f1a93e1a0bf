package notebook

import (
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
)

func pos(line, char uint32) contract.Position { return contract.Position{Line: line, Character: char} }

func partial(sl, sc, el, ec uint32, text string) Change {
	return Change{Range: &contract.Range{Start: pos(sl, sc), End: pos(el, ec)}, Text: text}
}

func TestApplyChanges(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		changes []Change
		want    string
	}{
		{"insert", "ab\ncd\n", []Change{partial(1, 1, 1, 1, "X")}, "ab\ncXd\n"},
		{"replace across lines", "ab\ncd\nef", []Change{partial(0, 1, 2, 1, "-")}, "a-f"},
		{"whole document", "ab", []Change{{Text: "new"}}, "new"},
		{"in order", "abc", []Change{partial(0, 0, 0, 1, ""), partial(0, 0, 0, 0, "X")}, "Xbc"},
		// "😀" is two UTF-16 code units and four bytes.
		{"utf-16 after emoji", "😀x = 1\n", []Change{partial(0, 2, 0, 3, "y")}, "😀y = 1\n"},
		{"inside a surrogate pair rounds down", "😀x", []Change{partial(0, 1, 0, 1, "|")}, "|😀x"},
		{"é is one unit", "é=1", []Change{partial(0, 1, 0, 2, ":")}, "é:1"},
		{"crlf: end of line is before \\r", "ab\r\ncd\r\n", []Change{partial(0, 9, 0, 9, "!")}, "ab!\r\ncd\r\n"},
		{"crlf: next line", "ab\r\ncd\r\n", []Change{partial(1, 0, 1, 2, "XY")}, "ab\r\nXY\r\n"},
		{"past the end clamps", "ab\n", []Change{partial(7, 0, 9, 0, "z")}, "ab\nz"},
		{"character past the line clamps", "ab\ncd", []Change{partial(0, 40, 1, 0, "")}, "abcd"},
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
	if _, err := applyChanges("abc", []Change{partial(0, 2, 0, 1, "")}); err == nil {
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
	if got := s.Text(contract.Range{Start: pos(0, 1), End: pos(1, 2)}); got != "\r\nbé" {
		t.Errorf("Text = %q", got)
	}
}
