package ipysyntax

import (
	"slices"
	"strings"
	"testing"
)

// The expected cells are what IPython 9's clean-up transforms
// (leading_empty_lines, leading_indent, classic_prompt, ipython_prompt)
// make of the cells, except that blank lines before the code stay.
func TestCleanup(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{">>> a = 1\n>>> a\n", "a = 1\na\n"},
		{">>> # Fibonacci\n... a, b = 0, 1\n>>> while b < 10:\n...     print(b)\n...     a, b = b, a+b\n", "# Fibonacci\na, b = 0, 1\nwhile b < 10:\n    print(b)\n    a, b = b, a+b\n"},
		{"In [1]: for i in range(3):\n   ...:     print(i)\n   ...:     \n", "for i in range(3):\n    print(i)\n    \n"},
		{"In [3]: x = 1\n", "x = 1\n"},
		{"x = 1\nIn [2]: y\n", "x = 1\ny\n"},
		{"print(...)\n...\n", "print(...)\n...\n"},
		{"    >>> x = 1\n    >>> x\n    1\n", "x = 1\nx\n1\n"},
		{">>> s = \"\"\"\n>>> inside\n... \"\"\"\n>>> s\n", "s = \"\"\"\ninside\n\"\"\"\ns\n"},
		{"s = \"\"\"\n>>> kept\n\"\"\"\n>>> s\n", "s = \"\"\"\nkept\n\"\"\"\ns\n"},
		{"  x = 1\n  y = 2\n", "x = 1\ny = 2\n"},
		{"  x = 1\n y = 2\n", " x = 1\ny = 2\n"},
		{"\n  if x:\n    pass\n", "\nif x:\n  pass\n"},
		{"...: a\n...: b\n", "a\nb\n"},
		{"[nav] In [4]: z = 3\n", "z = 3\n"},
		{"a = 1\n   ...: b = 2\n", "a = 1\nb = 2\n"},
		{">>>x\n", "x\n"},
		{">>>\n>>> x = 5\n", "\nx = 5\n"},
		{"\tx = 1\n\ty = 2\n", "x = 1\ny = 2\n"},
	} {
		if got := cleanup(c.in); got != c.want {
			t.Errorf("cleanup(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A pasted session runs as the code it shows, and its magics still
// transform.
func TestTransformPrompts(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{">>> if True:\n...     print(1)\n", "if True:\n    print(1)\n"},
		{"In [1]: %time x = 1\n", "get_ipython().run_line_magic('time', 'x = 1')\n"},
		{"In [1]: !ls\n   ...: \n", "get_ipython().system('ls')\n\n"},
		{"x = 1\n", "x = 1\n"},
	} {
		if got := Transform(c.in).Code; got != c.want {
			t.Errorf("Transform(%q).Code = %q, want %q", c.in, got, c.want)
		}
	}
}

// Removed counts what the clean-up takes from each line: a column of the
// clean line plus it is the column of the line as written.
func TestRemoved(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
	}{
		{"x = 1\n", nil},
		{">>> x = 1\n... y\n", []int{4, 4, 0}},
		{"  a\n  bé\n", []int{2, 2, 0}},
		{"    >>> x = 1\n    >>> x\n", []int{8, 8, 0}},
		{"In [3]: é = 1\n   ...: é\n", []int{8, 8, 0}},
		{"\n\tx\n", []int{0, 1, 0}},
	} {
		got := Removed(c.in)
		if !slices.Equal(got, c.want) {
			t.Errorf("Removed(%q) = %v, want %v", c.in, got, c.want)
		}
		if c.want == nil {
			continue
		}
		// Each clean line is the written one without its first n code points.
		clean := strings.Split(Clean(c.in), "\n")
		for i, l := range strings.Split(c.in, "\n") {
			if r := []rune(l); string(r[got[i]:]) != clean[i] {
				t.Errorf("line %d of %q: %q less %d is not %q", i, c.in, l, got[i], clean[i])
			}
		}
	}
}
