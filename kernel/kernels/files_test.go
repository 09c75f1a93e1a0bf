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
