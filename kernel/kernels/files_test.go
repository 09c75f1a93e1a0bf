package kernels

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
)

// TestAutoMoveKeepsFiles: a file a Monty cell wrote is seen, at the same
// path, by the container after the document moves; it never reaches the
// host; the overlay lists it until it is saved; restart discards it.
func TestAutoMoveKeepsFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the Monty worker, a container engine and the test image")
	}
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws, "in.csv"), []byte("x\n1\n2\n"), 0o644)
	for _, rt := range []contract.Runtime{contract.RuntimeRunc, contract.RuntimeRunsc} {
		t.Run(string(rt), func(t *testing.T) {
			s := contract.DefaultSettings()
			s.Container.Image, s.Container.Runtime = containertest.Image(), rt
			k, err := New(kernel.Config{Settings: s, Roots: []string{ws}, Dir: ws})
			if err != nil {
				t.Fatal(err)
			}
			defer k.Close()
			fk := k.(kernel.FileKeeper)
			r := kerneltest.Run(t, k, "import os\nhere = os.getcwd()\nrows = open('in.csv').read().split()\nwith open('out.txt', 'w') as f:\n    f.write(','.join(rows))\nhere")
			if r.Backend != contract.BackendMonty || r.Value == nil || r.Value.Text != "'"+ws+"'" ||
				len(r.Files) != 1 || r.Files[0] != (contract.FileChange{Path: filepath.Join(ws, "out.txt"), State: contract.FileCreated}) {
				t.Fatalf("%+v %+v", r, r.Error)
			}
			r = kerneltest.Run(t, k, "import numpy\nos.getcwd() == here, open('out.txt').read(), sorted(os.listdir('.'))")
			if r.Backend != contract.BackendContainer || r.Value == nil || r.Value.Text != "(True, 'x,1,2', ['in.csv', 'out.txt'])" {
				t.Fatalf("after the move: %+v %+v", r, r.Error)
			}
			if _, err := os.Stat(filepath.Join(ws, "out.txt")); err == nil {
				t.Fatal("the write reached the host")
			}
			entries, err := fk.Files(context.Background())
			if err != nil || len(entries) != 1 || entries[0].Path != filepath.Join(ws, "out.txt") || entries[0].Size != 5 {
				t.Fatalf("overlay %+v %v", entries, err)
			}
			if err := k.Restart(context.Background()); err != nil {
				t.Fatal(err)
			}
			r = kerneltest.Run(t, k, "import os\nos.path.exists('out.txt')")
			if r.Backend != contract.BackendMonty || r.Value == nil || r.Value.Text != "False" {
				t.Fatalf("after restart: %+v", r)
			}
		})
	}
}

// TestSameFilesOnEveryBackend: a notebook beside a CSV, JSON and text tree
// sees the same thing on Monty and in a container (runc, runsc): the same
// working directory, contents, listings, globs, walks and sizes.
func TestSameFilesOnEveryBackend(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the Monty worker, a container engine and the test image")
	}
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	nbDir := filepath.Join(ws, "notebooks")
	for name, data := range map[string]string{
		"notebooks/sales.csv": "region,amount\r\nnorth,10\r\nsouth,32\r\n", "notebooks/cfg.json": `{"rate": 0.5, "name": "Zoë"}`,
		"data/notes/a.txt": "Grüße\n", "data/notes/b.txt": "日本語\n", "data/notes/deep/c.log": "x\n", ".env": "SECRET=1\n",
	} {
		p := filepath.Join(ws, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(data), 0o644)
	}
	os.Symlink(filepath.Join(ws, ".env"), filepath.Join(nbDir, "env_link"))
	cells := []string{
		"import os, csv, json\nos.getcwd(), sorted(os.listdir('.')), sorted(os.listdir('..'))",
		"rows = list(csv.DictReader(open('sales.csv', newline='')))\nsum(int(r['amount']) for r in rows), open('sales.csv').read()",
		"json.load(open('cfg.json'))",
		"from pathlib import Path\nsorted(p.name for p in Path('../data').rglob('*.txt')), sorted(str(p) for p in Path('..').glob('data/*/*'))",
		"[(r, sorted(d), sorted(f)) for r, d, f in sorted(os.walk('../data'))]",
		"sorted((e.name, e.is_dir(), e.stat().st_size if e.is_file() else 0) for e in os.scandir('../data/notes'))",
		"[open('../data/notes/' + n).read() for n in ('a.txt', 'b.txt')], os.path.getsize('../data/notes/b.txt')",
		"os.path.exists('../.env'), os.path.exists('env_link'), os.path.isdir('../..'), len(os.listdir(os.path.dirname(os.getcwd())))",
		"with open('out.txt', 'w') as f:\n    f.write('1\\n2\\n')\nopen('out.txt').readlines(), sorted(os.listdir('.'))",
	}
	var want []string
	for _, b := range []struct {
		backend contract.Backend
		runtime contract.Runtime
	}{{contract.BackendMonty, ""}, {contract.BackendContainer, contract.RuntimeRunc}, {contract.BackendContainer, contract.RuntimeRunsc}} {
		s := contract.DefaultSettings()
		s.Backend, s.Container.Image, s.Container.Runtime = b.backend, containertest.Image(), b.runtime
		k, err := New(kernel.Config{Settings: s, Roots: []string{ws}, Dir: nbDir})
		if err != nil {
			t.Fatal(err)
		}
		for i, code := range cells {
			r := kerneltest.Run(t, k, code)
			got := string(r.Status) + " " + r.Stdout
			if r.Value != nil {
				got += r.Value.Text
			}
			if r.Error != nil {
				got += r.Error.EName + ": " + r.Error.EValue
			}
			if b.backend == contract.BackendMonty {
				want = append(want, got)
				if r.Status != kernel.StatusOK {
					t.Errorf("monty cell %d: %s", i+1, got)
				}
			} else if got != want[i] {
				t.Errorf("%s cell %d:\n got %s\nmonty %s", b.runtime, i+1, got, want[i])
			}
		}
		k.Close()
	}
	if _, err := os.Stat(filepath.Join(nbDir, "out.txt")); err == nil {
		t.Fatal("a write reached the host")
	}
}
