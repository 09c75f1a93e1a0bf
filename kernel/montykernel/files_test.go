package montykernel

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
)

func filesKernel(t *testing.T, write contract.FilesWrite) (*Kernel, string) {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws, "log.txt"), []byte("start\n"), 0o644)
	s := contract.DefaultSettings()
	s.Files.Write = write
	k, err := New(OptionsOf(kernel.Config{Settings: s, Roots: []string{ws}, Dir: ws}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k, ws
}

// TestFilesFollowTheNamespace: an interrupted cell's writes go with its
// namespace changes (the overlay is checkpointed with the session), cells
// replayed after it do not write twice, and restart empties the overlay.
func TestFilesFollowTheNamespace(t *testing.T) {
	k, ws := filesKernel(t, contract.FilesSandbox)
	appendLine := "with open('log.txt', 'a') as f:\n    f.write('%s\\n')"
	for _, line := range []string{"one", "two"} {
		if r := kerneltest.Run(t, k, replace(appendLine, line)); r.Status != kernel.StatusOK || len(r.Files) != 1 || r.Files[0].State != contract.FileChanged {
			t.Fatalf("%+v %+v", r, r.Error)
		}
	}
	r := kerneltest.RunInterrupted(t, k, kernel.Request{Code: replace(appendLine, "lost") + "\nwhile True:\n    pass"}, "")
	if r.Status != kernel.StatusInterrupted || len(r.Files) != 0 {
		t.Fatalf("%+v", r)
	}
	r = kerneltest.Run(t, k, "open('log.txt').read()")
	if r.Value == nil || r.Value.Text != `'start\none\ntwo\n'` {
		t.Fatalf("after the interrupt: %+v", r)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "log.txt")); string(data) != "start\n" {
		t.Fatalf("the host changed: %q", data)
	}
	if e, _ := k.Files(context.Background()); len(e) != 1 || e[0].Size != len("start\none\ntwo\n") {
		t.Fatalf("overlay %+v", e)
	}
	if info := k.Info(); info.Write != contract.FilesSandbox {
		t.Fatalf("%+v", info)
	}
	if err := k.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	if e, _ := k.Files(context.Background()); len(e) != 0 {
		t.Fatalf("restart kept %+v", e)
	}
	if r := kerneltest.Run(t, k, "open('log.txt').read()"); r.Value == nil || r.Value.Text != `'start\n'` {
		t.Fatalf("after restart: %+v", r)
	}
}

// TestFilesWriteWorkspace: with files.write "workspace" the cells write
// the real files.
func TestFilesWriteWorkspace(t *testing.T) {
	k, ws := filesKernel(t, contract.FilesWorkspace)
	r := kerneltest.Run(t, k, "from pathlib import Path\nPath('real.txt').write_text('on disk')")
	if r.Status != kernel.StatusOK || len(r.Files) != 1 || r.Files[0].State != contract.FileCreated {
		t.Fatalf("%+v %+v", r, r.Error)
	}
	if data, err := os.ReadFile(filepath.Join(ws, "real.txt")); string(data) != "on disk" || err != nil {
		t.Fatalf("%q %v", data, err)
	}
	if info := k.Info(); info.Write != contract.FilesWorkspace {
		t.Fatalf("%+v", info)
	}
}

// TestOverlayCountsAgainstMemory: the overlay holds at most the kernel's
// memory limit; past it a write fails as a full disk does.
func TestOverlayCountsAgainstMemory(t *testing.T) {
	ws := t.TempDir()
	s := contract.DefaultSettings()
	s.Memory = 32
	k, err := New(OptionsOf(kernel.Config{Settings: s, Roots: []string{ws}, Dir: ws}))
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	r := kerneltest.Run(t, k, "from pathlib import Path\nfor name in 'abcd':\n    Path(name + '.bin').write_bytes(b'x' * 10_000_000)")
	if r.Status != kernel.StatusError || r.Error.EName != "OSError" || r.Error.EValue != "[Errno 28] No space left on device: 'd.bin'" {
		t.Fatalf("%+v %+v", r, r.Error)
	}
}

func replace(format, s string) string {
	out := []byte{}
	for i := 0; i < len(format); i++ {
		if format[i] == '%' && i+1 < len(format) && format[i+1] == 's' {
			out = append(out, s...)
			i++
			continue
		}
		out = append(out, format[i])
	}
	return string(out)
}
