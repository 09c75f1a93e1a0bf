package notebook

import (
	"testing"

	"github.com/backyard-ls/backyard-ls/cells"
	"github.com/backyard-ls/backyard-ls/contract"
)

// ran records a finished run of every code cell of text, as the server
// does, and returns the results mapped onto version 1.
func ran(text string) *results {
	r := &results{}
	s := &snapshot{version: 1, text: text}
	r.remap(s)
	for _, c := range s.Cells() {
		if c.Kind == cells.Code {
			rec := r.queue(c, 0)
			r.finish(rec, &contract.Execution{ID: c.Code}, noDiag)
		}
	}
	return r
}

// view is index → code that ran (stale ones marked "~").
func view(r *results) map[int]string {
	m := map[int]string{}
	for _, c := range r.cells {
		v := c.code
		if c.stale {
			v = "~" + v
		}
		m[c.index] = v
	}
	return m
}

func TestRemap(t *testing.T) {
	base := "# %%\na = 1\n# %%\nb = 2\n# %%\nc = 3\n"
	tests := []struct {
		name, text string
		want       map[int]string
	}{
		{"unchanged", base, map[int]string{0: "a = 1", 1: "b = 2", 2: "c = 3"}},
		{"edit marks stale", "# %%\na = 1\n# %%\nb = 20\n# %%\nc = 3\n", map[int]string{0: "a = 1", 1: "~b = 2", 2: "c = 3"}},
		{"insert above moves all", "# %%\nnew\n" + base, map[int]string{1: "a = 1", 2: "b = 2", 3: "c = 3"}},
		{"insert above and edit: the edited one moves too", "# %%\nnew\n# %%\na = 1\n# %%\nb = 20\n# %%\nc = 3\n", map[int]string{1: "a = 1", 2: "~b = 2", 3: "c = 3"}},
		{"delete a cell", "# %%\na = 1\n# %%\nc = 3\n", map[int]string{0: "a = 1", 1: "c = 3"}},
		{"swap", "# %%\nb = 2\n# %%\na = 1\n# %%\nc = 3\n", map[int]string{0: "b = 2", 1: "a = 1", 2: "c = 3"}},
		{"all gone", "", map[int]string{}},
		{"cell became markdown", "# %% [markdown]\na = 1\n# %%\nb = 2\n# %%\nc = 3\n", map[int]string{1: "b = 2", 2: "c = 3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := ran(base)
			r.remap(&snapshot{version: 2, text: tt.text})
			if got := view(r); !equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func equal(a, b map[int]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func TestUnqueueRestoresPreviousResult(t *testing.T) {
	r := ran("# %%\na = 1\n")
	s := &snapshot{version: 1, text: "# %%\na = 1\n"}
	prev := r.cells[0]
	rec := r.queue(s.Cells()[0], 0)
	if r.cells[0] != rec || rec.prev != prev {
		t.Fatal("queue did not replace the result")
	}
	r.unqueue(rec)
	if len(r.cells) != 1 || r.cells[0] != prev {
		t.Fatalf("unqueue: %+v", r.cells)
	}
}
