package files

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
)

// tree makes a workspace with files, a hidden folder and file, a link in
// and a link out; it returns the workspace and a file outside it.
func tree(t *testing.T) (string, string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	for name, data := range map[string]string{
		"a.txt": "alpha", "d/b.txt": "beta", "d/e/c.txt": "gamma", ".git/HEAD": "ref", "d/key.pem": "secret",
	} {
		p := filepath.Join(ws, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out.txt")
	os.WriteFile(out, []byte("host"), 0o644)
	os.Symlink("a.txt", filepath.Join(ws, "in"))
	os.Symlink(out, filepath.Join(ws, "escape"))
	os.Symlink(filepath.Join(ws, ".git"), filepath.Join(ws, "sneaky"))
	return ws, out
}

func newFS(ws string, write contract.FilesWrite, limit int64) *FS {
	return New(Options{Rules: NewRules([]string{ws}, []string{".git", "*.pem"}), Write: write, Limit: limit})
}

func isErrno(err error, e syscall.Errno) bool { return errors.Is(err, e) }

func TestRulesHideAndConfine(t *testing.T) {
	ws, out := tree(t)
	f := newFS(ws, "", 0)
	names, err := f.ReadDir(ws)
	if err != nil || !slices.Equal(names, []string{"a.txt", "d", "in"}) {
		t.Fatalf("%v %v", names, err)
	}
	if names, _ := f.ReadDir(filepath.Join(ws, "d")); !slices.Equal(names, []string{"b.txt", "e"}) {
		t.Fatalf("%v", names)
	}
	for _, p := range []string{out, ws + "/../out.txt", ws + "/escape", ws + "/.git/HEAD", ws + "/d/key.pem", ws + "/sneaky/HEAD", "/etc/passwd"} {
		if _, err := f.ReadFile(p); !isErrno(err, syscall.ENOENT) {
			t.Errorf("%s: %v", p, err)
		}
		if _, err := f.Stat(p, true); !isErrno(err, syscall.ENOENT) {
			t.Errorf("stat %s: %v", p, err)
		}
	}
	if data, err := f.ReadFile(ws + "/in"); string(data) != "alpha" || err != nil {
		t.Fatalf("%q %v", data, err)
	}
	if info, err := f.Stat(ws+"/in", false); err != nil || !info.Link {
		t.Fatalf("%+v %v", info, err)
	}
	if got := f.Resolve(ws + "/d/../in"); got != KernelPath(ws)+"/a.txt" {
		t.Fatalf("resolve %s", got)
	}
	// The folders above the root hold only the way to it.
	parent := filepath.Dir(ws)
	if names, err := f.ReadDir(parent); err != nil || !slices.Equal(names, []string{"ws"}) {
		t.Fatalf("%v %v", names, err)
	}
	if names, _ := f.ReadDir("/"); !slices.Contains(names, "tmp") {
		t.Fatalf("/ holds %v", names)
	}
}

func TestOverlayWrites(t *testing.T) {
	ws, _ := tree(t)
	f := newFS(ws, contract.FilesSandbox, 0)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(f.WriteFile(ws+"/new.txt", []byte("n1"), false))
	must(f.WriteFile(ws+"/new.txt", []byte("n2"), true))
	must(f.WriteFile(ws+"/a.txt", []byte("!"), true))
	must(f.Remove(ws + "/d/b.txt"))
	must(f.Mkdir(ws+"/out/deep", true, false))
	if err := f.Mkdir(ws+"/out/deep", true, false); !isErrno(err, syscall.EEXIST) {
		t.Fatalf("mkdir twice: %v", err)
	}
	if err := f.WriteFile(ws+"/nope/x", nil, false); !isErrno(err, syscall.ENOENT) {
		t.Fatalf("write into a missing folder: %v", err)
	}
	if err := f.Rmdir(ws + "/d"); !isErrno(err, syscall.ENOTEMPTY) {
		t.Fatalf("rmdir: %v", err)
	}
	if data, _ := f.ReadFile(ws + "/a.txt"); string(data) != "alpha!" {
		t.Fatalf("%q", data)
	}
	if names, _ := f.ReadDir(ws); !slices.Equal(names, []string{"a.txt", "d", "in", "new.txt", "out"}) {
		t.Fatalf("%v", names)
	}
	changes := f.Changes()
	want := []contract.FileChange{{Path: ws + "/a.txt", State: "changed"}, {Path: ws + "/d/b.txt", State: "deleted"}, {Path: ws + "/new.txt", State: "created"}}
	if !slices.Equal(changes, want) {
		t.Fatalf("changes %+v", changes)
	}
	if len(f.Changes()) != 0 {
		t.Fatal("changes are per execution")
	}
	// The host never changed.
	if data, _ := os.ReadFile(ws + "/a.txt"); string(data) != "alpha" {
		t.Fatalf("host %q", data)
	}
	if _, err := os.Stat(ws + "/d/b.txt"); err != nil {
		t.Fatal(err)
	}

	// A folder renamed: the tree moves, in the overlay.
	must(f.Rename(ws+"/d", ws+"/moved"))
	if data, err := f.ReadFile(ws + "/moved/e/c.txt"); string(data) != "gamma" || err != nil {
		t.Fatalf("%q %v", data, err)
	}
	if _, err := f.Stat(ws+"/d", false); !isErrno(err, syscall.ENOENT) {
		t.Fatal(err)
	}
	// A folder made again where one was deleted shows nothing of the old.
	must(f.Mkdir(ws+"/d", false, false))
	if names, _ := f.ReadDir(ws + "/d"); len(names) != 0 {
		t.Fatalf("%v", names)
	}
	entries := f.Entries()
	var paths []string
	for _, e := range entries {
		paths = append(paths, e.Path[len(ws):]+":"+string(e.State))
	}
	if want := []string{"/a.txt:changed", "/d/b.txt:deleted", "/d/e/c.txt:deleted", "/moved/e/c.txt:created", "/new.txt:created"}; !slices.Equal(paths, want) {
		t.Fatalf("entries %v, want %v", paths, want)
	}
}

func TestOverlaySnapshotAndLimit(t *testing.T) {
	ws, _ := tree(t)
	f := newFS(ws, contract.FilesSandbox, 10)
	if err := f.WriteFile(ws+"/x", []byte("12345"), false); err != nil {
		t.Fatal(err)
	}
	snap := f.Snapshot()
	if err := f.WriteFile(ws+"/x", []byte("678"), true); err != nil {
		t.Fatal(err)
	}
	if err := f.WriteFile(ws+"/y", []byte("abc"), false); !isErrno(err, syscall.ENOSPC) {
		t.Fatalf("past the limit: %v", err)
	}
	f.Restore(snap)
	if data, _ := f.ReadFile(ws + "/x"); string(data) != "12345" {
		t.Fatalf("restored %q", data)
	}
	if err := f.WriteFile(ws+"/y", []byte("abc"), false); err != nil {
		t.Fatalf("within the limit again: %v", err)
	}
	f.Reset()
	if _, err := f.Stat(ws+"/x", false); !isErrno(err, syscall.ENOENT) {
		t.Fatal("reset kept a file")
	}
}

func TestSaveAndWorkspaceMode(t *testing.T) {
	ws, _ := tree(t)
	f := newFS(ws, contract.FilesSandbox, 0)
	f.WriteFile(ws+"/new/n.txt", nil, false) // no folder yet: refused
	f.Mkdir(ws+"/new", false, false)
	f.WriteFile(ws+"/new/n.txt", []byte("saved"), false)
	f.Remove(ws + "/a.txt")
	f.WriteFile(ws+"/keep.txt", []byte("kept"), false)
	saved, err := f.Save([]string{ws + "/new/n.txt", ws + "/a.txt"})
	if err != nil || len(saved) != 2 {
		t.Fatalf("%v %v", saved, err)
	}
	if data, _ := os.ReadFile(ws + "/new/n.txt"); string(data) != "saved" {
		t.Fatalf("%q", data)
	}
	if _, err := os.Stat(ws + "/a.txt"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatal("a saved delete left the file")
	}
	if e := f.Entries(); len(e) != 1 || e[0].Path != ws+"/keep.txt" {
		t.Fatalf("left %+v", e)
	}
	if _, err := f.Save([]string{ws + "/d/b.txt"}); err == nil {
		t.Fatal("saved a file that did not change")
	}
	if err := SaveToHost(f.Rules(), ws+"/.git/config", []byte("x"), false); err == nil {
		t.Fatal("saved under a hidden name")
	}

	w := newFS(ws, contract.FilesWorkspace, 0)
	if err := w.WriteFile(ws+"/real.txt", []byte("disk"), false); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(ws + "/real.txt"); string(data) != "disk" {
		t.Fatalf("%q", data)
	}
	if e := w.Entries(); len(e) != 0 {
		t.Fatalf("an overlay with real writes: %+v", e)
	}
	if c := w.Changes(); len(c) != 1 || c[0].State != contract.FileCreated {
		t.Fatalf("%+v", c)
	}
}
