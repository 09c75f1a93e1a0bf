package containerkernel

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/files"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
)

// filesWorkspace makes a project: a notebook folder with data beside it,
// data one level up, a hidden .env, a link that leads out of it; and a
// file outside it.
func filesWorkspace(t *testing.T) (ws, nbDir, outside string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws = filepath.Join(dir, "proj")
	nbDir = filepath.Join(ws, "notebooks")
	outside = filepath.Join(dir, "outside.txt")
	for name, data := range map[string]string{
		"notebooks/sales.csv":  "region,amount\nnorth,10\nsouth,32\n",
		"notebooks/users.json": `{"ana": 3, "bo": 4}`,
		"data/notes.txt":       "Grüße, naïve café\n",
		".env":                 "TOKEN=secret\n",
		"notebooks/.git/HEAD":  "ref\n",
	} {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(outside, []byte("host only"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(nbDir, "escape.txt")); err != nil {
		t.Fatal(err)
	}
	return ws, nbDir, outside
}

func filesOptions(ws, dir string, write contract.FilesWrite) func(*Options) {
	return func(o *Options) {
		o.Container.MountWorkspace = true
		o.Files = files.NewRules([]string{ws}, contract.DefaultSettings().Files.Hide)
		o.Write, o.Dir = write, dir
	}
}

func TestContainerFiles(t *testing.T) {
	ws, nbDir, outside := filesWorkspace(t)
	forRuntimes(t, kernel.Limits{}, func(t *testing.T, k *Kernel) {
		run := func(code string) kernel.Result {
			t.Helper()
			r := kerneltest.Run(t, k, code)
			if r.Status != kernel.StatusOK {
				t.Fatalf("%s: %+v %+v", code, r, r.Error)
			}
			return r
		}
		// Reads beside the notebook and one level up, in its folder.
		r := run("import csv, json, os\nrows = list(csv.DictReader(open('sales.csv')))\n" +
			"os.getcwd(), sum(int(r['amount']) for r in rows), json.load(open('users.json')), open('../data/notes.txt', encoding='utf-8').read()")
		// Past 79 columns, one item a line (IPython's pretty printer).
		if want := "(" + pyStr(nbDir) + ",\n 42,\n {'ana': 3, 'bo': 4},\n 'Grüße, naïve café\\n')"; value(r) != want {
			t.Fatalf("got %s, want %s", value(r), want)
		}
		// Nothing outside the workspace, nothing hidden.
		r = run("import os\n[os.path.exists(p) for p in ['../.env', '.git', 'escape.txt', " + pyStr(outside) + ", '../../outside.txt']], sorted(os.listdir('..')), sorted(os.listdir('.'))")
		if want := "([False, False, False, False, False],\n ['data', 'notebooks'],\n ['sales.csv', 'users.json'])"; value(r) != want {
			t.Fatalf("got %s, want %s", value(r), want)
		}
		// Writes: seen by later cells, listed, not on the host.
		r = run("with open('summary.csv', 'w') as f:\n    f.write('total,42\\n')\nos.remove('users.json')")
		if len(r.Files) != 2 || r.Files[0] != (contract.FileChange{Path: filepath.Join(nbDir, "summary.csv"), State: contract.FileCreated}) ||
			r.Files[1] != (contract.FileChange{Path: filepath.Join(nbDir, "users.json"), State: contract.FileDeleted}) {
			t.Fatalf("changes %+v", r.Files)
		}
		if r := run("open('summary.csv').read(), sorted(os.listdir('.'))"); value(r) != `('total,42\n', ['sales.csv', 'summary.csv'])` {
			t.Fatalf("%s", value(r))
		}
		if _, err := os.Stat(filepath.Join(nbDir, "summary.csv")); err == nil {
			t.Fatal("the write reached the host")
		}
		if _, err := os.Stat(filepath.Join(nbDir, "users.json")); err != nil {
			t.Fatal("the delete reached the host")
		}
		entries, err := k.Files(context.Background())
		if err != nil || len(entries) != 2 || entries[0].Path != filepath.Join(nbDir, "summary.csv") || entries[0].Size != 9 || entries[0].State != contract.FileCreated ||
			entries[1].State != contract.FileDeleted {
			t.Fatalf("overlay %+v %v", entries, err)
		}
		// tempfile, shutil, sqlite and matplotlib under the same rules.
		r = run("import tempfile, shutil, sqlite3\nimport matplotlib.pyplot as plt\n" +
			"with tempfile.TemporaryDirectory() as tmp:\n    shutil.copy('sales.csv', tmp)\n    copied = sorted(os.listdir(tmp))\n" +
			"con = sqlite3.connect('local.db')\ncon.execute('create table t (x)')\ncon.execute('insert into t values (7)')\ncon.commit()\n" +
			"fig, ax = plt.subplots()\nax.plot([1, 2])\nfig.savefig('chart.png')\nplt.close(fig)\n" +
			"copied, con.execute('select x from t').fetchone(), open('chart.png', 'rb').read(4)")
		if value(r) != `(['sales.csv'], (7,), b'\x89PNG')` {
			t.Fatalf("%s", value(r))
		}
		// Save chosen files to the workspace.
		saved, err := k.SaveFiles(context.Background(), []string{filepath.Join(nbDir, "summary.csv"), filepath.Join(nbDir, "users.json")})
		if err != nil || len(saved) != 2 {
			t.Fatalf("%v %v", saved, err)
		}
		if data, _ := os.ReadFile(filepath.Join(nbDir, "summary.csv")); string(data) != "total,42\n" {
			t.Fatalf("saved %q", data)
		}
		if _, err := os.Stat(filepath.Join(nbDir, "users.json")); err == nil {
			t.Fatal("the saved delete did not remove the file")
		}
		entries, _ = k.Files(context.Background())
		for _, e := range entries {
			if strings.HasSuffix(e.Path, "summary.csv") || strings.HasSuffix(e.Path, "users.json") {
				t.Fatalf("saved files are still listed: %+v", entries)
			}
		}
		if _, err := k.SaveFiles(context.Background(), []string{filepath.Join(ws, ".env")}); err == nil {
			t.Fatal("saved a file the kernel did not change")
		}
		// Restart discards the overlay.
		if err := k.Restart(context.Background()); err != nil {
			t.Fatal(err)
		}
		if r := run("import os\nos.path.exists('local.db'), os.path.exists('summary.csv')"); value(r) != "(False, True)" {
			t.Fatalf("after restart: %s", value(r))
		}
		os.Remove(filepath.Join(nbDir, "summary.csv"))
		os.WriteFile(filepath.Join(nbDir, "users.json"), []byte(`{"ana": 3, "bo": 4}`), 0o644)
	}, filesOptions(ws, nbDir, contract.FilesSandbox))
}

func TestContainerFilesWriteWorkspace(t *testing.T) {
	ws, nbDir, _ := filesWorkspace(t)
	forRuntimes(t, kernel.Limits{}, func(t *testing.T, k *Kernel) {
		name := "real-" + string(k.opts.Container.Runtime) + ".txt"
		// Hidden names are masked (empty) in a read-write mount.
		r := kerneltest.Run(t, k, "import os\nopen("+pyStr(name)+", 'w').write('on disk'), open('../.env').read()")
		if r.Status != kernel.StatusOK || value(r) != "(7, '')" || len(r.Files) != 1 || r.Files[0].State != contract.FileCreated {
			t.Fatalf("%+v %+v", r, r.Error)
		}
		if data, err := os.ReadFile(filepath.Join(nbDir, name)); err != nil || string(data) != "on disk" {
			t.Fatalf("%q %v", data, err)
		}
		if info := k.Info(); info.Write != contract.FilesWorkspace {
			t.Fatalf("%+v", info)
		}
		if e, _ := k.Files(context.Background()); len(e) != 0 {
			t.Fatalf("an overlay with real writes: %+v", e)
		}
	}, filesOptions(ws, nbDir, contract.FilesWorkspace))
}

func TestContainerWorkspaceTooLargeIsReadOnly(t *testing.T) {
	ws, nbDir, _ := filesWorkspace(t)
	forRuntimes(t, kernel.Limits{MemoryBytes: 256 << 20}, func(t *testing.T, k *Kernel) {
		r := kerneltest.Run(t, k, "import os\nopen('sales.csv').readline(), repr(open('../.env').read()), os.listdir('.git')")
		if r.Status != kernel.StatusOK || value(r) != `('region,amount\n', "''", [])` {
			t.Fatalf("%+v %+v", r, r.Error)
		}
		r = kerneltest.Run(t, k, "open('new.txt', 'w')")
		if r.Status != kernel.StatusError || r.Error.EName != "OSError" && r.Error.EName != "PermissionError" {
			t.Fatalf("%+v %+v", r, r.Error)
		}
		// The refused write says why, in the result itself.
		if !strings.Contains(strings.Join(r.Notes, " "), "read-only in this kernel") {
			t.Fatalf("the failed write has no note: %+v", r.Notes)
		}
		if info := k.Info(); len(info.Notes) == 0 || !strings.Contains(strings.Join(info.Notes, " "), "read-only") {
			t.Fatalf("no note: %+v", info)
		}
	}, filesOptions(ws, nbDir, contract.FilesSandbox), func(o *Options) { o.CopyBytes = 10 })
}

// A read-only workspace with more hidden entries than gVisor can take
// mounts for (a shared folder such as /tmp) still gives a kernel that runs:
// under runsc the workspace is left out, with a note saying why.
func TestContainerWorkspaceWithManyHiddenEntriesStarts(t *testing.T) {
	ws := t.TempDir()
	for i := 0; i < 70; i++ {
		dir := filepath.Join(ws, fmt.Sprintf("p%d", i))
		if err := os.MkdirAll(filepath.Join(dir, ".ssh"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, ".netrc"), []byte("machine x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "data.txt"), []byte("0123456789abcdef"), 0o644); err != nil {
		t.Fatal(err)
	}
	forRuntimes(t, kernel.Limits{}, func(t *testing.T, k *Kernel) {
		r := kerneltest.Run(t, k, "import os\nos.path.exists('data.txt'), os.path.exists('p1/.netrc') and open('p1/.netrc').read()")
		if r.Status != kernel.StatusOK {
			t.Fatalf("%+v %+v", r, r.Error)
		}
		info := k.Info()
		notes := strings.Join(info.Notes, " ")
		want := "(True, '')" // masked: seen read-only, credentials empty
		if info.Runtime == "runsc" {
			want = "(False, False)" // left out, and the kernel says so
			if !strings.Contains(notes, "too many hidden files") {
				t.Fatalf("workspace left out without a note: %q", notes)
			}
		}
		if value(r) != want {
			t.Fatalf("%s: value %s, want %s (notes %q)", info.Runtime, value(r), want, notes)
		}
	}, filesOptions(ws, ws, contract.FilesSandbox), func(o *Options) { o.CopyBytes = 10 })
}
