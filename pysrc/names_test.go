package pysrc

import (
	"reflect"
	"strings"
	"testing"
)

func TestNames(t *testing.T) {
	tests := []struct {
		code string
		want []string
	}{
		{"", nil},
		{"# x y\n", nil},
		{"x = 1\ny = x + z", []string{"x", "y", "z"}},
		{"a.b.c", []string{"a"}},
		{"obj . attr", []string{"obj"}},
		{"x = (\n  y .\n  z)", []string{"x", "y"}},
		{"f(a=1, b=c)", []string{"f", "c"}},
		{"f(a = 1)", []string{"f"}},
		{"f(a == 1)", []string{"f", "a"}},
		{"f(x)(y=2)", []string{"f", "x"}},
		{"dict(a=1)['a']", []string{"dict"}},
		{"f(**kw)", []string{"f", "kw"}},
		{"d = {a: b}", []string{"d", "a", "b"}},
		{"def g(p=1): return p", []string{"g", "p"}},
		{"(lambda a=1: a)()", []string{"a"}},
		{"x = 'y z' # w", []string{"x"}},
		{"x = f'{y}'", []string{"x"}},
		{"match = case = type = _ = 1", []string{"match", "case", "type", "_"}},
		{"True and None or not x", []string{"x"}},
		{"for i in range(3): print(i)", []string{"i", "range", "print"}},
		{"[a for a in b if a]", []string{"a", "b"}},
		{"café = π", []string{"café", "π"}},
		{"import numpy as np", []string{"numpy", "np"}},
		{"x = 1; x = 2; y = x", []string{"x", "y"}},
		{"a = 1\nb = 'c", []string{"a", "b"}}, // tokens before the error
	}
	for _, tt := range tests {
		if got := Names(tt.code); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Names(%q) = %q, want %q", tt.code, got, tt.want)
		}
	}
}

func TestImports(t *testing.T) {
	tests := []struct {
		code string
		want []Import
	}{
		{"", nil},
		{"x = 1", nil},
		{"import os", []Import{{"os", "os", 0}}},
		{"import a.b as c, d", []Import{{"a.b", "a", 0}, {"d", "d", 0}}},
		{"import a.b.c", []Import{{"a.b.c", "a", 0}}},
		{"import a,\\\n  b", []Import{{"a", "a", 0}, {"b", "b", 1}}},
		{"from a import b", []Import{{"a", "a", 0}}},
		{"from a.b import *", []Import{{"a.b", "a", 0}}},
		{"from a import (b,\n  c)", []Import{{"a", "a", 0}}},
		{"from .x import y", []Import{{".x", "", 0}}},
		{"from . import y", []Import{{".", "", 0}}},
		{"from ..a.b import c", []Import{{"..a.b", "", 0}}},
		{"from ... import x", []Import{{"...", "", 0}}},
		{"from ...a import x", []Import{{"...a", "", 0}}},
		{"from __future__ import annotations", []Import{{"__future__", "__future__", 0}}},
		{"def f():\n    import json\n", []Import{{"json", "json", 1}}},
		{"try:\n    import numpy as np\nexcept ImportError:\n    np = None\n", []Import{{"numpy", "numpy", 1}}},
		{"if x: import a; import b", []Import{{"a", "a", 0}, {"b", "b", 0}}},
		{"x = 1; import re", []Import{{"re", "re", 0}}},
		{"x = 'import os'  # import sys\n\"\"\"\nimport y\n\"\"\"", nil},
		{"def g():\n    yield from gen()\n", nil},
		{"raise E from e", nil},
		{"import os\nx = 'unterminated", []Import{{"os", "os", 0}}},
	}
	for _, tt := range tests {
		if got := Imports(tt.code); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Imports(%q) = %+v, want %+v", tt.code, got, tt.want)
		}
	}
}

