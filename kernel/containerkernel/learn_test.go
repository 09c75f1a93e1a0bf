package containerkernel

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/backyard-ls/backyard-ls/kernel"
)

// A module is learned once learnAfter snippets imported it (each counting
// once), not when snippets import it once in a while, never when it was
// preloaded, refused or is one whose import does more than define names.
func TestLearnerCounts(t *testing.T) {
	l := newLearner([]string{"pandas"})
	for range learnAfter - 1 {
		l.saw("import numpy as np\nimport numpy\nfrom numpy import linalg\nimport pandas, this\nfrom . import x")
	}
	if m := l.modules(); len(m) != 0 {
		t.Fatalf("learned too soon: %v", m)
	}
	l.saw("import numpy.linalg\nimport numpy")
	if m := l.modules(); !slices.Equal(m, []string{"numpy"}) {
		t.Fatalf("learned %v", m)
	}
	l.refuse("numpy")
	for range learnAfter {
		l.saw("import numpy")
	}
	if m := l.modules(); len(m) != 0 {
		t.Fatalf("a refused module came back: %v", m)
	}
	// One import every learnWindow/2 snippets is too few.
	for i := range learnWindow * 4 {
		if i%(learnWindow/2) == 0 {
			l.saw("import rare")
		} else {
			l.saw("x = 1")
		}
	}
	if m := l.modules(); len(m) != 0 {
		t.Fatalf("a rare import was learned: %v", m)
	}
	// Names counted stay bounded.
	for i := range learnNames * 3 {
		l.saw(fmt.Sprintf("import mod%d", i))
	}
	if n := len(l.counts); n > learnNames {
		t.Fatalf("%d names counted", n)
	}
}

// A lane's fork server learns what the snippets keep importing: the
// learnAfter-th snippet that imports numpy, and those after it, find it
// loaded. A module
// that does not import is forgotten and the lane goes on.
func TestForkLaneLearnsImports(t *testing.T) {
	l := newForkLane(t, "runc", kernel.Limits{})
	ctx := context.Background()
	code := "import sys\nhad = 'numpy' in sys.modules\nimport numpy as np\nprint(had, np.arange(4).sum())"
	for i := range learnAfter + 2 {
		r := l.Run(ctx, kernel.Snippet{Code: code})
		want := "False 6\n"
		if i >= learnAfter-1 { // learned with this snippet, imported before it runs
			want = "True 6\n"
		}
		if r.Status != kernel.StatusOK || r.Stdout != want {
			t.Fatalf("snippet %d: %+v %v", i, r, r.Error)
		}
	}
	if m := l.pool.Learned(); !slices.Equal(m, []string{"numpy"}) {
		t.Fatalf("learned %v", m)
	}
	for range learnAfter + 1 {
		r := l.Run(ctx, kernel.Snippet{Code: "try:\n    import no_such_module_anywhere\nexcept ImportError:\n    print('missing')"})
		if r.Status != kernel.StatusOK || r.Stdout != "missing\n" {
			t.Fatalf("%+v %v", r, r.Error)
		}
	}
	if m := l.pool.Learned(); !slices.Equal(m, []string{"numpy"}) {
		t.Fatalf("learned %v", m)
	}
}
