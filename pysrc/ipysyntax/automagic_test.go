package ipysyntax

import (
	"strconv"
	"testing"
)

// The cells IPython 9.18.1's shell runs as a magic without its % (the
// probe of its transform_cell), and those it leaves to Python.
func TestAutomagic(t *testing.T) {
	magics := map[string]bool{"pwd": true, "cd": true, "ls": true, "who": true, "history": true, "automagic": true, "time": true}
	magic := func(n string) bool { return magics[n] }
	for code, want := range map[string]string{
		"pwd":           "%pwd",
		"pwd\n":         "%pwd",
		"pwd\r\n":       "%pwd",
		"\n\npwd":       "%pwd",
		"  pwd":         "%pwd",
		"pwd  ":         "%pwd",
		"pwd + 1":       "%pwd + 1",
		"pwd()":         "%pwd ()",
		"pwd;":          "%pwd ;",
		"pwd  # c":      "%pwd # c",
		"cd ..":         "%cd ..",
		"ls -la":        "%ls -la",
		"history -n 1":  "%history -n 1",
		"time x = 1":    "%time x = 1",
		"pwd\n\n":       "", // two lines
		"pwd\nx = 1":    "",
		"pwd = 3":       "",
		"pwd, x = 1, 2": "",
		"pwd==1":        "",
		"pwd.x":         "",
		"if x: pwd":     "",
		"%pwd":          "",
		"print":         "",
		"x":             "",
		"":              "",
		"# pwd":         "",
	} {
		name, args, ok := Automagic(code, magic)
		got := ""
		if ok {
			got = Escaped(name, args)
		}
		if got != want {
			t.Errorf("Automagic(%q) = %q, want %q", code, got, want)
		}
	}
	// A builtin or a keyword never is one, whatever the shell has.
	for _, code := range []string{"print x", "dir", "lambda", "for"} {
		if _, _, ok := Automagic(code, func(string) bool { return true }); ok {
			t.Errorf("Automagic(%q) is a magic", code)
		}
	}
}

// A fresh kernel's first cell: an automagic line is its magic, then
// IPython's static transformations; a cell without IPython syntax is
// itself.
func TestFirstCell(t *testing.T) {
	magic := func(n string) bool { return n == "pwd" || n == "time" }
	for code, want := range map[string]string{
		"pwd":           "get_ipython().run_line_magic('pwd', '')",
		"%time 1+1":     "get_ipython().run_line_magic('time', '1+1')",
		"x = !echo hi":  "x = get_ipython().getoutput('echo hi')",
		"!echo hi":      "get_ipython().system('echo hi')",
		"pwd = 1\npwd":  "pwd = 1\npwd",
		"x = 7 % 3\nx?": "x = 7 % 3\nget_ipython().run_line_magic('pinfo', 'x')",
		"1 + 1":         "1 + 1",
	} {
		if got := FirstCell(code, magic).Code; got != want {
			t.Errorf("FirstCell(%q) = %q, want %q", code, got, want)
		}
	}
}

// BenchmarkFirstCellPlain is what a batch snippet without IPython syntax
// pays on a lane to learn it has none: a one-line snippet (the automagic
// candidate's checks) and a cell of many lines.
func BenchmarkFirstCellPlain(b *testing.B) {
	magic := func(n string) bool { return n == "pwd" }
	for _, code := range []string{"1234 * 2", "print(6 * 7)", plainCell} {
		b.Run(strconv.Itoa(len(code)), func(b *testing.B) {
			for b.Loop() {
				sink = FirstCell(code, magic)
			}
		})
	}
}
