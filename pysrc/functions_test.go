package pysrc

import (
	"slices"
	"testing"
)

// Every def and lambda, with its qualified name; a text only where the
// source alone gives it.
func TestFunctions(t *testing.T) {
	for code, want := range map[string][]Function{
		"def outer(a):\n    def inner(y, z=1, *, k='q'):\n        return y\n    return inner": {
			{"outer", "<function __main__.outer(a)>"},
			{"inner", "<function __main__.outer.<locals>.inner(y, z=1, *, k='q')>"},
		},
		"def mk(n):\n    return lambda x, s=(1,): x + n": {
			{"mk", "<function __main__.mk(n)>"},
			{"<lambda>", "<function __main__.mk.<locals>.<lambda>(x, s=(1,))>"},
		},
		"class A:\n    f = lambda self: 1\n    async def m(self, b=None) -> 'A':\n        if b:\n            def n(): pass\n        return n\nx = 2\ndef g(): pass": {
			{"<lambda>", "<function __main__.A.<lambda>(self)>"},
			{"m", "<function __main__.A.m(self, b=None) -> 'A'>"},
			{"n", "<function __main__.A.m.<locals>.n()>"},
			{"g", "<function __main__.g()>"},
		},
		"def f():\n    class K:\n        def m(self): pass\n    return K": {
			{"f", "<function __main__.f()>"},
			{"m", "<function __main__.f.<locals>.K.m(self)>"},
		},
		"if True:\n    def top(x=...): pass": {{"top", "<function __main__.top(x=Ellipsis)>"}},
		// Not from the source alone: a decorated def, a default or an
		// annotation that is not a literal, lambdas sharing a line or in a
		// comprehension, a lambda on a def's line.
		"def d(f):\n    return f\n@d\ndef e(x): pass": {{"d", "<function __main__.d(f)>"}, {"e", ""}},
		"def f(x=[]): pass":                           {{"f", ""}},
		"def f(x=1 + 2): pass":                        {{"f", ""}},
		"def f(x: int): pass":                         {{"f", ""}},
		"def f(x=b'a'): pass":                         {{"f", ""}},
		"def f(x='\\x00'): pass":                      {{"f", ""}},
		"fs = [lambda: i for i in range(3)]":          {{"<lambda>", ""}},
		"p = (lambda: 1, lambda: 2)":                  {{"<lambda>", ""}, {"<lambda>", ""}},
		"def f(): return lambda: 1":                   {{"<lambda>", ""}, {"f", "<function __main__.f()>"}},
		"s = f'{(g := lambda: 1)}'":                   {{"<lambda>", ""}},
		"x = 1":                                       nil,
	} {
		got, ok := Functions(code)
		if !ok || !slices.Equal(got, want) {
			t.Errorf("%q: %q %v, want %q", code, got, ok, want)
		}
	}
	if _, ok := Functions("def f(:\n  'x"); ok {
		t.Error("a tokenizing error is not reported")
	}
}

// A default's repr as CPython gives it (checked against CPython 3.11).
func TestLiteralRepr(t *testing.T) {
	for src, want := range map[string]string{
		"0": "0", "- 0": "0", "7": "7", "0x1F": "31", "0o17": "15", "0b101": "5", "1_000": "1000",
		"1.0": "1.0", "1.": "1.0", ".5": "0.5", "2.50": "2.5", "1e-05": "1e-05", "1e-4": "0.0001", "0.0001": "0.0001",
		"1e16": "1e+16", "1e15": "1000000000000000.0", "123456789012345678.0": "1.2345678901234568e+17", "- 0.0": "-0.0",
		"1.5e300": "1.5e+300", "3.141592653589793": "3.141592653589793", "- 2.5e-7": "-2.5e-07",
		"'a'": "'a'", `"it's"`: `"it's"`, `'a' "b"`: "'ab'", `r'\d'`: `'\\d'`, `'\t'`: `'\t'`, `"""x"""`: "'x'",
		"( 1 , ( 'a' , None ) , )": "(1, ('a', None))", "( )": "()", "( 1 , )": "(1,)", "( 2 )": "2", "...": "Ellipsis", "True": "True",
	} {
		if got, ok := literalRepr(src, false); !ok || got != want {
			t.Errorf("%s: %s %v, want %s", src, got, ok, want)
		}
	}
	for _, src := range []string{"00", "1j", "b'a'", "f'x'", "'\\x41'", "1 + 2", "x", "- x", "[1]", "99999999999999999999"} {
		if got, ok := literalRepr(src, false); ok {
			t.Errorf("%s: %s, want none", src, got)
		}
	}
}
