//go:build linux

package cgroup

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// waitDone waits for the watch's verdict; the bound only turns a hang
// into a failure.
func waitDone(t *testing.T, w *Watch) {
	t.Helper()
	select {
	case <-w.Done():
	case <-time.After(time.Minute):
		t.Fatal("no verdict")
	}
}

// testCgroup makes a memory cgroup of its own with a 32 MiB limit and
// starts python3 in it, waiting for a line on stdin before it allocates
// without end. It skips where this process may not make cgroups (not root,
// no cgroup v1 memory controller).
func testCgroup(t *testing.T) (cmd *exec.Cmd, stdin io.WriteCloser, dir, name string) {
	t.Helper()
	name = fmt.Sprintf("backyard-cgroup-test-%d-%s", os.Getpid(), filepath.Base(t.Name()))
	dir = filepath.Join("/sys/fs/cgroup/memory", name)
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Skipf("cannot make a memory cgroup here: %v", err)
	}
	t.Cleanup(func() { os.Remove(dir) })
	for file, v := range map[string]string{"memory.limit_in_bytes": "33554432", "memory.memsw.limit_in_bytes": "33554432"} {
		if err := os.WriteFile(filepath.Join(dir, file), []byte(v), 0o644); err != nil && file == "memory.limit_in_bytes" {
			t.Fatal(err)
		}
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	cmd = exec.Command(python, "-c", "import sys\nsys.stdin.readline()\nh = []\nwhile True:\n    h.append(bytearray(1 << 20))")
	stdin, _ = cmd.StdinPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(fmt.Sprint(cmd.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	return cmd, stdin, dir, name
}

// watched is testCgroup's process with a watch of its cgroup.
func watched(t *testing.T) (cmd *exec.Cmd, stdin io.WriteCloser, dir string, w *Watch) {
	t.Helper()
	cmd, stdin, dir, name := testCgroup(t)
	w, err := WatchOOM(cmd.Process.Pid, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	return cmd, stdin, dir, w
}

func TestWatchOOMSeesTheKill(t *testing.T) {
	cmd, stdin, _, w := watched(t)
	if v := w.Verdict(); v != Pending {
		t.Fatalf("verdict %v before anything happened", v)
	}
	if n, ok := w.Kills(); !ok || n != 0 {
		t.Fatalf("kills before anything happened: %d, %v", n, ok)
	}
	io.WriteString(stdin, "go\n")
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ProcessState.String() != "signal: killed" {
		t.Fatalf("python3 ended with %v", err)
	}
	waitDone(t, w) // the kill came after the notification
	if v := w.Verdict(); v != OOM {
		t.Fatalf("verdict %v", v)
	}
	if n, ok := w.Kills(); !ok || n != 1 {
		t.Fatalf("kills after the OOM kill: %d, %v", n, ok)
	}
	w.Close()
	if _, ok := w.Kills(); ok {
		t.Fatal("kills read from a closed watch")
	}
}

func TestWatchOOMOtherKill(t *testing.T) {
	cmd, _, _, w := watched(t)
	cmd.Process.Kill()
	waitDone(t, w) // the exit, read before the cgroup goes
	if v := w.Verdict(); v != NoOOM {
		t.Fatalf("verdict %v", v)
	}
	if n, ok := w.Kills(); !ok || n != 0 {
		t.Fatalf("kills after a kill that was not the OOM killer's: %d, %v", n, ok)
	}
}

// A cgroup removed while its process lives on elsewhere: its removal is
// signalled, and nothing is known of an OOM kill.
func TestWatchOOMCgroupRemoved(t *testing.T) {
	cmd, _, dir, w := watched(t)
	if err := os.WriteFile(filepath.Join(filepath.Dir(dir), "cgroup.procs"), []byte(fmt.Sprint(cmd.Process.Pid)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	waitDone(t, w)
	if v := w.Verdict(); v != Unknown {
		t.Fatalf("verdict %v", v)
	}
}

func TestWatchOOMRefusesAnotherCgroup(t *testing.T) {
	if _, err := WatchOOM(os.Getpid(), "0123456789abcdef"); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("%v", err)
	}
	w := (*Watch)(nil)
	w.Close() // a missing watch closes quietly
}
