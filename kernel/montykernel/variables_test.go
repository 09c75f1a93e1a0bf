package montykernel

import (
	"strings"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
)

// The variables are listed in bounded time and size whatever the values:
// a huge list, a deep nesting and a dict of big strings are cut with the
// marker, a self-referencing list shows CPython's [...]; an object whose
// own repr never returns is shown without it once the listing's time is
// up, and the namespace is kept.
func TestVariablesBounded(t *testing.T) {
	k := newMonty(t, kernel.Limits{Timeout: time.Minute})
	r := kerneltest.Run(t, k, "big = list(range(3_000_000))\ndeep = []\ncur = deep\nfor _ in range(100_000):\n    n = []\n    cur.append(n)\n    cur = n\n"+
		"strs = {str(i): 'x' * 100_000 for i in range(300)}\ncyc = [1, 2]\ncyc.append(cyc)\nsmall = (1, 'a')")
	if r.Status != kernel.StatusOK {
		t.Fatalf("%+v %+v", r, r.Error)
	}
	got := kerneltest.Variables(t, k)
	for name, prefix := range map[string]string{"big": "[0, 1, 2, 3, ", "deep": "[[[[[[", "strs": "{'0': 'xxxx"} {
		r := got[name].Repr
		if !strings.HasPrefix(r, prefix) || !strings.HasSuffix(r, "…") || len(r) > 210 {
			t.Errorf("%s: %q", name, r)
		}
	}
	if got["cyc"].Repr != "[1, 2, [...]]" || got["small"].Repr != "(1, 'a')" {
		t.Errorf("%+v", got)
	}

	for _, body := range []string{"while True:\n            pass", "import time\n        time.sleep(600)"} {
		kerneltest.Run(t, k, "class Slow:\n    def __repr__(self):\n        "+body+"\n        return 'never'\nslow = Slow()")
		got = kerneltest.Variables(t, k)
		// (Monty refuses a sleep in a dunder method: the repr fails.)
		if slow := got["slow"].Repr; slow != "<Slow object>" && !strings.HasPrefix(slow, "<repr failed: ") || got["cyc"].Repr != "[1, 2, [...]]" {
			t.Errorf("%q: %+v", body, got)
		}
		if r := kerneltest.Run(t, k, "len(big), cyc[2] is cyc, type(slow).__name__"); r.Value == nil || r.Value.Text != "(3000000, True, 'Slow')" {
			t.Fatalf("after the listing: %+v %+v", r.Value, r.Error)
		}
	}
}
