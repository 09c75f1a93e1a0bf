package pysrc

import (
	"strings"
	"testing"
)

// sigText shows a signature with its values' sources in brackets: {d} a
// default, <a> an annotation.
func sigText(s Signature) string {
	var b strings.Builder
	b.WriteString(s.Qual)
	if s.Ref != "" && s.Ref != s.Qual {
		b.WriteString("=" + s.Ref)
	}
	for _, p := range s.Parts {
		switch p.Kind {
		case SigDefault:
			b.WriteString("{" + p.Text + "}")
		case SigAnnotation:
			b.WriteString("<" + p.Text + ">")
		default:
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func TestSignatures(t *testing.T) {
	for code, want := range map[string]string{
		"def f(x, y=1):\n    pass":                                                  "f(x, y={1})",
		"def f():\n    pass":                                                        "f()",
		"async def f(*args, **kw): pass":                                            "f(*args, **kw)",
		"def f(a, /, b, *, c=3, **kw): pass":                                        "f(a, /, b, *, c={3}, **kw)",
		"def f(a: int, b: 'str' = 'x') -> int: pass":                                "f(a: <int>, b: <'str'> = {'x'}) -> <int>",
		"def f(\n    a,  # first\n    b=(1,\n       -2),\n): pass":                  "f(a, b={( 1 , - 2 )})",
		"def f(x: list[int] = (), *, y: dict[str, list[int]] = None) -> None: pass": "f(x: <list [ int ]> = {( )}, *, y: <dict [ str , list [ int ] ]> = {None}) -> <None>",
		"def f(s='it' 's', b=b'x', e=..., n=1.50, h=0x10): pass":                    "f(s={'it' 's'}, b={b'x'}, e={...}, n={1.50}, h={0x10})",
		"x = 1\ndef f(x): pass\ndef g(): pass\ndef f(y): pass":                      "g() f(y)",
		"def f(x=[]): pass":                                                         "",
		"def f(x=N): pass":                                                          "",
		"def f(x=1 + 2): pass":                                                      "f(x={1 + 2})",
		"def f(x=1j): pass":                                                         "",
		"def f(x=f'{y}'): pass":                                                     "",
		"def f(x: Optional[int]): pass":                                             "",
		"def f(x: list[A]): pass":                                                   "",
		"def f(x: int | None): pass":                                                "",
		"def f() -> typing.Any: pass":                                               "",
		"@cache\ndef f(x): pass":                                                    "",
		"class C:\n    def m(self, a=1): pass\n    def n(self):\n        def m(): pass": "C.n(self)",
		"class C:\n    k = 1\n    def m(self, a=1): pass\n    async def n(self): pass":  "C.m(self, a={1}) C.n(self)",
		"class C:\n    @staticmethod\n    def m(a): pass\n    def n(self): pass":        "C.n(self)",
		"@dataclass\nclass C:\n    def m(self): pass":                                   "",
		"class C:\n    class D:\n        def m(self): pass":                             "",
		"class C:\n    def m(self): pass\nclass C:\n    def n(self): pass":              "C.n(self)",
		"sq = lambda x, y=2, *a, **k: x":                                                "<lambda>=sq(x, y={2}, *a, **k)",
		"f = lambda: 0\ng = lambda: 1\nf = lambda z: z":                                 "<lambda>=g() <lambda>=f(z)",
		"f = lambda x=[]: x":                        "",
		"f = lambda x: x, 2":                        "",
		"f = lambda x: lambda y: y":                 "",
		"f = lambda x: {1: x}":                      "<lambda>=f(x)",
		"if x:\n    f = lambda: 0":                  "",
		"def f(x): pass\nif x:\n    def f(y): pass": "",
		"def f(x:\n":                                "",
		"y = 1":                                     "",
	} {
		var got []string
		for _, s := range Signatures(code) {
			got = append(got, sigText(s))
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%q: got %q, want %q", code, strings.Join(got, " "), want)
		}
	}
}

func TestTrailingLambda(t *testing.T) {
	for code, want := range map[string]string{
		"lambda x, y=3: x":                "<lambda>(x, y={3})",
		"f = 1\nlambda: f":                "<lambda>()",
		"lambda *a, k=None, **kw: a  # c": "<lambda>(*a, k={None}, **kw)",
		"lambda x=[]: x":                  "",
		"lambda x: x, 2":                  "",
		"(lambda x: x)":                   "",
		"lambda x: x;":                    "",
		"f = lambda x: x":                 "",
		"g(lambda x: x)":                  "",
	} {
		got := ""
		if s, start, end, ok := TrailingLambda(code); ok {
			got = sigText(s)
			if !strings.HasPrefix(code[start:end], "lambda") {
				t.Errorf("%q: the range is %q", code, code[start:end])
			}
		}
		if got != want {
			t.Errorf("%q: got %q, want %q", code, got, want)
		}
	}
}
