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

// A function shows as IPython shows it only when a def, a method's def or
// a lambda of the cells gave it a signature whose values can be had again;
// otherwise as Monty's repr (its address as "0x…" here), never with another
// function's signature.
func TestFunctionSignaturesOnMonty(t *testing.T) {
	k := newMonty(t, kernel.Limits{})
	address := regexp.MustCompile(` at 0x[0-9a-f]+>`)
	for _, c := range []struct{ code, want string }{
		{"def f(x, y=1 + 2, *a, z: int = -1, **kw) -> None:\n    pass\nf", "<function __main__.f(x, y=3, *a, z: int = -1, **kw) -> None>"},
		{"def f(x=[]):\n    pass", ""},
		{"f", "<function 'f' at 0x…>"}, // a mutable default: its value may have changed since the def
		{"N = 2\ndef g(x=N):\n    pass\ng", "<function 'g' at 0x…>"},
		{"def h(x: Optional[int]):\n    pass\nh", "<function 'h' at 0x…>"},
		{"def d(f):\n    return f\n@d\ndef e(a):\n    pass\ne", "<function 'e' at 0x…>"},
		{"def s(q=1):\n    pass\nold = s\ndef s(z):\n    pass\n[old, s]", "[<function 's' at 0x…>, <function __main__.s(z)>]"},
		{"def u(x):\n    pass\n1 / 0", ""},
		{"u", "<function 'u' at 0x…>"}, // the cell raised before its signatures were kept
		{"def v(x):\n    pass\nv = len\nv", "<built-in function len>"},
		{"class C:\n    def m(self, a=1):\n        pass\nC.m", "<function __main__.C.m(self, a=1)>"},
		{"class D:\n    def m(self):\n        pass\nold = D\nclass D:\n    def n(self):\n        pass\n[D.n, old.m]", "[<function __main__.D.n(self)>, <function 'm' at 0x…>]"}, // the class that had m was replaced
		{"sq = lambda x, y=(1, 2): x\nsq", "<function __main__.<lambda>(x, y=(1, 2))>"},
		{"lambda *a, k=None: a", "<function __main__.<lambda>(*a, k=None)>"},
		{"lambda x=[]: x", "<function '<lambda>' at 0x…>"},
		// Monty's functions carry no defaults or qualified name: a nested
		// function, a lambda a function made, a bound method keep Monty's
		// repr.
		{"def outer(a):\n    def inner(y, z=1):\n        return y\n    return inner\nouter(5)", "<function 'inner' at 0x…>"},
		{"def mk():\n    return lambda q: q\nmk()", "<function '<lambda>' at 0x…>"},
		{"C().m", "<bound method>"},
	} {
		r := kerneltest.Run(t, k, c.code)
		got := ""
		if r.Value != nil {
			got = address.ReplaceAllString(r.Value.Text, " at 0x…>")
		}
		if got != c.want {
			t.Errorf("%q: %q, want %q (%+v)", c.code, got, c.want, r.Error)
		}
	}
}
