package pysrc

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// short renders tokens compactly: N:x, 1:42, S:'a', O:+, #:# c, NL (or NL"" at EOF).
func short(toks []Token) []string {
	out := make([]string, 0, len(toks))
	for _, t := range toks {
		switch t.Kind {
		case Name:
			out = append(out, "N:"+t.Text)
		case Number:
			out = append(out, "1:"+t.Text)
		case String:
			out = append(out, "S:"+t.Text)
		case Op:
			out = append(out, "O:"+t.Text)
		case Comment:
			out = append(out, "#:"+t.Text)
		case Newline:
			if t.Text == "" {
				out = append(out, `NL""`)
			} else {
				out = append(out, "NL")
			}
		default:
			out = append(out, t.Kind.String()+":"+t.Text)
		}
	}
	return out
}

func TestTokenize(t *testing.T) {
	tests := []struct {
		name string
		code string
		want string // tokens from short, joined by " | "
	}{
		{"assignment", "x = 1\n", "N:x | O:= | 1:1 | NL"},
		{"eof newline", "x", `N:x | NL""`},
		{"empty", "", ""},
		{"blank and comment lines", "\n\n# c\n  \nx\n", "#:# c | N:x | NL"},
		{"trailing comment", "x  # hi\n", "N:x | #:# hi | NL"},
		{"prefixes", `rb'a' Br"b" f'c' RF'd' u'e' b"f" t'g' Rt"h"`,
			`S:rb'a' | S:Br"b" | S:f'c' | S:RF'd' | S:u'e' | S:b"f" | S:t'g' | S:Rt"h" | NL""`},
		{"not a prefix", `x'a' ub'c'`, `N:x | S:'a' | N:ub | S:'c' | NL""`},
		{"escaped quote", `"a\"b" 'c\'d'`, `S:"a\"b" | S:'c\'d' | NL""`},
		{"raw escaped quote", `r"\"" r'\''`, `S:r"\"" | S:r'\'' | NL""`},
		{"raw backslash at end", `r"a\\" x`, `S:r"a\\" | N:x | NL""`},
		{"empty strings", `'' "" '''''' """"""`, `S:'' | S:"" | S:'''''' | S:"""""" | NL""`},
		{"triple with quotes", "'''a ' '' b'''", "S:'''a ' '' b''' | NL\"\""},
		{"triple multi-line", "s = \"\"\"a\n'b'\n\"\"\"\nx", "N:s | O:= | S:\"\"\"a\n'b'\n\"\"\" | NL | N:x | NL\"\""},
		{"string with = and #", `s = "a = b # c"`, `N:s | O:= | S:"a = b # c" | NL""`},
		{"line continuation in string", "'a\\\nb'", "S:'a\\\nb' | NL\"\""},
		{"fstring nested other quote", `f"{x['a']}" y`, `S:f"{x['a']}" | N:y | NL""`},
		{"fstring reused quote (3.12)", `f"{x["a"]}" y`, `S:f"{x["a"]}" | N:y | NL""`},
		{"fstring brace in nested string", `f"{'}'}" y`, `S:f"{'}'}" | N:y | NL""`},
		{"fstring doubled braces", `f"{{x}}" y`, `S:f"{{x}}" | N:y | NL""`},
		{"fstring quote in format spec", `f"{x!r:'>10}" y`, `S:f"{x!r:'>10}" | N:y | NL""`},
		{"fstring nested spec field", `f"{x:>{w}.{p}f}" y`, `S:f"{x:>{w}.{p}f}" | N:y | NL""`},
		{"fstring dict and slice", `f"{ {'a': 1}['a'] }{x[1:2]}" y`, `S:f"{ {'a': 1}['a'] }{x[1:2]}" | N:y | NL""`},
		{"fstring walrus-like spec", `f"{x:=10}" y`, `S:f"{x:=10}" | N:y | NL""`},
		{"fstring named escape", `f"\N{EM DASH}{x}" y`, `S:f"\N{EM DASH}{x}" | N:y | NL""`},
		{"raw fstring backslash brace", `rf"\{x}" y`, `S:rf"\{x}" | N:y | NL""`},
		{"backslash does not escape a field's brace", `f"\{'"'}" y`, `S:f"\{'"'}" | N:y | NL""`},
		{"nested fstrings", `f"{f'{x}'}" y`, `S:f"{f'{x}'}" | N:y | NL""`},
		{"deeply nested fstrings (3.12)", `f"{f"{f"{1}"}"}" y`, `S:f"{f"{f"{1}"}"}" | N:y | NL""`},
		{"fstring multi-line field with comment (3.12)", "f'{x # c }\n}' y", "S:f'{x # c }\n}' | N:y | NL\"\""},
		{"triple fstring", "f'''{x}\n{y!r}''' z", "S:f'''{x}\n{y!r}''' | N:z | NL\"\""},
		{"comment hash in string", `"#" # real`, `S:"#" | #:# real | NL""`},
		{"backslash continuation", "a = 1 + \\\n  2\n", "N:a | O:= | 1:1 | O:+ | 1:2 | NL"},
		{"implicit continuation", "f(\n  1,  # one\n  2)\nx\n", "N:f | O:( | 1:1 | O:, | #:# one | 1:2 | O:) | NL | N:x | NL"},
		{"crlf", "a\r\nb\r\n", "N:a | NL | N:b | NL"},
		{"lone cr", "a\rb", `N:a | NL | N:b | NL""`},
		{"tabs and form feed", "if x:\n\ty\f\n", "N:if | N:x | O:: | NL | N:y | NL"},
		{"unicode identifiers", "café = π + 日本 + é_\u0301x", `N:café | O:= | N:π | O:+ | N:日本 | O:+ | N:é_` + "\u0301" + `x | NL""`},
		{"numbers", "1_000 0x1F 0o17 0b1010 1e-5 1j 1.5J .5 1. 1E+10 3.14e2j",
			`1:1_000 | 1:0x1F | 1:0o17 | 1:0b1010 | 1:1e-5 | 1:1j | 1:1.5J | 1:.5 | 1:1. | 1:1E+10 | 1:3.14e2j | NL""`},
		{"number then name", "1if x else 2", `1:1 | N:if | N:x | N:else | 1:2 | NL""`},
		{"number attribute", "1..real", `1:1. | O:. | N:real | NL""`},
		{"ellipsis", "x[...]", `N:x | O:[ | O:... | O:] | NL""`},
		{"operators", "a := b -> c **= d //= e @ f != g >>= h <<= i ** j // k @= l <= m == n",
			`N:a | O::= | N:b | O:-> | N:c | O:**= | N:d | O://= | N:e | O:@ | N:f | O:!= | N:g | O:>>= | N:h | O:<<= | N:i | O:** | N:j | O:// | N:k | O:@= | N:l | O:<= | N:m | O:== | N:n | NL""`},
		{"attribute", "a.b", `N:a | O:. | N:b | NL""`},
		{"bom", "\ufeffx", `N:x | NL""`},
		{"semicolons", "a; b;", `N:a | O:; | N:b | O:; | NL""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			toks, err := Tokenize(tt.code)
			if err != nil {
				t.Fatalf("Tokenize(%q) error: %v", tt.code, err)
			}
			got := strings.Join(short(toks), " | ")
			if got != tt.want {
				t.Errorf("Tokenize(%q)\n got %s\nwant %s", tt.code, got, tt.want)
			}
			checkTokens(t, tt.code, toks, err)
		})
	}
}

func TestTokenizeOffsetsLinesDepth(t *testing.T) {
	code := "f(a[1],\n  'x\\\ny')\nz = 2\r\n"
	toks, err := Tokenize(code)
	if err != nil {
		t.Fatal(err)
	}
	type pos struct {
		Text              string
		Start, Line, Dept int
	}
	var got []pos
	for _, tk := range toks {
		got = append(got, pos{tk.Text, tk.Start, tk.Line, tk.Depth})
	}
	want := []pos{
		{"f", 0, 0, 0}, {"(", 1, 0, 0}, {"a", 2, 0, 1}, {"[", 3, 0, 1}, {"1", 4, 0, 2}, {"]", 5, 0, 2},
		{",", 6, 0, 1}, {"'x\\\ny'", 10, 1, 1}, {")", 16, 2, 1}, {"\n", 17, 2, 0},
		{"z", 18, 3, 0}, {"=", 20, 3, 0}, {"2", 22, 3, 0}, {"\r\n", 23, 3, 0},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	last := toks[len(toks)-1]
	if last.Kind != Newline || last.End != len(code) {
		t.Errorf("last token %+v, want Newline ending at %d", last, len(code))
	}
}

func TestTokenizeErrors(t *testing.T) {
	tests := []struct {
		name     string
		code     string
		line     int
		msg      string // substring of the message
		wantToks string // tokens returned with the error
	}{
		{"unterminated string", `x = "abc`, 0, "unterminated string", "N:x | O:="},
		{"string ends at newline", "x = 'ab\ny = 2", 0, "unterminated string", "N:x | O:="},
		{"unterminated triple", "a\nb = '''abc\n\n", 1, "unterminated triple-quoted", "N:a | NL | N:b | O:="},
		{"raw quote escape leaves it open", `r"\"`, 0, "unterminated string", ""},
		{"unterminated fstring field", "f'{x'", 0, "unterminated", ""},
		{"unclosed bracket", "x = (1,\n2", 0, "'(' was never closed", "N:x | O:= | O:( | 1:1 | O:, | 1:2"},
		{"innermost unclosed bracket", "a\nf([1,\n", 1, "'[' was never closed", "N:a | NL | N:f | O:( | O:[ | 1:1 | O:,"},
		{"unmatched closer", "x)\ny", 0, "unmatched ')'", `N:x | O:) | NL | N:y | NL""`},
		{"mismatched closer", "(]", 0, "does not match", `O:( | O:] | NL""`},
		{"invalid character", "a $ b", 0, "invalid character", `N:a | O:$ | N:b | NL""`},
		{"backslash at eof", "x \\", 0, "unexpected EOF", `N:x | NL""`},
		{"backslash before text", "x \\ y", 0, "after line continuation", `N:x | O:\ | N:y | NL""`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			toks, err := Tokenize(tt.code)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Tokenize(%q) error = %v, want *SyntaxError", tt.code, err)
			}
			if se.Line != tt.line || !strings.Contains(se.Msg, tt.msg) {
				t.Errorf("error = line %d %q, want line %d containing %q", se.Line, se.Msg, tt.line, tt.msg)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("line %d:", tt.line+1)) {
				t.Errorf("Error() = %q, want 1-based line %d", err.Error(), tt.line+1)
			}
			if got := strings.Join(short(toks), " | "); got != tt.wantToks {
				t.Errorf("tokens\n got %s\nwant %s", got, tt.wantToks)
			}
			checkTokens(t, tt.code, toks, err)
		})
	}
}

