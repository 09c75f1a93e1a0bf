package pysrc

import (
	"encoding/json"
	"os"
	"reflect"
	"testing"
)

func TestZZDiff(t *testing.T) {
	b, err := os.ReadFile("/tmp/diff/corpus.json")
	if err != nil {
		t.Skip(err)
	}
	var c struct {
		Cases []struct {
			Code  string
			Trail any
			Toks  [][]string
		}
		Dedent []struct{ Code, Want string }
	}
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	names := map[Kind]string{Name: "NAME", Number: "NUMBER", String: "STRING", Op: "OP", Comment: "COMMENT", Newline: "NEWLINE"}
	bad := 0
	for _, cs := range c.Cases {
		s, e, ok := TrailingExpr(cs.Code)
		var got []int
		if ok {
			got = []int{s, e}
		}
		if cs.Trail == "skip" { continue }; var want []int; if a, ok := cs.Trail.([]any); ok { want = []int{int(a[0].(float64)), int(a[1].(float64))} }; if !reflect.DeepEqual(got, want) {
			bad++
			if bad < 30 {
				t.Errorf("trail %q: got %v want %v", cs.Code, got, cs.Trail)
			}
		}
		if cs.Toks != nil {
			toks, err := Tokenize(cs.Code)
			if err != nil {
				t.Errorf("tokenize %q: %v", cs.Code, err)
				continue
			}
			var g [][]string
			for _, tk := range toks {
				txt := tk.Text
				if tk.Kind == Newline {
					txt = "NL"
				}
				g = append(g, []string{names[tk.Kind], txt})
			}
			if !reflect.DeepEqual(g, cs.Toks) && !(len(g) == 0 && len(cs.Toks) == 0) {
				bad++
				if bad < 30 {
					t.Errorf("toks %q:\n got %v\nwant %v", cs.Code, g, cs.Toks)
				}
			}
		}
	}
	for _, d := range c.Dedent {
		if got := Dedent(d.Code); got != d.Want {
			t.Errorf("dedent %q: got %q want %q", d.Code, got, d.Want)
		}
	}
	t.Logf("%d cases, %d bad", len(c.Cases), bad)
}
