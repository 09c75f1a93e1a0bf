package ipysyntax

import (
	"strings"
	"testing"
)

// The expected code is what IPython's input transformations make of each
// cell (IPython 8, inputtransformer2), with the blank lines this package
// keeps where IPython joins lines.
func TestTransform(t *testing.T) {
	cases := []struct {
		name, in, want string
		kinds          []Kind
	}{
		{"plain", "x = 1\nprint(x)\n", "x = 1\nprint(x)\n", nil},
		{"modulo", "y = 7 % 3\ns = '%d' % y\n", "y = 7 % 3\ns = '%d' % y\n", nil},
		{"comment", "# %time x\nx = 1  # !ls\n", "# %time x\nx = 1  # !ls\n", nil},
		{"string", "s = '''\n%time x\n!ls\n'''\n", "s = '''\n%time x\n!ls\n'''\n", nil},
		{"bracket", "x = (1 %\n  2)\n", "x = (1 %\n  2)\n", nil},
		{"line magic", "%time s = sum(range(10))\n", "get_ipython().run_line_magic('time', 's = sum(range(10))')\n", []Kind{LineMagic}},
		{"no args", "%pwd", "get_ipython().run_line_magic('pwd', '')", []Kind{LineMagic}},
		{"two", "%matplotlib inline\nx = 1\n%who\n", "get_ipython().run_line_magic('matplotlib', 'inline')\nx = 1\nget_ipython().run_line_magic('who', '')\n", []Kind{LineMagic, LineMagic}},
		{"shell", "!echo hello\n", "get_ipython().system('echo hello')\n", []Kind{Shell}},
		{"shell quotes", "!echo \"it's\"\nx = 1\n", "get_ipython().system('echo \"it\\'s\"')\nx = 1\n", []Kind{Shell}},
		{"shell output", "!!ls\n", "get_ipython().getoutput('ls')\n", []Kind{ShellOutput}},
		{"assign shell", "files = !ls -1\n", "files = get_ipython().getoutput('ls -1')\n", []Kind{ShellOutput}},
		{"assign magic", "t = %timeit -o x = 1\n", "t = get_ipython().run_line_magic('timeit', '-o x = 1')\n", []Kind{LineMagic}},
		{"assign modulo", "a = b % c\n", "a = b % c\n", nil},
		{"indented", "for i in range(2):\n    !echo $i\n    %time f(i)\n", "for i in range(2):\n    get_ipython().system('echo $i')\n    get_ipython().run_line_magic('time', 'f(i)')\n", []Kind{Shell, LineMagic}},
		{"continued", "%time x = \\\n  1\ny = 2\n", "get_ipython().run_line_magic('time', 'x =    1')\n\ny = 2\n", []Kind{LineMagic}},
		{"cell magic", "%%bash\necho hi\necho there\n", "get_ipython().run_cell_magic('bash', '', 'echo hi\\necho there\\n')\n\n\n", []Kind{CellMagic}},
		{"cell magic args", "%%writefile out.txt\nhello\n", "get_ipython().run_cell_magic('writefile', 'out.txt', 'hello\\n')\n\n", []Kind{CellMagic}},
		{"cell magic leading blank", "\n%%time\nx = 1", "\nget_ipython().run_cell_magic('time', '', 'x = 1')\n", []Kind{CellMagic}},
		{"double percent later", "x = 1\n%%time\n", "x = 1\nget_ipython().run_line_magic('%time', '')\n", []Kind{LineMagic}},
		{"help end", "len?\n", "get_ipython().run_line_magic('pinfo', 'len')\n", []Kind{Help}},
		{"help end 2", "os.path.join??\n", "get_ipython().run_line_magic('pinfo2', 'os.path.join')\n", []Kind{Help}},
		{"help start", "?len\n", "get_ipython().run_line_magic('pinfo', 'len')\n", []Kind{Help}},
		{"help magic", "%time?\n", "get_ipython().run_line_magic('pinfo', '%time')\n", []Kind{Help}},
		{"psearch", "?os.*path*\n", "get_ipython().run_line_magic('psearch', 'os.*path*')\n", []Kind{Help}},
		{"usage", "?\n", "get_ipython().show_usage()\n", []Kind{Help}},
		{"question in string", "print('why?')\n", "print('why?')\n", nil},
		// As IPython 9: the name just before the ? (the line is the help).
		{"question expr", "x = a if b else c?\n", "get_ipython().run_line_magic('pinfo', 'c')\n", []Kind{Help}},
		{"help after a call", "Point(1,2).x?\n", "get_ipython().run_line_magic('pinfo', 'x')\n", []Kind{Help}},
		{"help2 after a call", "y = f(a).b.c??\n", "get_ipython().run_line_magic('pinfo2', 'b.c')\n", []Kind{Help}},
		{"help subscript", "x[-1].y?\n", "get_ipython().run_line_magic('pinfo', 'x[-1].y')\n", []Kind{Help}},
		{"help over lines", "f(\n  1).z?\n", "get_ipython().run_line_magic('pinfo', 'z')\n\n", []Kind{Help}},
		{"help indented", "if x:\n    a.b(1).c?\n", "if x:\n    get_ipython().run_line_magic('pinfo', 'c')\n", []Kind{Help}},
		{"help search", "a*b?\n", "get_ipython().run_line_magic('psearch', 'a*b')\n", []Kind{Help}},
		{"help after a statement", "x = 1; a?\n", "get_ipython().run_line_magic('pinfo', 'a')\n", []Kind{Help}},
		{"no help: str subscript", "d['a']?\n", "d['a']?\n", nil},
		{"no help: call", "print(x)?\n", "print(x)?\n", nil},
		{"no help: space", "a ?\n", "a ?\n", nil},
		{"no help: trailing space", "a? \n", "a? \n", nil},
		{"no help: digit attribute", "a.1?\n", "a.1?\n", nil},
		{"magic after string with percent", "s = \"%s\" % 1\n%env\n", "s = \"%s\" % 1\nget_ipython().run_line_magic('env', '')\n", []Kind{LineMagic}},
		{"crlf", "%pwd\r\nx = 1\r\n", "get_ipython().run_line_magic('pwd', '')\nx = 1\r\n", []Kind{LineMagic}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := Transform(c.in)
			if r.Code != c.want {
				t.Errorf("Transform(%q)\n got %q\nwant %q", c.in, r.Code, c.want)
			}
			var kinds []Kind
			for _, u := range r.Uses {
				kinds = append(kinds, u.Kind)
			}
			if len(kinds) != len(c.kinds) {
				t.Fatalf("uses %v, want kinds %v", r.Uses, c.kinds)
			}
			for i := range kinds {
				if kinds[i] != c.kinds[i] {
					t.Errorf("use %d is %v, want %v", i, kinds[i], c.kinds[i])
				}
			}
			if strings.Count(r.Code, "\n") != strings.Count(strings.ReplaceAll(c.in, "\r\n", "\n"), "\n") {
				t.Errorf("line count changed: %q → %q", c.in, r.Code)
			}
		})
	}
}

