package main

import (
	"os"
	"path/filepath"
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

// Displays print where the cell showed them among its output, as they
// come; the inline backend's figures after the value, as Jupyter lists
// them; an updated display is printed again as it ended.
func TestRunDisplayOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine and the test image")
	}
	nb := "# %%\nfrom IPython.display import HTML\nprint('before')\ndisplay(HTML('<b>x</b>'))\nprint('after')\nimport matplotlib.pyplot as plt\nplt.plot([1]); 7\n" +
		"# %%\nh = display('v1', display_id=True)\nprint('mid')\nh.update('v2')\n"
	out, stderr, code := backyard(t, "run", "--backend", "container", "--image", containertest.Image(), notebookFile(t, nb))
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, out, stderr)
	}
	for _, re := range []string{
		`(?s)In \[1\][^\n]*\nbefore\n<IPython.core.display.HTML object>\n   \[display: text/html\]\nafter\nOut\[1\]: 7\n<Figure size 640x480 with 1 Axes>\n   \[display: image/png\]\n   ok`,
		`(?s)In \[2\][^\n]*\n'v1'\nmid\n'v2'\n   ok`,
	} {
		if !regexp.MustCompile(re).MatchString(out) {
			t.Errorf("output does not match %s:\n%s", re, out)
		}
	}
}

// A kernel's payloads are no outputs: %load and %edit print nothing, as
// Jupyter shows nothing for them.
func TestRunPrintsNoPayloads(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine and the test image")
	}
	nb := notebookFile(t, "# %%\nprint('before')\n%load -r 1 helper.py\n# %%\n%edit helper.py\nprint('after')\n")
	if err := os.WriteFile(filepath.Join(filepath.Dir(nb), "helper.py"), []byte("loaded = 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := backyard(t, "run", "--backend", "container", "--image", containertest.Image(), nb)
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, out, stderr)
	}
	re := `(?s)In \[1\][^\n]*\nbefore\n   ok.*In \[2\][^\n]*\nafter\n   ok`
	if !regexp.MustCompile(re).MatchString(out) || strings.Contains(out, "loaded") || strings.Contains(out, "helper.py\n") {
		t.Errorf("output does not match %s:\n%s", re, out)
	}
}
