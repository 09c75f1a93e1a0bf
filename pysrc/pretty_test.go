package pysrc

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// Random sequences of the printer's primitives laid out as IPython laid
// them out (pysrc/testdata/pretty.json, made by scripts/record-pretty.py).
func TestPrettyAsIPython(t *testing.T) {
	data, err := os.ReadFile("testdata/pretty.json")
	if err != nil {
		t.Fatal(err)
	}
	var rec struct {
		Cases []struct {
			Width int                 `json:"width"`
			Ops   [][]json.RawMessage `json:"ops"`
			Text  string              `json:"text"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	broken := 0
	for i, c := range rec.Cases {
		p := NewPretty(c.Width)
		for _, op := range c.Ops {
			var kind, s string
			var n int
			json.Unmarshal(op[0], &kind)
			switch kind {
			case "text":
				json.Unmarshal(op[1], &s)
				p.Text(s)
			case "breakable":
				json.Unmarshal(op[1], &s)
				p.Breakable(s)
			case "break":
				p.Break()
			case "indent":
				json.Unmarshal(op[1], &n)
				p.Indent(n)
			case "begin", "end":
				json.Unmarshal(op[1], &n)
				json.Unmarshal(op[2], &s)
				if kind == "begin" {
					p.BeginGroup(n, s)
				} else {
					p.EndGroup(n, s)
				}
			}
		}
		if got := p.String(); got != c.Text {
			t.Errorf("case %d (width %d):\n%s\nIPython:\n%s", i, c.Width, got, c.Text)
		} else if slices.Contains([]byte(got), '\n') {
			broken++
		}
	}
	if broken < len(rec.Cases)/3 {
		t.Errorf("only %d of %d cases break a line", broken, len(rec.Cases))
	}
}

// A repr's lines are lines of the text, at the indentation of the group.
func TestPrettyRepr(t *testing.T) {
	p := NewPretty(79)
	p.BeginGroup(1, "[")
	p.Repr("+--+\r\n|a|\n+--+")
	p.Text(",")
	p.Breakable(" ")
	p.Repr("x")
	p.EndGroup(1, "]")
	if got := p.String(); got != "[+--+\n |a|\n +--+,\n x]" {
		t.Errorf("%q", got)
	}
	for s, want := range map[string][]string{"": nil, "a": {"a"}, "a\n": {"a"}, "a\r\nb\rc\u0085d\u2028": {"a", "b", "c", "d"}, "\n\n": {"", ""}} {
		if got := SplitLines(s); !slices.Equal(got, want) {
			t.Errorf("SplitLines(%q) = %q, want %q", s, got, want)
		}
	}
}
