package ipysyntax

import (
	"strings"
	"testing"
)

func knownForTest(name string) bool {
	return map[string]bool{"time": true, "timeit": true, "env": true, "set_env": true, "who": true, "whos": true,
		"pwd": true, "precision": true, "lsmagic": true, "matplotlib": true, "load_ext": true, "unload_ext": true, "reload_ext": true,
		"autoreload": true, "aimport": true}[name]
}

// A hosted cell keeps its lines where they were and calls the host's
// functions where IPython calls run_line_magic.
func TestHosted(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"plain", "x = 1", "x = 1"},
		{"time expression", "%time f(x)\n", "__backyard_toc__(__backyard_tic__(), (f(x)), False)\n"},
		{"time statement", "a = 1\n%time b = a + 1\nb", "a = 1\n__backyard_tic__(); b = a + 1; __backyard_toc__(None, None, True)\nb"},
		{"time statements then value", "%time c = 1; c * 2", "__backyard_tic__(); c = 1; __backyard_toc__(None, (c * 2), False)"},
		{"time silenced", "%time 5 * 5;", "__backyard_toc__(__backyard_tic__(), (5 * 5), True)"},
		{"time with a comment", "%time x = 1  # note\n%time 2;  # c", "__backyard_tic__(); x = 1; __backyard_toc__(None, None, True)\n__backyard_toc__(__backyard_tic__(), (2), True)"},
		{"time nothing", "%time", "__backyard_toc__(__backyard_tic__(), None, True)"},
		{"time assigned", "v = %time g()", "v = __backyard_toc__(__backyard_tic__(), (g()), False)"},
		{"time in a block", "for i in range(2):\n    %time h = i\n", "for i in range(2):\n    __backyard_tic__(); h = i; __backyard_toc__(None, None, True)\n"},
		{"cell time value", "%%time\nx = 1\nx + 1", "__backyard_tic__()\nx = 1\n__backyard_toc__(None, (x + 1), False)"},
		{"cell time statement", "%%time\nfor i in range(2):\n    pass\n", "__backyard_tic__()\nfor i in range(2):\n    pass\n__backyard_toc__(None, None, True)"},
		{"cell time with magics", "%%time\n%env A=1\nx = 2", "__backyard_tic__()\n__backyard_line_magic__('env', 'A=1')\nx = 2\n__backyard_toc__(None, None, True)"},
		{"env", "if True:\n    %env A=1\n", "if True:\n    __backyard_line_magic__('env', 'A=1')\n"},
		{"env assigned", "v = %env A", "v = __backyard_line_magic__('env', 'A')"},
		{"unknown", "x = 1\n%nosuch a b", "x = 1\n__backyard_line_magic__('nosuch', 'a b')"},
		{"who", "%whos int", "__backyard_who__('int', {'n': ((lambda: n), False), 'sum': ((lambda: sum), True)}, True)"},
		{"precision reset", "%precision\n1.5", "__backyard_line_magic__('precision', '')\n1.5"},
		{"inert", "%matplotlib inline\nx", "None\nx"},
		{"autoreload", "%load_ext autoreload\n%autoreload 2\n%reload_ext autoreload\n%unload_ext autoreload",
			"__backyard_line_magic__('load_ext', 'autoreload')\n__backyard_line_magic__('autoreload', '2')\n" +
				"__backyard_line_magic__('reload_ext', 'autoreload')\n__backyard_line_magic__('unload_ext', 'autoreload')"},
	} {
		got, bad, ok := Transform(c.in).Hosted(knownForTest, []string{"sum", "n", "_private", "display"})
		if !ok || got != c.want {
			t.Errorf("%s: %q (ok %v, %+v), want %q", c.name, got, ok, bad, c.want)
		}
		if ok && strings.Count(got, "\n") < strings.Count(c.in, "\n") {
			t.Errorf("%s: lines lost", c.name)
		}
	}
}

// What a host cannot run as IPython does is refused, with the use.
func TestNotHosted(t *testing.T) {
	for in, want := range map[string]string{
		"!ls":                       "!ls",
		"x = 1\n%timeit x":          "%timeit",
		"%precision 3":              "%precision",
		"%env A=$x":                 "%env",
		"%time d = {1: 2}":          "%time",
		"%time for i in x: pass":    "%time",
		"%time -n 1 x":              "%time",
		"%time !ls":                 "%time",
		"v = %time x = 1":           "%time",
		"def f():\n    %time x = 1": "%time",
		"class C:\n    %whos":       "%whos",
		"%%time -q\nx":              "%%time",
		"%%bash\necho":              "%%bash",
		"%%time\n!ls":               "!ls",
		"len?":                      "?",
		"%load_ext other":           "%load_ext",
		"%aimport json":             "%aimport",
	} {
		_, bad, ok := Transform(in).Hosted(knownForTest, nil)
		if ok || bad.String() != want {
			t.Errorf("%q: ok %v, %q, want %q", in, ok, bad.String(), want)
		}
	}
}

// A magic in an if block of a function's body still asks for its scope.
func TestInsideDef(t *testing.T) {
	code := "def f():\n    if x:\n\n        y\nz\nif a:\n    b"
	for line, want := range map[int]bool{1: true, 3: true, 4: false, 6: false} {
		if got := insideDef(code, line); got != want {
			t.Errorf("line %d: %v", line, got)
		}
	}
}

var hostedSink string

// The rewrite a Monty kernel makes of a cell with %time and %env lines.
func BenchmarkHosted(b *testing.B) {
	cell := plainCell + "%time area(3)\nfor i in range(2):\n    %env A=1\n"
	for b.Loop() {
		hostedSink, _, _ = Transform(cell).Hosted(knownForTest, []string{"area", "i"})
	}
}
