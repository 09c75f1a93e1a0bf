package containerkernel

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/files"
	"github.com/backyard-ls/backyard-ls/kernel"
)

func warmOptions(runtime string, memory uint64) Options {
	return Options{
		Container: contract.ContainerSettings{Image: testImage(), Runtime: contract.Runtime(runtime), WarmPool: 1},
		Pull:      "never", Limits: kernel.Limits{MemoryBytes: memory},
	}
}

// waitWarm waits until the pool holds a container for opts and returns
// its ID.
func waitWarm(t *testing.T, opts Options) string {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for WarmReady(opts) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the warm pool did not fill")
		}
		time.Sleep(20 * time.Millisecond)
	}
	k, _ := New(opts)
	warm.mu.Lock()
	defer warm.mu.Unlock()
	return warm.slots[warmKey(k.config())].ready[0].ID()
}

func exists(t *testing.T, id string) bool {
	t.Helper()
	return exec.Command("docker", "inspect", id).Run() == nil
}

// A kernel's first start takes the container that waited, the pool fills
// again behind it with another one, and nothing of one kernel reaches the
// next: a restart or a second kernel gets a fresh container, never one
// given back.
func TestWarmPoolHandsOutFreshContainers(t *testing.T) {
	requireEngine(t)
	t.Cleanup(CloseWarm)
	for _, rt := range runtimes {
		t.Run(rt, func(t *testing.T) {
			opts := warmOptions(rt, 200<<20)
			Warm(opts)
			waiting := waitWarm(t, opts)
			a, _ := New(opts)
			defer a.Close()
			r := kerneltestRun(t, a, "secret = 42\nsecret")
			if r.Value.Text != "42" || a.ContainerID() != waiting {
				t.Fatalf("the first start did not take the waiting container: %s, want %s", a.ContainerID(), waiting)
			}
			next := waitWarm(t, opts)
			if next == waiting {
				t.Fatal("the container taken is still in the pool")
			}
			if err := a.Restart(context.Background()); err != nil {
				t.Fatal(err)
			}
			if exists(t, waiting) {
				t.Fatal("a restart must remove the kernel's container, not give it back")
			}
			if r := kerneltestRun(t, a, "'secret' in dir()"); r.Value.Text != "False" || a.ContainerID() != next {
				t.Fatalf("after the restart: %+v in %s, want a fresh %s", r.Value, a.ContainerID(), next)
			}
			b, _ := New(opts)
			defer b.Close()
			if r := kerneltestRun(t, b, "'secret' in dir()"); r.Value.Text != "False" || b.ContainerID() == a.ContainerID() {
				t.Fatalf("another kernel: %+v in %s", r.Value, b.ContainerID())
			}
		})
	}
}

func kerneltestRun(t *testing.T, k *Kernel, code string) kernel.Result {
	t.Helper()
	r, err := k.Execute(context.Background(), kernel.Request{Code: code})
	if err != nil || r.Status != kernel.StatusOK {
		t.Fatalf("%q: %+v %v", code, r, err)
	}
	return r
}