func TestTokenizeLenient(t *testing.T) {
	tests := []struct {
		name string
		code string
		want string // tokens from short, joined by " | "
	}{
		{"unterminated string at eof", `x = "abc`, `N:x | O:= | S:"abc | NL""`},
		{"string ends at newline", "x = 'ab\ny = 2", `N:x | O:= | S:'ab | NL | N:y | O:= | 1:2 | NL""`},
		{"unterminated triple ends at its line break", "a\nb = '''abc\n# c\nd = 1\n", "N:a | NL | N:b | O:= | S:'''abc | NL | #:# c | N:d | O:= | 1:1 | NL"},
		{"crlf and lone cr end it", "'a\r\nb\n'c\rd", `S:'a | NL | N:b | NL | S:'c | NL | N:d | NL""`},
		{"unterminated fstring field", "f'{x'\ny", `S:f'{x' | NL | N:y | NL""`},
		{"prefix kept", "rb'''a\nb", `S:rb'''a | NL | N:b | NL""`},
		{"inside brackets", "f(')\n2)", `N:f | O:( | S:') | 1:2 | O:) | NL""`},
		{"scanning goes on after it", "s = '\nt = \"\"\"\n# %%\n\"\"\"", "N:s | O:= | S:' | NL | N:t | O:= | S:\"\"\"\n# %%\n\"\"\" | NL\"\""},
		{"terminated code reads as Tokenize reads it", "x = f'{y}' # c\n", "N:x | O:= | S:f'{y}' | #:# c | NL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			toks, err := TokenizeLenient(tt.code)
			if got := strings.Join(short(toks), " | "); got != tt.want {
				t.Errorf("TokenizeLenient(%q)\n got %s\nwant %s", tt.code, got, tt.want)
			}
			checkLenient(t, tt.code, toks, err)
		})
	}
}

