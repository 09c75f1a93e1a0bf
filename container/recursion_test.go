package container

import (
	"strconv"
	"strings"
	"testing"
)

// recursionProbe reads the recursion limit and how deep a function
// recurses before RecursionError.
const recursionProbe = `import sys
n = 0
def f():
    global n
    n += 1
    f()
try:
    f()
except RecursionError:
    pass
(sys.getrecursionlimit(), n)`

// checkRecursion checks a probe's value: CPython's limit, and a recursion
// that stops near it, as in a script (999) or Jupyter (a few frames less).
func checkRecursion(t *testing.T, value string) {
	t.Helper()
	t.Logf("(limit, depth) = %s", value)
	limit, depth, ok := strings.Cut(strings.Trim(value, "()"), ", ")
	n, err := strconv.Atoi(depth)
	if !ok || err != nil || limit != "1000" || n < 950 || n > 1000 {
		t.Fatalf("(limit, depth) = %s, want (1000, near 1000)", value)
	}
}

func TestDriverRecursionLimitIsCPythons(t *testing.T) {
	d := startLocal(t, "BACKYARD_RECURSION_LIMIT=1000")
	_, done := d.run(recursionProbe)
	checkRecursion(t, valueText(done))
}

func TestForkServerRecursionLimitIsCPythons(t *testing.T) {
	e := requireEngine(t)
	for _, rt := range []string{RuntimeRunc, RuntimeRunsc} {
		t.Run(rt, func(t *testing.T) {
			f := startForkServer(t, e, rt)
			checkRecursion(t, snippetValue(runSnippet(t, f, Snippet{Code: recursionProbe})))
		})
	}
}