func TestFeatures(t *testing.T) {
	tests := []struct {
		code string
		want string // comma-separated
	}{
		{"", ""},
		{"x = 1\nprint(x)", ""},
		{"match x:\n    case 1:\n        pass\n", "match"},
		{"match (x):\n    case _: pass\n", "match"},
		{"def f(p):\n    match -p:\n        case 1: pass\n", "match"},
		{"match = 1\nmatch(x)\nmatch.x: int\nmatch[0]: int = 2", ""},
		{"def g():\n    yield 1", "yield"},
		{"def g():\n    x = yield", "yield"},
		{"del x", "del"},
		{"class A(B): pass", "class-inheritance"},
		{"class A[T](B): pass", "class-inheritance"},
		{"class A(metaclass=M): pass", "class-inheritance"},
		{"class A: pass\nclass B(): pass", ""},
		{"x = [class A(B)]", ""}, // not a class statement
		{"class A:\n    @property\n    def x(self): return 1\n", "decorator-in-class"},
		{"class A:\n    x = 1\n\n    @staticmethod\n    def s(): pass\n", "decorator-in-class"},
		{"class A:\n\t@staticmethod\n\tdef s(): pass\n", "decorator-in-class"},
		{"@dataclass\nclass A:\n    x: int\n", ""},
		{"class A:\n    def f(self):\n        @dec\n        def g(): pass\n", ""},
		{"class A:\n    def f(self): pass\n@dec\ndef g(): pass\n", ""},
		{"class A: pass\n@dec\ndef g(): pass\n", ""},
		{"async with a as b: pass", "async-with"},
		{"async for x in y: pass", "async-for"},
		{"[x async for x in y]", "async-for"},
		{"try:\n    pass\nexcept* ValueError:\n    pass\n", "star-except"},
		{"try:\n    pass\nexcept *ValueError:\n    pass\n", "star-except"},
		{"try:\n    pass\nexcept ValueError:\n    pass\n", ""},
		{"type X = int", "type-alias"},
		{"type Point[T] = tuple[T, T]", "type-alias"},
		{"type(x)\ntype = 3\nx = type", ""},
		{"def f():\n    global x", "global"},
		{"def f():\n    nonlocal x", "nonlocal"},
		{"'%s' % x", "percent-format"},
		{"'a' 'b' % (1,)", "percent-format"},
		{"x % 2\nf'{x}' + '%'", ""},
		{"1j", "complex-literal"},
		{"x = 2.5J + 1", "complex-literal"},
		{"x = 0x1f", ""},
		{"from m import *", "star-import"},
		{"from m import a\nimport b", ""},
		{"'del x yield'  # global nonlocal", ""},
		{"from m import *\ndel x\nclass A(B):\n    @property\n    def y(self): return 1j\n",
			"class-inheritance,complex-literal,decorator-in-class,del,star-import"},
	}
	for _, tt := range tests {
		got := strings.Join(Features(tt.code), ",")
		if got != tt.want {
			t.Errorf("Features(%q) = %q, want %q", tt.code, got, tt.want)
		}
	}
	if f := Features(""); f != nil {
		t.Errorf("Features(\"\") = %#v, want nil", f)
	}
}

func TestDedent(t *testing.T) {
	tests := []struct {
		code, want string
	}{
		{"", ""},
		{"   ", ""},
		{"  x", "x"},
		{"a\n  b", "a\n  b"},
		{"  a\n  b\n", "a\nb\n"},
		{"  a\n    b", "a\n  b"},
		{"    def f():\n        return 1\n", "def f():\n    return 1\n"},
		{"  a\n\n  b", "a\n\nb"},
		{"  a\n   \n  b\n", "a\n\nb\n"},
		{"  a\n  \t\n  b", "a\n\nb"},
		{"    a\n  \n    b", "a\n\nb"},
		{"\ta\n  b", "\ta\n  b"},
		{"  a\n\tb", "  a\n\tb"},
		{"\t a\n\t b", "a\nb"},
		{"\t  a\n\t b", " a\nb"},
		{"  a\r\n  b\r\n", "a\r\nb\r\n"},
		{"  a\r\n  \r\n  b", "a\r\n\r\nb"},
		{"\n\n  x\n\n", "\n\nx\n\n"},
		{"  \fa\n  b", "\fa\nb"},
	}
	for _, tt := range tests {
		if got := Dedent(tt.code); got != tt.want {
			t.Errorf("Dedent(%q) = %q, want %q", tt.code, got, tt.want)
		}
	}
}
