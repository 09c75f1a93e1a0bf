package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/container/containertest"
)

// A notebook as Jupyter users write it: display() on Monty, a magic and a
// shell line moving it to the container, rich displays named by their
// MIME types.
func TestRunIPythonNotebook(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine and the test image")
	}
	nb := "# %%\nx = 20\ndisplay(x, 'two')\n# %%\n%time y = x + 1\n!echo shell $y\n# %%\nfrom IPython.display import HTML\ndisplay(HTML('<b>hi</b>'))\n# %%\n%foo\n"
	out, stderr, code := backyard(t, "run", "--backend", "auto", "--image", containertest.Image(), notebookFile(t, nb))
	if code != 1 {
		t.Fatalf("exit %d (the unknown magic fails): %s\n%s", code, out, stderr)
	}
	for _, re := range []string{
		`(?s)In \[1\].*\n20\n'two'\n   ok · monty`,
		`(?s)In \[2\].*\nCPU times: user .*\nWall time: .*\nshell 21\n`,
		`(?s)In \[3\].*\n<IPython.core.display.HTML object>\n   \[display: text/html\]\n`,
		"(?s)In \\[4\\].*\nUsageError: Line magic function `%foo` not found.\n",
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output does not match %s:\n%s", re, out)
		}
	}
	if strings.Contains(out, "Traceback") {
		t.Errorf("a UsageError has no traceback:\n%s", out)
	}
}
