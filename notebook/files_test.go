package notebook

import (
	"path/filepath"
	"slices"
	"testing"
)

func TestFileScope(t *testing.T) {
	ws := filepath.FromSlash("/home/me/proj")
	for _, c := range []struct {
		uri   string
		dir   string
		roots []string
	}{
		{"file:///home/me/proj/notebooks/a.py", "/home/me/proj/notebooks", []string{ws}},
		{"file:///home/me/proj/b%20c.py", "/home/me/proj", []string{ws}},
		{"file:///tmp/loose.py", "/tmp", []string{ws, "/tmp"}},
		{"untitled:Untitled-1", ws, []string{ws}},
	} {
		dir, roots := FileScope(c.uri, []string{ws})
		if dir != filepath.FromSlash(c.dir) || !slices.Equal(roots, c.roots) {
			t.Errorf("%s: %s %v, want %s %v", c.uri, dir, roots, c.dir, c.roots)
		}
	}
	if dir, roots := FileScope("untitled:x", nil); dir != "" || len(roots) != 0 {
		t.Errorf("no folders: %q %v", dir, roots)
	}
}
