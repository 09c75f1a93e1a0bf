package container

import (
	"strings"
	"testing"
)

// The variables are listed in bounded time and size whatever the values:
// a huge list, a deep nesting, a dict of big strings and a self-referencing
// list are cut with the marker (or shown as CPython shows a cycle), and an
// object whose own repr never returns is shown without it once the
// listing's time is up; the kernel lives on.
func TestDriverVariablesBounded(t *testing.T) {
	d := startLocal(t)
	d.run("big = list(range(3_000_000))\ndeep = []\ncur = deep\nfor _ in range(100_000):\n    cur.append([])\n    cur = cur[0]\n" +
		"strs = {str(i): 'x' * 100_000 for i in range(300)}\ncyc = [1, 2]\ncyc.append(cyc)\n" +
		"import time\nclass Slow:\n    def __repr__(self):\n        time.sleep(600)\n        return 'never'\nslow = Slow()\nsmall = (1, 'a')")
	d.send(message{T: msgVars, ID: 99, MaxRepr: 200})
	m := d.next()
	got := map[string]Variable{}
	for _, v := range m.Vars {
		got[v.Name] = v
	}
	for name, prefix := range map[string]string{"big": "[0, 1, 2, 3, ", "deep": "[[[[[[", "strs": "{'0': 'xxxx"} {
		r := got[name].Repr
		if !strings.HasPrefix(r, prefix) || !strings.HasSuffix(r, "…") || len(r) > 210 {
			t.Errorf("%s: %q", name, r)
		}
	}
	if got["cyc"].Repr != "[1, 2, [...]]" || got["small"].Repr != "(1, 'a')" || got["slow"].Repr != "<Slow object>" {
		t.Errorf("%+v", m.Vars)
	}
	if _, done := d.run("len(big), cyc[2] is cyc"); valueText(done) != "(3000000, True)" {
		t.Fatalf("%+v", done)
	}
}
