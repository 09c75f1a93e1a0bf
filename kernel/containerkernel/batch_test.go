package containerkernel

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

func newForkLane(t *testing.T, runtime string, lim kernel.Limits) *ForkLane {
	t.Helper()
	requireEngine(t)
	p := NewForkPool(BatchOptions{Container: contract.ContainerSettings{Image: testImage(), Runtime: contract.Runtime(runtime)}, Limits: lim})
	l := p.Lane()
	t.Cleanup(l.Close)
	return l
}

// A snippet that takes its container down is a crash; the next snippet
// runs on a new container as if nothing happened. Under gVisor a snippet
// can do it: kill the fork server, or fork-bomb (gVisor's own host
// processes spend the pids limit). Under runc the fork server, the
// container's init, cannot be killed from inside and the pids limit stops
// a bomb alone: there the container is killed from outside, between
// snippets.
func TestForkLaneReplacesAStoppedContainer(t *testing.T) {
	kill := "import os, signal\nos.kill(1, signal.SIGKILL)\n'survived'"
	bomb := "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass"
	for _, rt := range runtimes {
		t.Run(rt, func(t *testing.T) {
			l := newForkLane(t, rt, kernel.Limits{Timeout: 5 * time.Second})
			ctx := context.Background()
			id := func() string {
				l.mu.Lock()
				defer l.mu.Unlock()
				if l.f == nil {
					return ""
				}
				return l.f.ID()
			}
			downs := []string{kill, bomb}
			if rt == "runc" {
				if r := l.Run(ctx, kernel.Snippet{Code: kill}); r.Status != kernel.StatusOK || r.Value.Text != "'survived'" {
					t.Fatalf("%+v %+v", r, r.Error)
				}
				downs = []string{""}
			}
			for _, code := range downs {
				if r := l.Run(ctx, kernel.Snippet{Code: "1"}); r.Status != kernel.StatusOK || r.Runtime != rt {
					t.Fatalf("%+v", r)
				}
				before := id()
				if code == "" {
					if out, err := exec.Command("docker", "kill", before).CombinedOutput(); err != nil {
						t.Fatalf("%v %s", err, out)
					}
				} else if r := l.Run(ctx, kernel.Snippet{Code: code}); r.Status != kernel.StatusCrashed || r.Error.EName != "KernelCrashed" ||
					code == kill && r.Error.EValue != killedWords {
					t.Fatalf("%q: %+v %+v", code, r, r.Error)
				} else {
					t.Logf("%q: %s", code, r.Error.EValue)
				}
				after := l.Run(ctx, kernel.Snippet{Code: "sum(range(10))"})
				if after.Status != kernel.StatusOK || after.Value.Text != "45" {
					t.Fatalf("after %q: %+v %+v", code, after, after.Error)
				}
				if id() == before {
					t.Fatal("the stopped container was used again")
				}
			}
		})
	}
}

// Limits come from the pool, a snippet's timeout from the snippet; the
// timeout is worded like a kernel's; output is capped with the marker.
func TestForkLaneLimits(t *testing.T) {
	l := newForkLane(t, "runc", kernel.Limits{Timeout: 10 * time.Second, MemoryBytes: 64 << 20, MaxOutputBytes: 100})
	ctx := context.Background()
	r := l.Run(ctx, kernel.Snippet{Code: "while True: pass", Timeout: 500 * time.Millisecond})
	if r.Status != kernel.StatusTimeout || r.Error.EValue != "cell exceeded the 500ms time limit" {
		t.Fatalf("%+v %+v", r, r.Error)
	}
	r = l.Run(ctx, kernel.Snippet{Code: "print('x' * 1000)"})
	if len(r.Stdout) > 100+60 || !strings.Contains(r.Stdout, "output truncated at 100 bytes") {
		t.Fatalf("%q", r.Stdout)
	}
	r = l.Run(ctx, kernel.Snippet{Code: "b = bytearray(200 << 20)"})
	if r.Status != kernel.StatusError || r.Error.EName != "MemoryError" {
		t.Fatalf("%+v %+v", r, r.Error)
	}
	r = l.Run(ctx, kernel.Snippet{Code: "1", Files: map[string]string{"../escape": ""}})
	if r.Status != kernel.StatusError || r.Error.EName != "BatchInputError" {
		t.Fatalf("%+v", r)
	}
}

// killedWords are a kernel's words for a SIGKILL from outside
// (kcore.Death.Text; auto's TestDeathsReadTheSameOnEveryBackend), without
// its next-run clause: a snippet has none.
const killedWords = "the kernel was killed by signal SIGKILL"

// A snippet whose process dies reads as a kernel's death does: killed by
// a signal, or gone with an exit code.
func TestForkLaneDeathsReadAsKernelDeaths(t *testing.T) {
	for _, rt := range runtimes {
		t.Run(rt, func(t *testing.T) {
			l := newForkLane(t, rt, kernel.Limits{Timeout: 30 * time.Second, MemoryBytes: 256 << 20})
			deaths := map[string]string{
				"import os, signal\nos.kill(os.getpid(), signal.SIGKILL)": killedWords,
				"import os\nos._exit(9)":                                  "the kernel process exited with code 9 (os._exit() or a fatal error of the interpreter)",
			}
			if rt == "runc" { // under gVisor an OOM kill ends the whole container
				deaths[containertest.OOMSnippet] = "the kernel ran out of memory (limit 256 MiB)"
			}
			for code, want := range deaths {
				if r := l.Run(context.Background(), kernel.Snippet{Code: code}); r.Status != kernel.StatusCrashed || r.Error.EName != "KernelCrashed" || r.Error.EValue != want {
					t.Fatalf("%q: %+v %+v", code, r, r.Error)
				}
			}
		})
	}
}
