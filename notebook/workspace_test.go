package notebook

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fakeHome makes a home folder (HOME points to it) with a project that
// has a .git folder, a loose folder without one, and a dotfiles repository
// at the home's root.
func fakeHome(t *testing.T) string {
	t.Helper()
	home, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{".git", "proj/.git", "proj/notebooks/deep", "pyproj/src", "loose/sub"} {
		os.MkdirAll(filepath.Join(home, d), 0o755)
	}
	os.WriteFile(filepath.Join(home, "pyproj", "pyproject.toml"), nil, 0o644)
	t.Setenv("HOME", home)
	return home
}

func TestBroadAndProjectRoot(t *testing.T) {
	home := fakeHome(t)
	for _, c := range []struct {
		dir   string
		broad bool
	}{{"/", true}, {home, true}, {filepath.Dir(home), true}, {filepath.Join(home, "proj"), false}, {filepath.Join(home, "loose"), false}} {
		if got := Broad(c.dir); got != c.broad {
			t.Errorf("Broad(%s) = %v", c.dir, got)
		}
	}
	for _, c := range []struct {
		dir, root string
		ok        bool
	}{
		{"proj/notebooks/deep", "proj", true},
		{"proj", "proj", true},
		{"pyproj/src", "pyproj", true},
		{"loose/sub", "loose/sub", true}, // not the home's own .git
		{"", "", false},                  // the home folder itself
	} {
		root, ok := ProjectRoot(filepath.Join(home, c.dir))
		if root != filepath.Join(home, c.root) || ok != c.ok {
			t.Errorf("ProjectRoot(%s) = %s %v", c.dir, root, ok)
		}
	}
	if _, ok := ProjectRoot("/"); ok {
		t.Error("ProjectRoot(/) is not broad")
	}
}

// An editor opened on the home folder or / shows each document's kernel
// its project only; a setting shows the broad folder, with a warning.
func TestNarrowFoldersAndFileScope(t *testing.T) {
	home := fakeHome(t)
	proj := filepath.Join(home, "proj")
	kept, warnings := NarrowFolders([]string{"/", home, proj}, false)
	if !slices.Equal(kept, []string{proj}) || len(warnings) != 2 || !strings.Contains(warnings[1], home) {
		t.Fatalf("%v %q", kept, warnings)
	}
	kept, warnings = NarrowFolders([]string{home}, true)
	if !slices.Equal(kept, []string{home}) || len(warnings) != 1 || !strings.Contains(warnings[0], "kernels see all of "+home) {
		t.Fatalf("%v %q", kept, warnings)
	}
	for _, c := range []struct {
		doc   string
		roots []string
	}{
		{"loose/sub/a.py", []string{filepath.Join(home, "loose", "sub")}},
		{"proj/notebooks/deep/a.py", []string{proj}},
		{"a.py", nil},
	} {
		dir, roots := FileScope("file://"+filepath.ToSlash(filepath.Join(home, c.doc)), nil)
		if dir != filepath.Dir(filepath.Join(home, c.doc)) || !slices.Equal(roots, c.roots) {
			t.Errorf("%s: %s %v, want %v", c.doc, dir, roots, c.roots)
		}
	}
}
