package container

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
)

// Deaths by the kernel's own signals are known when the container ends: an
// OOM kill from the container's memory cgroup, on this host (the engine's
// flag can come seconds late on a busy machine), and a SIGKILL from
// elsewhere as such.
func TestContainerDeathsFromKernelSignals(t *testing.T) {
	e := requireEngine(t)
	for _, rt := range []string{RuntimeRunc, RuntimeRunsc} {
		t.Run(rt, func(t *testing.T) {
			t.Run("oom", func(t *testing.T) {
				s := startSession(t, e, Config{MemoryBytes: 128 << 20, ContainerSettings: contract.ContainerSettings{Runtime: contract.Runtime(rt)}})
				_, err := s.Exec(context.Background(), ExecRequest{Code: "hog = []\nwhile True:\n    hog.append('x' * 10_000_000)"}, nil)
				if !errors.Is(err, ErrEnded) {
					t.Fatalf("%v", err)
				}
				x := s.Exit(context.Background())
				t.Logf("known %s after the stream ended", x.known)
				if !x.OOMKilled || x.Code != 137 || !strings.Contains(x.Describe(), "ran out of memory (limit 128 MiB)") {
					t.Fatalf("%+v: %s", x, x.Describe())
				}
				if localCgroups() && x.oomFrom != "cgroup" {
					t.Fatalf("the OOM kill was the engine's word, not the cgroup's: %+v", x)
				}
			})
			t.Run("sigkill", func(t *testing.T) {
				s := startSession(t, e, Config{ContainerSettings: contract.ContainerSettings{Runtime: contract.Runtime(rt)}})
				started := make(chan struct{})
				go func() {
					<-started
					if err := e.cli.ContainerKill(context.Background(), s.ID(), "SIGKILL"); err != nil {
						t.Error(err)
					}
				}()
				_, err := s.Exec(context.Background(), ExecRequest{Code: "import time\nprint('sleeping', flush=True)\ntime.sleep(600)"},
					func(_, text string) {
						if strings.Contains(text, "sleeping") {
							close(started)
						}
					})
				if !errors.Is(err, ErrEnded) {
					t.Fatalf("%v", err)
				}
				x := s.Exit(context.Background())
				t.Logf("known %s after the stream ended", x.known)
				if x.OOMKilled || x.Killed || x.Code != 137 || x.Describe() != "the kernel was killed by signal SIGKILL" {
					t.Fatalf("%+v: %s", x, x.Describe())
				}
				if localCgroups() && x.waited {
					t.Fatalf("the exit waited for the engine's word on an OOM kill: %+v", x)
				}
			})
		})
	}
}

// localCgroups: the tests' engine is local, and on Linux its containers'
// cgroups are this host's.
func localCgroups() bool { return runtime.GOOS == "linux" }
