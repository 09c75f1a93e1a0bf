package ipysyntax

import "testing"

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
