package pysrc

import (
	"strings"
	"testing"
)

const noExpr = "<none>"

func TestTrailingExpr(t *testing.T) {
	tests := []struct {
		code string
		want string // code[start:end], or noExpr when ok is false
	}{
		// empty, blank, comments
		{"", noExpr},
		{"\n\n", noExpr},
		{"# just a comment\n", noExpr},
		{"x = 1\n# c\n", noExpr},
		// simple expressions
		{"1", "1"},
		{"x", "x"},
		{"print(1)", "print(1)"},
		{"a == b", "a == b"},
		{"a <= b", "a <= b"},
		{"a >= b != c", "a >= b != c"},
		{"{'a': 1}", "{'a': 1}"},
		{"x[1:2]", "x[1:2]"},
		{"f(a=1)", "f(a=1)"},
		{"a.b(c=1, d=lambda e=2: e)", "a.b(c=1, d=lambda e=2: e)"},
		{`"a = b # c"`, `"a = b # c"`},
		{"f'{x=}'", "f'{x=}'"},
		{"a, b", "a, b"},
		{"*a, b", "*a, b"},
		{"-x", "-x"},
		{"~x", "~x"},
		{"...", "..."},
		{"[1, 2]", "[1, 2]"},
		{"x.y", "x.y"},
		{"x if y else z", "x if y else z"},
		{"print(1) if x else None", "print(1) if x else None"},
		{"a[lambda: 1]", "a[lambda: 1]"},
		{"(y := 5)", "(y := 5)"},
		{"f(x := 1)", "f(x := 1)"},
		// expression keywords and soft keywords
		{"await f()", "await f()"},
		{"not x", "not x"},
		{"None", "None"},
		{"True", "True"},
		{"False", "False"},
		{"lambda: 1", "lambda: 1"},
		{"lambda a=1: a", "lambda a=1: a"},
		{"lambda a=1: lambda b=2: a+b", "lambda a=1: lambda b=2: a+b"},
		{"(lambda a=1: a)()", "(lambda a=1: a)()"},
		{"match(x)", "match(x)"},
		{"type(x)", "type(x)"},
		{"_", "_"},
		{"case", "case"},
		// statements separated by ';'
		{"a = 1; a", "a"},
		{"a = 1; a  # show a", "a"},
		{"a; b", "b"},
		{"import os; os", "os"},
		{"pass; 1", "1"},
		{"x;", noExpr},
		{"x ; ", noExpr},
		{"x;  # quiet\n", noExpr},
		{"a; b;", noExpr},
		{"a = 1;", noExpr},
		{"a; b = 1", noExpr},
		// surroundings excluded
		{"x  # comment", "x"},
		{"x\n\n\n", "x"},
		{"x\n  # indented comment\n\n", "x"},
		{"1 # c\n  \n", "1"},
		{"a = 1\r\na\r\n", "a"},
		{"\ufeffx", "x"},
		{"x = 1\n\n  \n\nx + 1  \n\n", "x + 1"},
		// multi-line expressions
		{"f(\n  1,\n  2,\n)\n", "f(\n  1,\n  2,\n)"},
		{"f(\n  1,  # one\n  2)  # two\n", "f(\n  1,  # one\n  2)"},
		{"1 + \\\n2", "1 + \\\n2"},
		{"\"\"\"a\nb = 1\n\"\"\"", "\"\"\"a\nb = 1\n\"\"\""},
		{"x = 1\n[\n  x,\n  x + 1,\n]\n", "[\n  x,\n  x + 1,\n]"},
		{"def f():\n    return 1\nf()", "f()"},
		{"if x:\n    y\nz", "z"},
		{"for i in range(3):\n    pass\nelse_ = 1\nelse_", "else_"},
		// assignments and annotations
		{"x = 1", noExpr},
		{"x = y = 1", noExpr},
		{"d[k] = v", noExpr},
		{"f(x)[0] = 1", noExpr},
		{"x.y = 1", noExpr},
		{"a, b = 1, 2", noExpr},
		{`s = "a = b # c"`, noExpr},
		{"x = 1  # a == b", noExpr},
		{"f = lambda: 1", noExpr},
		{"lambda: x = 1", noExpr},
		{"x: int", noExpr},
		{"x: int = 3", noExpr},
		{"y := 5", noExpr},
		{"x += 1", noExpr},
		{"x **= 2", noExpr},
		{"x //= 2", noExpr},
		{"x @= m", noExpr},
		{"x >>= 1", noExpr},
		{"type X = int", noExpr},
		{"match = 1", noExpr},
		// keyword statements
		{"import os", noExpr},
		{"from a import b", noExpr},
		{"pass", noExpr},
		{"return x", noExpr},
		{"del x", noExpr},
		{"global x", noExpr},
		{"nonlocal x", noExpr},
		{"raise E", noExpr},
		{"assert x", noExpr},
		{"break", noExpr},
		{"continue", noExpr},
		{"yield", noExpr},
		{"yield x", noExpr},
		// compound statements
		{"if x:\n    y", noExpr},
		{"if x: y", noExpr},
		{"if x: a; b", noExpr},
		{"for i in r: i", noExpr},
		{"while x: y", noExpr},
		{"with open(f) as g: g.read()", noExpr},
		{"async with a: b", noExpr},
		{"async def f(): pass", noExpr},
		{"try:\n    x\nexcept E:\n    pass", noExpr},
		{"try:\n    x\nfinally:\n    y", noExpr},
		{"def f(): pass", noExpr},
		{"class A: pass", noExpr},
		{"@dec\ndef f(): pass", noExpr},
		{"@dec\ndef f():\n    return 1\n", noExpr},
		{"@dataclass\nclass A:\n    x: int\n", noExpr},
		{"@", noExpr},
		{"match x:\n    case 1:\n        pass\n", noExpr},
		{"match x:", noExpr},
		{"else: x", noExpr},
		// indentation
		{"  x", noExpr},
		{"if x:\n    y\n    z\n", noExpr},
		{"\tx", noExpr},
		// cannot tokenize / not an expression start
		{"x = (1,\n2", noExpr},
		{"(1, 2", noExpr},
		{`"abc`, noExpr},
		{"'''abc", noExpr},
		{"x)", noExpr},
		{"a $ b", noExpr},
		{") + 1", noExpr},
		{"= 1", noExpr},
		{"x \\", noExpr},
		{";", noExpr},
	}
	for _, tt := range tests {
		start, end, ok := TrailingExpr(tt.code)
		got := noExpr
		if ok {
			got = tt.code[start:end]
		}
		if got != tt.want {
			t.Errorf("TrailingExpr(%q) = %q, want %q", tt.code, got, tt.want)
		}
	}
}

