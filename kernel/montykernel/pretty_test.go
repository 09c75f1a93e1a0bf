package montykernel

import (
	"context"
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

// address is a repr's object address, which valueText shows as "0x…".
var address = regexp.MustCompile(` at 0x[0-9a-f]+>`)

// valueText runs code and gives its value's text, addresses as "0x…"
// ("" without a value).
func valueText(t *testing.T, k kernel.Kernel, code string) (string, kernel.Result) {
	t.Helper()
	r := kerneltest.Run(t, k, code)
	if r.Value == nil {
		return "", r
	}
	return address.ReplaceAllString(r.Value.Text, " at 0x…>"), r
}

// A function shows as IPython shows it only when a def, a method's def or
// a lambda of the cells gave it a signature whose values can be had again;
// otherwise as Monty's repr (its address as "0x…" here), never with another
// function's signature.
func TestFunctionSignaturesOnMonty(t *testing.T) {
	k := newMonty(t, kernel.Limits{})
	for _, c := range []struct{ code, want string }{
		{"def f(x, y=1 + 2, *a, z: int = -1, **kw) -> None:\n    pass\nf", "<function __main__.f(x, y=3, *a, z: int = -1, **kw) -> None>"},
		{"def f(x=[]):\n    pass", ""},
		{"f", "<function 'f' at 0x…>"}, // a mutable default: its value may have changed since the def
		{"N = 2\ndef g(x=N):\n    pass\ng", "<function 'g' at 0x…>"},
		{"def h(x: Optional[int]):\n    pass\nh", "<function 'h' at 0x…>"},
		{"def d(f):\n    return f\n@d\ndef e(a):\n    pass\ne", "<function 'e' at 0x…>"},
		{"def s(q=1):\n    pass\nold = s\ndef s(z):\n    pass\n[old, s]", "[<function 's' at 0x…>, <function __main__.s(z)>]"},
		{"def u(x):\n    pass\n1 / 0", ""},
		{"u", "<function __main__.u(x)>"}, // the cell raised before its signatures were kept, but u's one def names it
		{"def v(x):\n    pass\nv = len\nv", "<built-in function len>"},
		{"class C:\n    def m(self, a=1):\n        pass\nC.m", "<function __main__.C.m(self, a=1)>"},
		{"class D:\n    def m(self):\n        pass\nold = D\nclass D:\n    def n(self):\n        pass\n[D.n, old.m]", "[<function __main__.D.n(self)>, <function 'm' at 0x…>]"}, // the class that had m was replaced
		{"sq = lambda x, y=(1, 2): x\nsq", "<function __main__.<lambda>(x, y=(1, 2))>"},
		{"lambda *a, k=None: a", "<function __main__.<lambda>(*a, k=None)>"},
		{"lambda x=[]: x", "<function '<lambda>' at 0x…>"},
		// Monty's functions carry no defaults or qualified name: a nested
		// function is named by its name's one def; a lambda a function made
		// here is one of several, and a bound method keeps Monty's repr.
		{"def outer(a):\n    def inner(y, z=1):\n        return y\n    return inner\nouter(5)", "<function __main__.outer.<locals>.inner(y, z=1)>"},
		{"def mk():\n    return lambda q: q\nmk()", "<function '<lambda>' at 0x…>"},
		{"C().m", "<bound method>"},
	} {
		if got, r := valueText(t, k, c.code); got != c.want {
			t.Errorf("%q: %q, want %q (%+v)", c.code, got, c.want, r.Error)
		}
	}
}

// A function without a kept signature is named by the one def or lambda
// of its name in the code the session ran, whatever cell or scope it is
// in; when two of them differ, one is decorated or has a default that is
// not a literal, it keeps Monty's repr.
func TestFunctionNamesOnMonty(t *testing.T) {
	k := newMonty(t, kernel.Limits{})
	for _, c := range []struct{ code, want string }{
		{"def outer():\n    def inner(y, z=(1, 'a'), *, k=-2.5e-7):\n        return y\n    return inner\ng = outer()\ng",
			"<function __main__.outer.<locals>.inner(y, z=(1, 'a'), *, k=-2.5e-07)>"},
		{"def mk():\n    return lambda q=None: q\nl = mk()\n[l]", "[<function __main__.mk.<locals>.<lambda>(q=None)>]"},
		// The same def run again gives the same text.
		{"def outer():\n    def inner(y, z=(1, 'a'), *, k=-2.5e-7):\n        return y\n    return inner\n[g, outer()]",
			"[<function __main__.outer.<locals>.inner(y, z=(1, 'a'), *, k=-2.5e-07)>,\n <function __main__.outer.<locals>.inner(y, z=(1, 'a'), *, k=-2.5e-07)>]"},
		// A cell that fails midway: its defs count, run or not.
		{"def make():\n    def made(x):\n        pass\n    return made\nm = make()\n1 / 0", ""},
		{"m", "<function __main__.make.<locals>.made(x)>"},
		{"1 / 0\ndef other():\n    def made(y):\n        pass", ""},
		{"m", "<function 'made' at 0x…>"},
		// Another def of the name, in a later cell: neither text is sure.
		{"def outer2():\n    def inner(y, z=2):\n        return y\n    return inner\ng", "<function 'inner' at 0x…>"},
		// Another lambda, anywhere.
		{"sorted([3, 1], key=lambda v: -v)\nl", "<function '<lambda>' at 0x…>"},
		// A default that is not a literal, a decorated def, a lambda in a
		// comprehension.
		{"N = 1\ndef o1():\n    def d1(x=N):\n        pass\n    return d1\no1()", "<function 'd1' at 0x…>"},
		{"def same(f):\n    return f\ndef o2():\n    @same\n    def d2(x):\n        pass\n    return d2\no2()", "<function 'd2' at 0x…>"},
		// The prelude's display is not a cell's def of that name.
		{"def o3():\n    def display(x):\n        pass\n    return display\n[o3(), display]", "[<function 'display' at 0x…>, <function 'display' at 0x…>]"},
		// A class's method in a function, and a def in a method.
		{"def o4():\n    class K:\n        def m(self, a=1):\n            def n():\n                pass\n            return n\n    return K\nK4 = o4()\n[K4.m, K4().m()]",
			"[<function __main__.o4.<locals>.K.m(self, a=1)>,\n <function __main__.o4.<locals>.K.m.<locals>.n()>]"},
	} {
		if got, r := valueText(t, k, c.code); got != c.want {
			t.Errorf("%q: %q, want %q (%+v)", c.code, got, c.want, r.Error)
		}
	}
	// A restart forgets the defs: the next session's are alone.
	if err := k.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := kerneltest.Run(t, k, "def outer():\n    def inner(q):\n        pass\n    return inner\nouter()")
	if r.Value == nil || r.Value.Text != "<function __main__.outer.<locals>.inner(q)>" {
		t.Errorf("after a restart: %+v %+v", r.Value, r.Error)
	}
}
