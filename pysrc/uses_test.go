package pysrc

import (
	"reflect"
	"testing"
)

func TestUses(t *testing.T) {
	cases := []struct {
		code string
		want []string
	}{
		{"x = 1", nil},
		{"n is 1000", []string{"is-literal"}},
		{"n is not 'a'", []string{"is-literal"}},
		{"n is -1", []string{"is-literal"}},
		{"1 is n", []string{"is-literal"}},
		{"n is None", nil},
		{"n is not other", nil},
		{"type(n) is int", nil},
		{"C.__annotations__", []string{"annotations"}},
		{"print(__annotations__)", []string{"annotations"}},
		{"typing.get_type_hints(C)", []string{"annotations"}},
		{"x: int = 1", nil},
		{`s = '\ud83d\ude00'`, []string{"surrogate-escape"}},
		{`s = "\uD800"`, []string{"surrogate-escape"}},
		{`s = '\u00e9 \ue000'`, nil},
		{"class V:\n    def __bool__(self):\n        return False", []string{"dunder:__bool__"}},
		{"class V:\n    async def __aenter__(self):\n        pass", []string{"dunder:__aenter__"}},
		{"def __init__(self):\n    pass", nil}, // top level: not a method
		{"class P:\n    def area(self):\n        return 1", nil},
		{"total = sum(x * x for x in data)", nil},
		{"any(x > 1 for x in data)", nil},
		{"g = (x for x in data)", []string{"generator-expression"}},
		{"f(a, (x for x in data))", []string{"generator-expression"}},
		{"f(x for x in data)", nil},
		{"sorted(k for k, v in d.items() if v)", nil},
		{"f(a, (k for k, v in d.items()))", []string{"generator-expression"}},
		{"f(a, k for k in d)", []string{"generator-expression"}},
		{"sorted(data, key=len)", nil},
		{"[x for x in data]", nil},
		{"(1, 2)", nil},
		{"round(2.675, 2)", []string{"round-ndigits"}},
		{"round(x)", nil},
		{"round(f(a, b))", nil},
		{"s = {1, 2, 3}", []string{"set"}},
		{"s = {x for x in data}", []string{"set"}},
		{"d = {}", nil},
		{"d = {'a': 1, **other}", nil},
		{"d = {k: v for k, v in items}", nil},
		{"s = set()", []string{"set"}},
		{"s = frozenset(data)", []string{"set"}},
		{"obj.set(1)", nil},
		{"f'{x}'", nil},
		{"'{a, b}'", nil},
		{"class V:\n    def __lt__(self, o):\n        return (x for x in o)\n", []string{"dunder:__lt__", "generator-expression"}},
		{"print(f'{round(x, 2)} and {y!r:>{w}}')", []string{"round-ndigits"}},
		{"f'{ {1, 2} }'", []string{"set"}},
		{"class S:\n    __slots__ = ('a',)", []string{"dunder:__slots__"}},
		{"__slots__ = ()", nil},
		{"await asyncio.gather(a(), b())", []string{"asyncio-concurrency"}},
		{"from asyncio import gather\nawait gather(a())", []string{"asyncio-concurrency"}},
		{"t = tg.create_task(a())", []string{"asyncio-concurrency"}},
		{"q.wait(1)\nawait asyncio.sleep(1)", nil},
		{"try:\n    f()\nexcept ValueError as e:\n    print(e)", []string{"except-as"}},
		{"try:\n    f()\nexcept (KeyError, ValueError):\n    pass", nil},
		{"type(type), isinstance(x, type)", []string{"type-as-value"}},
		{"type(x).__name__", nil},
		{"type Pair = tuple[int, int]", nil},
		{"{1: 'a', True: 'b'}", []string{"dict-bool-key"}},
		{"d[False] = 0", []string{"dict-bool-key"}},
		{"f(True, x=False)", nil},
		{"re.findall(p, s, re.ASCII)", []string{"re-ascii"}},
		{"re.match('(?a)\\w', s)", []string{"re-ascii"}},
		{"re.sub(r'(a)', r'\\1\\1', s)", []string{"re-template"}},
		{"m.expand(r'\\g<name>')", []string{"re-template"}},
		{"re.sub(r'a', 'b', s)", nil},
		{"print('\\\\1')", nil},
		{"hasattr(itertools, 'batched')", []string{"hasattr"}},
		{"repr(p).startswith('<__main__.P object at 0x')", []string{"object-repr"}},
	}
	for _, c := range cases {
		if got := Uses(c.code); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Uses(%q) = %v, want %v", c.code, got, c.want)
		}
	}
}

func FuzzUses(f *testing.F) {
	for _, s := range []string{"g = (x for x in y)", "{1, 2}", "round(1, 2)", "class A:\n  def __x__(s): pass", "((", "{", "round("} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		Uses(code) // must not panic
	})
}

func TestAnalyzeAgreesWithTheParts(t *testing.T) {
	for _, code := range []string{
		"import numpy as np\nfrom .x import y\nclass A(B):\n    def __lt__(s, o):\n        return {1, 2}\nround(x, 2)",
		"x = 1", "", "del y\nmatch z:\n    case 1:\n        pass",
	} {
		a := Analyze(code)
		if !reflect.DeepEqual(a.Imports, Imports(code)) || !reflect.DeepEqual(a.Features, Features(code)) || !reflect.DeepEqual(a.Uses, Uses(code)) {
			t.Errorf("%q: %+v", code, a)
		}
	}
}

func TestFStringFields(t *testing.T) {
	code := `x = f"{round(v, 2):>{w}} {a!r}" + rf'{b}' + "{c}" + f"{{d}}"`
	var got []string
	for _, f := range FStringFields(code) {
		got = append(got, code[f.Start:f.End])
	}
	want := []string{"round(v, 2)", "w", "a!r", "b"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("fields %q, want %q", got, want)
	}
	if f := FStringFields(`f"{unterminated`); len(f) != 0 {
		t.Fatalf("%v", f)
	}
}
