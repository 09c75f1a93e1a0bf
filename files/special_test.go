//go:build linux

package files

import (
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/contract"
)

// With the host's root as the workspace, the system's pseudo-file folders
// still do not exist for the kernel: not read, listed, written or walked.
func TestSystemFoldersDoNotExist(t *testing.T) {
	for _, write := range []contract.FilesWrite{contract.FilesSandbox, contract.FilesWorkspace} {
		f := New(Options{Rules: NewRules([]string{"/"}, nil), Write: write})
		for _, p := range []string{"/proc/self/environ", "/proc/1/cmdline", "/dev/stdin", "/dev/null", "/dev/zero", "/sys/kernel/hostname", "/proc", "/dev", "/sys", "/dev/../proc/self/environ"} {
			if _, err := f.ReadFile(p); !isErrno(err, syscall.ENOENT) {
				t.Errorf("%s: read %s: %v", write, p, err)
			}
			if _, err := f.Stat(p, true); !isErrno(err, syscall.ENOENT) {
				t.Errorf("%s: stat %s: %v", write, p, err)
			}
			if _, err := f.ReadDir(p); !isErrno(err, syscall.ENOENT) {
				t.Errorf("%s: listdir %s: %v", write, p, err)
			}
		}
		names, err := f.ReadDir("/")
		if err != nil || !slices.Contains(names, "etc") {
			t.Fatalf("%s: / holds %v %v", write, names, err)
		}
		for _, n := range []string{"proc", "sys", "dev"} {
			if slices.Contains(names, n) {
				t.Errorf("%s: / lists %s", write, n)
			}
		}
		if err := f.WriteFile("/dev/null", []byte("x"), false); !isErrno(err, syscall.ENOENT) {
			t.Errorf("%s: write /dev/null: %v", write, err)
		}
		if err := f.Mkdir("/proc/x", false, false); !isErrno(err, syscall.ENOENT) {
			t.Errorf("%s: mkdir /proc/x: %v", write, err)
		}
		if got := f.Resolve("/dev/stdin"); got != "/dev/stdin" {
			t.Errorf("%s: resolve /dev/stdin: %s", write, got)
		}
	}
}

// FIFOs, sockets and links to devices or to /proc in the workspace do not
// exist for the kernel: a read of one never blocks, a write in workspace
// mode never reaches it, and the container's copy leaves them out.
func TestSpecialFilesDoNotExist(t *testing.T) {
	ws := t.TempDir()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(os.WriteFile(filepath.Join(ws, "a.txt"), []byte("alpha"), 0o644))
	must(syscall.Mkfifo(filepath.Join(ws, "fifo"), 0o644))
	l, err := net.Listen("unix", filepath.Join(ws, "sock"))
	must(err)
	defer l.Close()
	must(os.Symlink(filepath.Join(ws, "fifo"), filepath.Join(ws, "to-fifo")))
	must(os.Symlink("/dev/stdin", filepath.Join(ws, "stdin")))
	must(os.Symlink("/proc/self/environ", filepath.Join(ws, "environ")))
	must(os.Symlink("/proc/self", filepath.Join(ws, "self")))
	special := []string{"fifo", "sock", "to-fifo", "stdin", "environ", "self"}

	for _, write := range []contract.FilesWrite{contract.FilesSandbox, contract.FilesWorkspace} {
		f := New(Options{Rules: NewRules([]string{ws}, nil), Write: write})
		if names, err := f.ReadDir(ws); err != nil || !slices.Equal(names, []string{"a.txt"}) {
			t.Fatalf("%s: %v %v", write, names, err)
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			for _, n := range special {
				p := filepath.Join(ws, n)
				if _, err := f.ReadFile(p); !isErrno(err, syscall.ENOENT) {
					t.Errorf("%s: read %s: %v", write, n, err)
				}
				if _, err := f.ReadFile(p + "/environ"); !isErrno(err, syscall.ENOENT) {
					t.Errorf("%s: read %s/environ: %v", write, n, err)
				}
				if _, err := f.Stat(p, true); !isErrno(err, syscall.ENOENT) {
					t.Errorf("%s: stat %s: %v", write, n, err)
				}
				if _, err := f.Open(p, "r"); !isErrno(err, syscall.ENOENT) {
					t.Errorf("%s: open %s: %v", write, n, err)
				}
			}
			// A write to the FIFO's name lands in the overlay: the host's
			// FIFO is not opened.
			if err := f.WriteFile(filepath.Join(ws, "fifo"), []byte("x"), false); err != nil {
				t.Errorf("%s: write fifo: %v", write, err)
			}
		}()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Fatalf("%s: a call on a special file blocked", write)
		}
		if fi, err := os.Lstat(filepath.Join(ws, "fifo")); err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
			t.Fatalf("the host's FIFO changed: %v %v", fi, err)
		}
		var walked []string
		must(f.Rules().Walk(func(kp, _ string, _ fs.FileInfo) error {
			walked = append(walked, filepath.Base(kp))
			return nil
		}))
		for _, n := range special[2:] {
			if slices.Contains(walked, n) {
				t.Errorf("walk gives the link %s", n)
			}
		}
	}
}