func TestUsesNameAndLine(t *testing.T) {
	r := Transform("x = 1\nif x:\n    %timeit f()\n")
	if len(r.Uses) != 1 || r.Uses[0].Name != "timeit" || r.Uses[0].Line != 2 {
		t.Fatalf("uses %+v", r.Uses)
	}
}

func TestCellMagicBodyTransformed(t *testing.T) {
	r := Transform("%%time\n!echo hi\nx = 1\n")
	want := "get_ipython().run_cell_magic('time', '', \"get_ipython().system('echo hi')\\nx = 1\\n\")\n\n\n"
	if r.Code != want {
		t.Fatalf("got %q\nwant %q", r.Code, want)
	}
	if r := Transform("%%bash\n!x\n"); !strings.Contains(r.Code, "'!x\\n'") {
		t.Fatalf("a shell body changed: %q", r.Code)
	}
}

func TestPipInstalls(t *testing.T) {
	r := Transform("%pip install -q pandas 'numpy<3'\n%uv pip install rich\n%pip list\n")
	got := strings.Join(r.PipInstalls(), " ")
	if got != "pandas numpy<3 rich" {
		t.Fatalf("PipInstalls = %q", got)
	}
}

func TestPlain(t *testing.T) {
	for in, want := range map[string]string{
		"%matplotlib inline\nimport math\n":                "None\nimport math\n",
		"%load_ext autoreload\n%autoreload 2\nx = 1":       "",
		"%config InlineBackend.figure_format = 'retina'\n": "None\n",
		"x = 1\n":                           "x = 1\n",
		"%matplotlib inline\n%time x = 1\n": "",
		"%matplotlib qt\n":                  "",
		"!ls\n":                             "",
		"%%time\nx = 1\n":                   "",
	} {
		got, ok := Transform(in).Plain()
		if ok != (want != "") || got != want {
			t.Errorf("Plain(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

func TestPyRepr(t *testing.T) {
	for in, want := range map[string]string{
		"":          "''",
		"a'b":       `"a'b"`,
		`a'b"`:      `'a\'b"'`,
		"tab\t\x01": `'tab\t\x01'`,
		"é":         "'é'",
		`back\`:     `'back\\'`,
	} {
		if got := PyRepr(in); got != want {
			t.Errorf("PyRepr(%q) = %s, want %s", in, got, want)
		}
	}
}

func FuzzTransform(f *testing.F) {
	for _, s := range []string{"%time x\n", "!ls\n", "a = !b\n", "%%bash\nx\n", "x?\n", "(\n%x\n)", "'''\n!x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		r := Transform(code)
		if !r.Magics() && r.Code != code {
			t.Fatalf("changed without magics: %q → %q", code, r.Code)
		}
	})
}

var sink Result

// A typical cell without magics (with % operators and strings).
const plainCell = `import math

def area(r):
    """Area of a circle of radius r."""
    return math.pi * r ** 2

rows = [(r, area(r)) for r in range(10)]
for r, a in rows:
    print("%2d %8.2f" % (r, a))
total = sum(a for _, a in rows)
total
`

func BenchmarkTransformPlain(b *testing.B) {
	for b.Loop() {
		sink = Transform(plainCell)
	}
}

func BenchmarkTransformMagic(b *testing.B) {
	cell := "%matplotlib inline\n" + plainCell + "%time area(3)\n!ls\n"
	for b.Loop() {
		sink = Transform(cell)
	}
}

// %who's layout: sorted, _names and IPython's own left out, nine a line.
func TestWho(t *testing.T) {
	names := []string{"k", "j", "i", "h", "g", "f", "e", "d", "c", "b", "a", "_x", "display", "In"}
	if got, want := Who(names), "a\t b\t c\t d\t e\t f\t g\t h\t i\t \nj\t k\t \n"; got != want {
		t.Errorf("Who = %q, want %q", got, want)
	}
	if got := Who([]string{"_"}); got != "Interactive namespace is empty.\n" {
		t.Errorf("empty: %q", got)
	}
}

// The names of IPython's history, and names that only look alike.
func TestIsHistoryName(t *testing.T) {
	for name, want := range map[string]bool{"In": true, "Out": true, "_": true, "__": true, "___": true, "_12": true, "_i": true, "_iii": true,
		"_i3": true, "_ih": true, "_oh": true, "_dh": true, "____": false, "_x": false, "_iiii": false, "in": false, "_1a": false, "x": false} {
		if got := IsHistoryName(name); got != want {
			t.Errorf("IsHistoryName(%q) = %v", name, got)
		}
	}
}
