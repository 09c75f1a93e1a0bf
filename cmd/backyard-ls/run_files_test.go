package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunFiles: run works in FILE's folder, sees the workspace (--workspace
// one level up here), lists what each cell wrote, and writes it to the
// disk only with --save-files.
func TestRunFiles(t *testing.T) {
	ws := t.TempDir()
	nbDir := filepath.Join(ws, "notebooks")
	os.MkdirAll(nbDir, 0o755)
	os.WriteFile(filepath.Join(ws, "shared.csv"), []byte("a,b\n"), 0o644)
	nb := filepath.Join(nbDir, "nb.py")
	os.WriteFile(nb, []byte("# %%\nimport os\nprint(os.path.basename(os.getcwd()), open('../shared.csv').read().strip())\n# %%\nopen('out.txt', 'w').write('x')\n"), 0o644)

	out, stderr, code := backyard(t, "run", "--backend", "monty", "--workspace", ws, nb)
	if code != 0 || !strings.Contains(out, "notebooks a,b\n") || !strings.Contains(out, "   + out.txt\n") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	if _, err := os.Stat(filepath.Join(nbDir, "out.txt")); err == nil {
		t.Fatal("run wrote to the disk without --save-files")
	}
	// Without --workspace the folder above FILE is out of sight.
	out, _, code = backyard(t, "run", "--backend", "monty", nb)
	if code != 1 || !strings.Contains(out, "FileNotFoundError: [Errno 2] No such file or directory: '../shared.csv'") {
		t.Fatalf("exit %d\n%s", code, out)
	}
	_, stderr, code = backyard(t, "run", "--backend", "monty", "--workspace", ws, "--save-files", nb)
	if data, _ := os.ReadFile(filepath.Join(nbDir, "out.txt")); code != 0 || string(data) != "x" || !strings.Contains(stderr, "saved "+filepath.Join(nbDir, "out.txt")) {
		t.Fatalf("exit %d, %q\n%s", code, data, stderr)
	}
	if _, stderr, code := backyard(t, "run", "--workspace", filepath.Join(ws, "nope"), nb); code != 2 || !strings.Contains(stderr, "not a folder") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}