// The pool is bounded: containers for the configurations used least
// recently go; the ones waiting carry the owner labels every kernel
// container has (so exit and crash clean-ups find them); CloseWarm
// removes them.
func TestWarmPoolIsBoundedAndLabelled(t *testing.T) {
	requireEngine(t)
	t.Cleanup(CloseWarm)
	var ids []string
	for i := range warmConfigs + 1 {
		opts := warmOptions("runc", uint64(100+i)<<20)
		Warm(opts)
		ids = append(ids, waitWarm(t, opts))
	}
	out, err := exec.Command("docker", "inspect", "--format", "{{index .Config.Labels \""+container.LabelInstance+"\"}}", ids[len(ids)-1]).Output()
	if err != nil || strings.TrimSpace(string(out)) != container.InstanceID() {
		t.Fatalf("labels: %q %v", out, err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for exists(t, ids[0]) {
		if time.Now().After(deadline) {
			t.Fatal("the least recently used configuration's container was kept")
		}
		time.Sleep(50 * time.Millisecond)
	}
	warm.mu.Lock()
	n := len(warm.slots)
	warm.mu.Unlock()
	if n > warmConfigs {
		t.Fatalf("%d configurations kept", n)
	}
	CloseWarm()
	for _, id := range ids[1:] {
		if exists(t, id) {
			t.Fatalf("%s left after CloseWarm", id)
		}
	}
}

// Without an image on the engine the pool starts nothing and does not
// pull: the kernel does that, with progress.
func TestWarmPoolNeverPulls(t *testing.T) {
	requireEngine(t)
	t.Cleanup(CloseWarm)
	opts := warmOptions("runc", 0)
	opts.Container.Image = "backyard-python:not-here"
	Warm(opts)
	// Waits for the failed start to be noted (a busy engine may take
	// seconds to say the image is missing), then looks at the pool.
	k, _ := New(opts)
	failed := func() bool {
		warm.mu.Lock()
		defer warm.mu.Unlock()
		sl := warm.slots[warmKey(k.config())]
		return sl != nil && !sl.failedAt.IsZero()
	}
	for deadline := time.Now().Add(2 * time.Minute); !failed(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the failed start was not noted")
		}
	}
	if WarmReady(opts) != 0 {
		t.Fatal("filled without the image")
	}
}

// A kernel whose configuration nobody warmed (a program's, not an
// editor's document) leaves no container waiting after its start.
func TestWarmPoolOnlyForWarmedConfigurations(t *testing.T) {
	requireEngine(t)
	t.Cleanup(CloseWarm)
	opts := warmOptions("runc", 123<<20)
	k, _ := New(opts)
	defer k.Close()
	kerneltestRun(t, k, "1")
	time.Sleep(warmRefillDelay + time.Second) // past the refill a warmed one would get
	warm.mu.Lock()
	n := len(warm.slots)
	warm.mu.Unlock()
	if n != 0 {
		t.Fatalf("%d configurations warmed by a plain kernel start", n)
	}
}

// A document's workspace is part of what the pool keys on; a waiting
// container whose copied files no longer match the workspace is not
// handed out, so the kernel reads the files as they are now.
func TestWarmPoolWorkspaceIsCurrent(t *testing.T) {
	requireEngine(t)
	t.Cleanup(CloseWarm)
	ws := t.TempDir()
	data := filepath.Join(ws, "data.txt")
	if err := os.WriteFile(data, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := warmOptions("runc", 124<<20)
	opts.Container.MountWorkspace, opts.Files, opts.Dir = true, files.NewRules([]string{ws}, nil), ws
	Warm(opts)
	waiting := waitWarm(t, opts)
	a, _ := New(opts)
	defer a.Close()
	if r := kerneltestRun(t, a, "open('data.txt').read()"); r.Value.Text != "'one'" || a.ContainerID() != waiting {
		t.Fatalf("%+v in %s, want the waiting %s", r.Value, a.ContainerID(), waiting)
	}
	next := waitWarm(t, opts)
	later := time.Now().Add(2 * time.Second)
	if err := os.WriteFile(data, []byte("two"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Chtimes(data, later, later) // a new mtime even on a coarse clock
	b, _ := New(opts)
	defer b.Close()
	if r := kerneltestRun(t, b, "open('data.txt').read()"); r.Value.Text != "'two'" || b.ContainerID() == next {
		t.Fatalf("%+v in %s: the stale waiting container %s was used", r.Value, b.ContainerID(), next)
	}
}

// A start under way in the pool when it closes (a server's exit) is
// cancelled, not waited for, and its container is removed: here a start
// at a hundredth of a CPU, which takes many seconds to get its driver
// ready.
func TestWarmPoolCloseCancelsAStuckStart(t *testing.T) {
	requireEngine(t)
	t.Cleanup(CloseWarm)
	before := ownContainers(t)
	k, _ := New(warmOptions("runc", 125<<20))
	cfg := k.config()
	cfg.CPUs = 0.01
	core, logs := observer.New(zap.DebugLevel)
	cfg.Logger = zap.New(core)
	warm.fillLater(cfg, 1, 0)
	var started string
	for deadline := time.Now().Add(60 * time.Second); started == ""; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the pool created no container")
		}
		for _, id := range ownContainers(t) {
			if !slices.Contains(before, id) {
				started = id
			}
		}
	}
	CloseWarm()
	if logs.FilterMessage("warm pool: start cancelled").Len() != 1 {
		t.Fatalf("the start was not cancelled: %v", logs.All())
	}
	if exists(t, started) {
		t.Fatalf("the cancelled start left its container %s", started)
	}
	if left := ownContainers(t); len(left) > len(before) {
		t.Fatalf("containers left: %v (before: %v)", left, before)
	}
}

// ownContainers are the IDs of this process's containers, running or not.
func ownContainers(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("docker", "ps", "-aq", "--no-trunc", "--filter", "label="+container.LabelInstance+"="+container.InstanceID()).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(out))
}