// The credentials people keep at home stay hidden under the default
// names, those of several parts (.config/gh) included, on every path a
// kernel has to them.
func TestDefaultHiddenCredentials(t *testing.T) {
	home := t.TempDir()
	secret := map[string]string{
		".netrc": "", ".git-credentials": "", ".docker/config.json": "", ".kube/config": "", ".config/gh/hosts.yml": "",
		".config/gcloud/credentials.db": "", ".azure/token": "", ".pypirc": "", ".npmrc": "", ".gnupg/key": "",
		".bash_history": "", ".python_history": "", ".password-store/x.gpg": "", ".ssh/id_ed25519": "", ".aws/credentials": "",
	}
	plainFiles := []string{"nb.py", ".config/other/ok.txt", "gh/ok.txt", ".config/ghost/ok.txt"}
	for name := range secret {
		p := filepath.Join(home, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("canary"), 0o600)
	}
	for _, name := range plainFiles {
		p := filepath.Join(home, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte("ok"), 0o600)
	}
	r := NewRules([]string{home}, contract.DefaultSettings().Files.Hide)
	f := New(Options{Rules: r})
	for name := range secret {
		if _, err := f.ReadFile(filepath.Join(home, name)); !isErrno(err, syscall.ENOENT) {
			t.Errorf("read %s: %v", name, err)
		}
	}
	for _, name := range plainFiles {
		if data, err := f.ReadFile(filepath.Join(home, name)); err != nil || string(data) != "ok" {
			t.Errorf("read %s: %q %v", name, data, err)
		}
	}
	if names, _ := f.ReadDir(filepath.Join(home, ".config")); !slices.Equal(names, []string{"ghost", "other"}) {
		t.Errorf(".config holds %v", names)
	}
	// A root inside .config still hides what a pattern of two parts names.
	inner := New(Options{Rules: NewRules([]string{filepath.Join(home, ".config")}, contract.DefaultSettings().Files.Hide)})
	if names, _ := inner.ReadDir(filepath.Join(home, ".config")); !slices.Equal(names, []string{"ghost", "other"}) {
		t.Errorf("a root at .config holds %v", names)
	}
	var walked []string
	r.Walk(func(kp, _ string, _ fs.FileInfo) error {
		walked = append(walked, kp)
		return nil
	})
	for _, kp := range walked {
		for name := range secret {
			if kp == KernelPath(filepath.Join(home, name)) {
				t.Errorf("walk gives %s", name)
			}
		}
	}
	if !r.HiddenIn(filepath.Join(home, ".config"), "gh") || r.HiddenIn(filepath.Join(home, ".config"), "ghost") || !r.HiddenIn(home, ".zsh_history") {
		t.Error("HiddenIn")
	}
}
