//go:build linux

package cgroup

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// This host's cgroups are v1, so the v2 follower runs here on a stand-in
// memory.events file: the kernel's file is flat-keyed counters rewritten
// in place, and inotify reports its changes as it reports the real one's.

const v2Events = "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n"

// v2Watch follows a stand-in memory.events and a sleeping process.
func v2Watch(t *testing.T) (cmd *exec.Cmd, events *os.File, w *Watch) {
	t.Helper()
	dir := t.TempDir()
	name := filepath.Join(dir, "memory.events")
	if err := os.WriteFile(name, []byte(v2Events), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Skipf("no sleep: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	w, err := watchV2(cmd.Process.Pid, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(w.Close)
	events, err = os.OpenFile(name, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { events.Close() })
	return cmd, events, w
}

// count rewrites the stand-in in place, as the kernel does (one write, no
// truncation a reader could see).
func count(t *testing.T, events *os.File, counters string) {
	t.Helper()
	if _, err := events.WriteAt([]byte(counters), 0); err != nil {
		t.Fatal(err)
	}
}

func TestWatchV2SeesTheKill(t *testing.T) {
	cmd, events, w := v2Watch(t)
	if n, ok := w.Kills(); !ok || n != 0 {
		t.Fatalf("kills before anything happened: %d, %v", n, ok)
	}
	// "max" alone (the limit was reached and reclaim coped) is no verdict.
	count(t, events, "low 0\nhigh 0\nmax 7\noom 0\noom_kill 0\n")
	count(t, events, "low 0\nhigh 0\nmax 9\noom 1\noom_kill 1\n")
	waitDone(t, w)
	if v := w.Verdict(); v != OOM {
		t.Fatalf("verdict %v", v)
	}
	if n, ok := w.Kills(); !ok || n != 1 {
		t.Fatalf("kills after the OOM kill: %d, %v", n, ok)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if v := w.Verdict(); v != OOM {
		t.Fatalf("verdict %v after the exit", v)
	}
}

func TestWatchV2OtherKill(t *testing.T) {
	cmd, events, w := v2Watch(t)
	count(t, events, "low 0\nhigh 3\nmax 7\noom 0\noom_kill 0\n")
	cmd.Process.Kill()
	cmd.Wait()
	waitDone(t, w) // the exit, with counters that show no OOM
	if v := w.Verdict(); v != NoOOM {
		t.Fatalf("verdict %v", v)
	}
	if n, ok := w.Kills(); !ok || n != 0 {
		t.Fatalf("kills after a kill that was not the OOM killer's: %d, %v", n, ok)
	}
}

// A fork server's child killed for memory while the container's first
// process lives on: the counter says so, and the verdict is the OOM.
func TestWatchV2KillCounted(t *testing.T) {
	_, events, w := v2Watch(t)
	count(t, events, "low 0\nhigh 0\nmax 2\noom 2\noom_kill 3\n")
	waitDone(t, w)
	if n, ok := w.Kills(); !ok || n != 3 || w.Verdict() != OOM {
		t.Fatalf("kills %d, %v; verdict %v", n, ok, w.Verdict())
	}
	w.Close()
	if _, ok := w.Kills(); ok {
		t.Fatal("kills read from a closed watch")
	}
}
