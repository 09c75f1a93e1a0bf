package pysrc

import (
	"strings"
	"testing"
)

// sigText shows a signature with its values' sources in brackets: {d} a
// default, <a> an annotation.
func sigText(s Signature) string {
	var b strings.Builder
	b.WriteString(s.Name)
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
		"class C:\n    def m(self): pass":                                           "",
		"def f(x): pass\nif x:\n    def f(y): pass":                                 "",
		"def f(x:\n": "",
		"y = 1":      "",
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