// checkLenient asserts what TokenizeLenient promises on top of checkTokens:
// Tokenize's error and tokens up to where Tokenize stops; there an
// unterminated string up to its line break; from that break on, what
// scanning the rest alone gives; and nothing left unscanned.
func checkLenient(t *testing.T, code string, toks []Token, err error) {
	t.Helper()
	checkTokens(t, code, toks, err)
	strict, serr := Tokenize(code)
	if fmt.Sprint(err) != fmt.Sprint(serr) {
		t.Fatalf("TokenizeLenient(%q) error %v, Tokenize error %v", code, err, serr)
	}
	if len(toks) < len(strict) || !reflect.DeepEqual(toks[:len(strict)], strict) {
		t.Fatalf("TokenizeLenient(%q) does not begin with Tokenize's tokens:\n%s\n%s", code, short(toks), short(strict))
	}
	prev := 0
	if strings.HasPrefix(code, bom) {
		prev = len(bom)
	}
	if len(toks) > 0 {
		prev = toks[len(toks)-1].End
	}
	if gap := strings.Trim(code[prev:], " \t\f\r\n\\"); gap != "" {
		t.Fatalf("TokenizeLenient(%q) left %q unscanned", code, gap)
	}
	if len(toks) == len(strict) {
		return
	}
	// Tokenize stopped at an unterminated string.
	u := toks[len(strict)]
	if u.Kind != String || strings.ContainsAny(u.Text, "\r\n") || (u.End < len(code) && code[u.End] != '\n' && code[u.End] != '\r') {
		t.Fatalf("TokenizeLenient(%q): token %+v after Tokenize's, want an unterminated string up to a line break", code, u)
	}
	if _, err := Tokenize(code[:u.End]); err == nil {
		t.Fatalf("TokenizeLenient(%q): string %+v is terminated", code, u)
	}
	// Newlines and depths depend on what came before; the rest does not.
	rest, _ := TokenizeLenient(code[u.End:])
	var got, want []Token
	for _, tk := range toks[len(strict)+1:] {
		if tk.Kind != Newline {
			tk.Depth = 0
			got = append(got, tk)
		}
	}
	for _, tk := range rest {
		if tk.Kind != Newline {
			tk.Start, tk.End, tk.Line, tk.Depth = tk.Start+u.End, tk.End+u.End, tk.Line+u.Line, 0
			want = append(want, tk)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("TokenizeLenient(%q) after the unterminated string:\n got %s\nwant %s", code, short(got), short(want))
	}
}

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Name: "Name", Number: "Number", String: "String", Op: "Op", Comment: "Comment", Newline: "Newline", 0: "Kind(0)", 99: "Kind(99)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

// lineAt counts line breaks ("\r\n", "\n", lone "\r") before off.
func lineAt(code string, off int) int {
	n := 0
	for i := 0; i < off; i++ {
		if code[i] == '\n' || (code[i] == '\r' && (i+1 >= len(code) || code[i+1] != '\n')) {
			n++
		}
	}
	return n
}

// checkTokens asserts the invariants every token list must hold.
func checkTokens(t *testing.T, code string, toks []Token, err error) {
	t.Helper()
	prev := 0
	if strings.HasPrefix(code, bom) {
		prev = len(bom)
	}
	for i, tk := range toks {
		if tk.Start < prev || tk.End < tk.Start || tk.End > len(code) {
			t.Fatalf("token %d %+v: bad offsets (previous end %d, len %d)", i, tk, prev, len(code))
		}
		if tk.Text != code[tk.Start:tk.End] {
			t.Fatalf("token %d %+v: Text != code[Start:End] = %q", i, tk, code[tk.Start:tk.End])
		}
		if tk.Kind < Name || tk.Kind > Newline {
			t.Fatalf("token %d %+v: bad kind", i, tk)
		}
		if tk.Depth < 0 || (tk.Kind == Newline && tk.Depth != 0) {
			t.Fatalf("token %d %+v: bad depth", i, tk)
		}
		if tk.Kind != Newline && tk.Start == tk.End {
			t.Fatalf("token %d %+v: empty token", i, tk)
		}
		if want := lineAt(code, tk.Start); tk.Line != want {
			t.Fatalf("token %d %+v: Line %d, want %d", i, tk, tk.Line, want)
		}
		// Between tokens there is only whitespace and line continuations.
		if gap := strings.Trim(code[prev:tk.Start], " \t\f\r\n\\"); gap != "" {
			t.Fatalf("token %d %+v: skipped text %q", i, tk, gap)
		}
		prev = tk.End
	}
	if err == nil {
		if gap := strings.Trim(code[prev:], " \t\f\r\n\\"); gap != "" {
			t.Fatalf("skipped trailing text %q", gap)
		}
		if n := len(toks); n > 0 && toks[n-1].Depth != 0 {
			t.Fatalf("no error but last token at depth %d", toks[n-1].Depth)
		}
	}
}

var fuzzSeeds = []string{
	"", "x", "a = 1; a", "x;", "print(1)\n", "f(\n  1,\n  2,\n)\n", "x  # c\n", "@dec\ndef f(): pass\n",
	"if x:\n    y", "await f()", "(lambda a=1: a)()", "d[k] = v", "a == b", "x: int = 3", "f(a=1)",
	`s = "a = b # c"`, "{'a': 1}", "x\n\n\n", `r"\""`, `f"{x["a"]}"`, `f"{x!r:'>10}"`, "f'{x # c\n}'",
	"'''a\n'''", "a\r\nb\r\n", "café = π", "1_000 + 0x1F + 1e-5 + 1j + 1.5J", "x[...]", "a := b -> c **= d //= e @ f != g",
	"1 + \\\n2", "x = (1,\n", `"abc`, "x)", "\ufeffx", "a\rb", "class A(B):\n    @property\n    def x(self): return 1\n",
	"match x:\n    case 1:\n        pass\n", "from . import y\nimport a.b as c, d\n", "f'{'", "f'{x:{'", `f"\N{DASH}"`, "\\",
	"$ 'x\ny", "'''a\n# %%\n'''\nx = '\nf'{x\n'''", "x = \"\"\"\n# %%\r\n",
}

func FuzzTokenize(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		toks, err := Tokenize(code)
		checkTokens(t, code, toks, err)
		ltoks, lerr := TokenizeLenient(code)
		checkLenient(t, code, ltoks, lerr)
		// The other scanners must not panic on anything Tokenize accepts or rejects.
		Names(code)
		Imports(code)
		Features(code)
		d := Dedent(code)
		if Dedent(d) != d {
			t.Fatalf("Dedent not idempotent on %q", code)
		}
		if strings.Count(d, "\n") != strings.Count(code, "\n") {
			t.Fatalf("Dedent changed the line count of %q", code)
		}
	})
}