func TestTrailingExprOffsets(t *testing.T) {
	code := "x = 1\nx + 1  # c\n"
	start, end, ok := TrailingExpr(code)
	if !ok || start != 6 || end != 11 {
		t.Errorf("TrailingExpr(%q) = %d, %d, %v; want 6, 11, true", code, start, end, ok)
	}
}

// The rewrite a kernel does with the range must stay lexically valid.
func rewrite(code string, start, end int) string {
	return code[:start] + "repr((" + code[start:end] + "))" + code[end:]
}

func FuzzTrailingExpr(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		start, end, ok := TrailingExpr(code)
		if !ok {
			if start != 0 || end != 0 {
				t.Fatalf("TrailingExpr(%q) = %d, %d, false; want zero range", code, start, end)
			}
			return
		}
		if start < 0 || start >= end || end > len(code) {
			t.Fatalf("TrailingExpr(%q) = bad range %d, %d", code, start, end)
		}
		expr := code[start:end]
		if strings.TrimSpace(expr) != expr {
			t.Fatalf("TrailingExpr(%q) = %q, not trimmed", code, expr)
		}
		if _, err := Tokenize(rewrite(code, start, end)); err != nil {
			t.Fatalf("rewrite of %q does not tokenize: %v", code, err)
		}
	})
}

// lastLogicalLine finds from the end what logicalLines finds from the
// start, comments between tokens included.
func FuzzLastLogicalLine(f *testing.F) {
	for _, s := range append(fuzzSeeds, "x = 1  # a\ny  # b\n# c\n", "f(1,  # a\n  2)\n\n", "# only\n") {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		toks, _ := TokenizeLenient(code)
		var want []Token
		if lines := logicalLines(toks); len(lines) > 0 {
			want = lines[len(lines)-1]
		}
		got := lastLogicalLine(toks)
		if len(got) != len(want) {
			t.Fatalf("%q: got %d tokens, want %d", code, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%q: token %d is %+v, want %+v", code, i, got[i], want[i])
			}
		}
	})
}
