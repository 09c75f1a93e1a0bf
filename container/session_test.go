package container

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
)

// These tests need a real engine and the local test image; see
// requireEngine.

func testImage() string { return containertest.Image() }

// requireEngine returns the engine, failing the test when it or the test
// image is missing (skipping under -short).
func requireEngine(t testing.TB) *Engine {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a container engine (-short)")
	}
	e, err := Shared(context.Background(), "", nil)
	if err != nil {
		t.Fatalf("%v (run scripts/docker-setup.sh, or pass -short)", err)
	}
	if _, ok, err := e.ImageID(context.Background(), testImage()); err != nil || !ok {
		t.Fatalf("test image %s missing (run scripts/build-test-image.sh): %v", testImage(), err)
	}
	return e
}

func startSession(t testing.TB, e *Engine, cfg Config) *Session {
	t.Helper()
	cfg.Image, cfg.Pull = testImage(), PullNever
	s, err := e.Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestContainerHardeningApplied(t *testing.T) {
	e := requireEngine(t)
	for _, rt := range []string{RuntimeRunc, RuntimeRunsc} {
		t.Run(rt, func(t *testing.T) {
			s := startSession(t, e, Config{ContainerSettings: contract.ContainerSettings{Runtime: contract.Runtime(rt)}})
			ins, err := e.cli.ContainerInspect(context.Background(), s.ID())
			if err != nil {
				t.Fatal(err)
			}
			h := ins.HostConfig
			if string(h.NetworkMode) != "none" || !h.ReadonlyRootfs || h.Runtime != rt || h.PidsLimit == nil || *h.PidsLimit != DefaultPidsLimit ||
				h.Memory != DefaultMemoryBytes || len(h.CapDrop) != 1 || ins.Config.User != DefaultUser || ins.Config.Labels[LabelInstance] != InstanceID() {
				t.Fatalf("%+v %+v", h, ins.Config)
			}
			r, err := s.Exec(context.Background(), ExecRequest{Code: "import subprocess, threading\nsubprocess.run(['echo', 'sub'], check=True)\nprint('after')"}, nil)
			if err != nil || !r.OK {
				t.Fatalf("a subprocess runs under the pids limit: %+v %v", r.Error, err)
			}
		})
	}
}

func TestContainerMissingImageNeverPulled(t *testing.T) {
	e := requireEngine(t)
	_, err := e.Start(context.Background(), Config{ContainerSettings: contract.ContainerSettings{Image: "backyard-ls-test/no-such-image:never"}, Pull: PullNever})
	var missing *ImageMissingError
	if !errors.As(err, &missing) || !strings.Contains(err.Error(), "scripts/build-test-image.sh") {
		t.Fatalf("%v", err)
	}
}

// TestContainerReapOrphans starts a child process that owns a kernel
// container, kills it with SIGKILL (no cleanup runs), and reaps. The child
// labels its container with a host name of this test's own, so that the
// servers other packages' tests start meanwhile (each reaps orphans) leave
// it to this test.
func TestContainerReapOrphans(t *testing.T) {
	e := requireEngine(t)
	host := "reap-test-" + InstanceID()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperOwnContainer$", "-test.count=1")
	cmd.Env = append(os.Environ(), "BACKYARD_HELPER_OWN_CONTAINER="+host)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	id := ""
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "container "); ok {
			id = rest
			break
		}
	}
	if id == "" {
		t.Fatal("the helper did not start a container")
	}
	t.Cleanup(func() { e.Remove(context.Background(), id) })
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if ok, _ := e.ContainerExists(context.Background(), id); !ok {
		t.Fatal("the orphan is already gone: nothing to test")
	}
	if removed, err := e.ReapOrphans(context.Background()); err != nil || contains(removed, id) {
		t.Fatalf("this machine's reaper took another host's container: %v %v", removed, err)
	}
	removed, err := e.reapOrphansOf(context.Background(), host)
	if err != nil {
		t.Fatal(err)
	}
	if !contains(removed, id) {
		t.Fatalf("removed %v, not %s", removed, id)
	}
	if ok, _ := e.ContainerExists(context.Background(), id); ok {
		t.Fatal("orphan still there")
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestHelperOwnContainer is the child of TestContainerReapOrphans.
func TestHelperOwnContainer(t *testing.T) {
	host := os.Getenv("BACKYARD_HELPER_OWN_CONTAINER")
	if host == "" {
		t.Skip("helper process")
	}
	owner[LabelHost] = host
	e := requireEngine(t)
	s := startSession(t, e, Config{ContainerSettings: contract.ContainerSettings{Runtime: contract.RuntimeRunc}})
	fmt.Printf("container %s\n", s.ID())
	time.Sleep(time.Minute)
}

func TestContainerImageWithoutPython(t *testing.T) {
	e := requireEngine(t)
	for _, rt := range []string{RuntimeRunc, RuntimeRunsc} {
		t.Run(rt, func(t *testing.T) {
			_, err := e.Start(context.Background(), Config{ContainerSettings: contract.ContainerSettings{Image: testImage(), Runtime: contract.Runtime(rt)}, Pull: PullNever, Python: "no-such-python3"})
			if err == nil || !strings.Contains(err.Error(), "no-such-python3") && !strings.Contains(err.Error(), "code 127") {
				t.Fatalf("%v", err)
			}
			t.Log(err)
		})
	}
}

// A start whose context ends at any point leaves no container: one created
// after the caller gave up is removed (the engine may finish a create the
// client stopped waiting for). Here starts are cancelled before they begin
// and at growing points through them.
func TestStartCancelledLeavesNoContainer(t *testing.T) {
	e := requireEngine(t)
	if _, err := e.Info(context.Background()); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Pull: PullNever}
	cfg.Image, cfg.Runtime = testImage(), contract.RuntimeRunc
	for i := range 12 {
		ctx, cancel := context.WithCancel(context.Background())
		if i == 0 {
			cancel() // the create is sent anyway, then removed
		} else {
			time.AfterFunc(time.Duration(i)*25*time.Millisecond, cancel)
		}
		s, err := e.Start(ctx, cfg)
		cancel()
		if err == nil {
			s.Close() // it was up before the cancel
		} else if !errors.Is(err, context.Canceled) {
			t.Fatalf("%d: %v", i, err)
		}
		if left := ownContainers(t); len(left) > 0 {
			t.Fatalf("%d: a cancelled start left %v (%v)", i, left, err)
		}
	}
}

// ownContainers are this process's containers, running or not.
func ownContainers(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("docker", "ps", "-aq", "--filter", "label="+LabelInstance+"="+InstanceID()).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(out))
}