func TestNestedFStringLimit(t *testing.T) {
	nest := func(n int) string {
		return strings.Repeat(`f"{`, n) + "1" + strings.Repeat(`}"`, n)
	}
	if _, err := Tokenize(nest(50)); err != nil {
		t.Errorf("50 nested f-strings: %v", err)
	}
	_, err := Tokenize(nest(maxNest + 10))
	if err == nil || !strings.Contains(err.Error(), "nested") {
		t.Errorf("%d nested f-strings: error %v, want a nesting error", maxNest+10, err)
	}
}

// Large inputs give the same answers as small ones (a hang or a quadratic
// scan shows up as a test timeout).
func TestLargeInputs(t *testing.T) {
	const n = 1 << 18
	lines := strings.Repeat("x = f(a=1, b='#') # c\n", n/22)
	if got := Names(lines); !reflect.DeepEqual(got, []string{"x", "f"}) {
		t.Errorf("Names(many lines) = %q", got)
	}
	if _, _, ok := TrailingExpr(lines); ok {
		t.Error("TrailingExpr(many assignments) is ok")
	}
	long := strings.Repeat("a + ", n/4) + "b"
	if s, e, ok := TrailingExpr(long); !ok || s != 0 || e != len(long) {
		t.Errorf("TrailingExpr(long expression) = %d, %d, %v", s, e, ok)
	}
	if got := Dedent(strings.Repeat("  x\n", n/4)); got != strings.Repeat("x\n", n/4) {
		t.Error("Dedent(many lines) is wrong")
	}
	dots := strings.Repeat(".", n)
	if got := Imports("from " + dots + " import x"); len(got) != 1 || got[0].Module != dots {
		t.Errorf("Imports(many dots) = %d imports", len(got))
	}
	if got := Features(strings.Repeat("class A[", n/8)); got != nil {
		t.Errorf("Features(class brackets) = %q", got)
	}
	if _, err := Tokenize(strings.Repeat("(", n)); err == nil {
		t.Error("Tokenize(open brackets) has no error")
	}
	// Every line an unterminated string: each ends at its line break. An
	// f-string's field scans ahead through at most maxNest nested ones.
	for _, line := range []string{"'\n", "f'{x\n", "f'{#\n"} {
		code := strings.Repeat(line, n/4/len(line))
		toks, err := TokenizeLenient(code)
		if err == nil || len(toks) == 0 || toks[len(toks)-1].Line != strings.Count(code, "\n")-1 {
			t.Errorf("TokenizeLenient(%q lines) = %d tokens, error %v", line, len(toks), err)
		}
	}
}

// Relative-import dots are collected without one allocation per dot, which
// made long runs of dots quadratic.
func TestImportsDotsAllocations(t *testing.T) {
	code := "from " + strings.Repeat(". ", 5000) + "import x"
	if a := testing.AllocsPerRun(3, func() { Imports(code) }); a > 100 {
		t.Errorf("Imports allocates %v times for 5000 dots", a)
	}
}
