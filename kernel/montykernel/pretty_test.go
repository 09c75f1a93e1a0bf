package montykernel

import (
	"regexp"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
)

// Values the corpus cannot hold (addresses) or that are about limits, as
// IPython shows them.
func TestPrettyValuesOnMonty(t *testing.T) {
	k := newMonty(t, kernel.Limits{MaxOutputBytes: 4000})
	for code, want := range map[string]string{
		// An instance without __repr__: IPython's form, the class's module named.
		"class Bar:\n    pass\nBar()":          `^<__main__\.Bar at 0x[0-9a-f]+>$`,
		"class Bar:\n    pass\n[Bar(), Bar()]": `^\[<__main__\.Bar at 0x[0-9a-f]+>, <__main__\.Bar at 0x[0-9a-f]+>\]$`,
		// Exceptions as IPython's call expression, broken past the width.
		"ValueError('x' * 80)":         `^ValueError\('x{80}'\)$`,
		"[KeyError('k'), TypeError()]": `^\[KeyError\('k'\), TypeError\(\)\]$`,
		// A _repr_pretty_ that fails: the repr.
		"class Bad:\n    def _repr_pretty_(self, p, cycle):\n        raise ValueError('no')\n    def __repr__(self):\n        return 'Bad!'\n[Bad()]": `^\[Bad!\]$`,
		// Past the output limit: the repr, cut.
		"[str(i) * 10 for i in range(1000)]": `^\['0000000000', '1111111111', .*\n\[backyard: value truncated at 4000 bytes; \d+ more characters not shown\]$`,
		// None is not shown; a class is named as IPython names it.
		"from collections import Counter, deque\n[Counter, deque, dict]": `^\[collections\.Counter, collections\.deque, dict\]$`,
		"d = {}\nd[1] = d\n[d, d]":                                       `^\[\{1: \{\.\.\.\}\}, \{1: \{\.\.\.\}\}\]$`,
		"import re\n[re.compile('a+', re.I), re.compile(r'\\d')]":        `^\[re\.compile\(r'a\+', re\.IGNORECASE\|re\.UNICODE\), re\.compile\(r'\\d', re\.UNICODE\)\]$`,
		"{1: [1.5] * 30}": `^\{1: \[1\.5,\n  1\.5,\n  1\.5,\n`,
	} {
		r := kerneltest.Run(t, k, code)
		if r.Status != kernel.StatusOK || r.Value == nil || !regexp.MustCompile(`(?s)`+want).MatchString(r.Value.Text) {
			t.Errorf("%q: %s %+v %+v, want %s", code, r.Status, r.Value, r.Error, want)
		}
	}
	if r := kerneltest.Run(t, k, "None"); r.Value != nil {
		t.Errorf("None shown: %+v", r.Value)
	}
	// display() shows the same text.
	r := kerneltest.Run(t, k, "display({'b', 'a'}, list(range(30)))")
	if len(r.Displays) != 2 || r.Displays[0].Data["text/plain"] != "{'a', 'b'}" || !strings.HasPrefix(r.Displays[1].Data["text/plain"], "[0,\n 1,\n") {
		t.Fatalf("%+v %+v", r.Displays, r.Error)
	}
	for _, v := range kerneltest.Variables(t, k) {
		if strings.HasPrefix(v.Name, "__backyard") {
			t.Errorf("listed: %+v", v)
		}
	}
}
