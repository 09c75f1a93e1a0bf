package auto

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	dockerclient "github.com/docker/docker/client"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/internal/proc"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/containerkernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
	"github.com/backyard-ls/backyard-ls/kernel/montykernel"
)

func newAutoWith(t *testing.T, edit func(*contract.Settings)) *Kernel {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a container engine and the test image (scripts/build-test-image.sh)")
	}
	a, err := New(testConfig(edit))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// A cell Monty's time limit stopped is not run again in the container:
// the limit is the cell's, not each backend's.
func TestAutoTimeoutIsNotRunAgain(t *testing.T) {
	a := newAutoWith(t, func(s *contract.Settings) { s.Timeout = 0.5 })
	r := kerneltest.Run(t, a, "while True:\n    pass")
	if r.Status != kernel.StatusTimeout || r.Backend != contract.BackendMonty || r.Routing != nil {
		t.Fatalf("%+v %+v %+v", r, r.Error, r.Routing)
	}
	a.mu.Lock()
	ctr := a.ctr
	a.mu.Unlock()
	if ctr != nil {
		t.Fatal("a container was made for the cell")
	}
}

// A check runs under what is left of the cell's time limit: a cell that
// spent most of it on Monty before it raised cannot spend it again in the
// container, which stops it at the cell's own limit.
func TestAutoCheckGetsWhatIsLeft(t *testing.T) {
	a := newAutoWith(t, func(s *contract.Settings) { s.Timeout = 3 })
	kerneltest.Run(t, a, "import time")
	r := kerneltest.Run(t, a, "time.sleep(2)\nraise ValueError('late')")
	if r.Status != kernel.StatusError || r.Backend != contract.BackendMonty || r.Routing == nil || r.Routing.Check != contract.CheckUnconfirmed ||
		!strings.Contains(r.Routing.Note, "cell exceeded the 3s time limit") {
		t.Fatalf("%+v %+v %+v", r, r.Error, r.Routing)
	}
}

// A cell that Monty stopped at its memory limit left nothing in the
// namespace, so a move does not replay it (in CPython it would run out of
// memory, and every later cell would fail replaying it).
func TestAutoMoveSkipsCellsMontyStopped(t *testing.T) {
	a := newAutoWith(t, func(s *contract.Settings) { s.Memory = 64 })
	kerneltest.Run(t, a, "kept = 1")
	r := kerneltest.Run(t, a, "big = 'x' * 100_000_000")
	if r.Status != kernel.StatusError || r.Error.EName != "MemoryError" || !r.Restored || r.Routing != nil {
		t.Fatalf("%+v %+v %+v", r, r.Error, r.Routing)
	}
	for i := 0; i < 2; i++ {
		r = kerneltest.Run(t, a, "import numpy\nkept, 'big' in globals()")
		if r.Status != kernel.StatusOK || r.Backend != contract.BackendContainer || r.Value == nil || r.Value.Text != "(1, False)" {
			t.Fatalf("%+v %+v", r, r.Error)
		}
	}
}

// A journal cell that dies when a container following Monty replays it
// (here it does what Monty could not: CPython has bytearray) is dropped:
// the move happens without it, the result says so, and no later cell
// replays it.
func TestAutoReplayThatDiesIsDropped(t *testing.T) {
	a := newAutoWith(t, nil)
	if r := kerneltest.Run(t, a, "raise ValueError('x')"); r.Routing == nil || r.Routing.Check != contract.CheckConfirmed {
		t.Fatalf("%+v", r.Routing) // the container follows from now on
	}
	kerneltest.Run(t, a, "kept = 1")
	r := kerneltest.Run(t, a, "try:\n    bytearray\nexcept NameError:\n    pass\nelse:\n    import os\n    os._exit(3)\nlost = 2")
	if r.Status != kernel.StatusOK || r.Backend != contract.BackendMonty {
		t.Fatalf("%+v %+v %+v", r, r.Error, r.Routing)
	}
	r = kerneltest.Run(t, a, "import numpy\nkept, 'lost' in globals()")
	if r.Status != kernel.StatusOK || r.Backend != contract.BackendContainer || r.Value == nil || r.Value.Text != "(1, False)" ||
		len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "could not be rebuilt in the container") || !strings.Contains(r.Notes[0], "exited with code 3") {
		t.Fatalf("%+v %+v %q", r, r.Error, r.Notes)
	}
	if r := kerneltest.Run(t, a, "kept"); r.Status != kernel.StatusOK || len(r.Notes) != 0 {
		t.Fatalf("%+v %q", r, r.Notes)
	}
}

// montyWorkers are this process's Monty worker processes.
func montyWorkers(t *testing.T) []int {
	t.Helper()
	var out []int
	for _, pid := range proc.Children(os.Getpid()) {
		if exe, _ := os.Readlink(filepath.Join("/proc", strconv.Itoa(pid), "exe")); filepath.Base(exe) == "monty" {
			out = append(out, pid)
		}
	}
	return out
}

// killed is the crash a SIGKILL from outside gives, on every backend.
const killed = "the kernel was killed by signal SIGKILL; the next run starts a fresh kernel"

// A death is a crashed result at once, in the same words on every
// backend, and auto does not run the cell again elsewhere; a death
// between cells is the next run's "state lost".
func TestDeathsReadTheSameOnEveryBackend(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine")
	}
	kill := map[string]func(t *testing.T, k kernel.Kernel){
		"monty": func(t *testing.T, _ kernel.Kernel) {
			for _, pid := range montyWorkers(t) {
				if p, err := os.FindProcess(pid); err == nil {
					p.Kill()
				}
			}
		},
		"container": func(t *testing.T, k kernel.Kernel) {
			cli, err := dockerclient.NewClientWithOpts(dockerclient.FromEnv, dockerclient.WithAPIVersionNegotiation())
			if err != nil {
				t.Fatal(err)
			}
			defer cli.Close()
			if err := cli.ContainerKill(context.Background(), k.(*containerkernel.Kernel).ContainerID(), "SIGKILL"); err != nil {
				t.Error(err)
			}
		},
	}
	backends := []struct {
		name, dies string
		make       func(cfg kernel.Config) (kernel.Kernel, error)
	}{
		{"monty", "monty", func(cfg kernel.Config) (kernel.Kernel, error) { return montykernel.New(montykernel.OptionsOf(cfg)) }},
		{"auto", "monty", func(cfg kernel.Config) (kernel.Kernel, error) { return New(cfg) }},
		{"runc", "container", func(cfg kernel.Config) (kernel.Kernel, error) {
			o := containerkernel.OptionsOf(cfg)
			o.Container.Runtime = contract.RuntimeRunc
			return containerkernel.New(o)
		}},
		{"runsc", "container", func(cfg kernel.Config) (kernel.Kernel, error) {
			o := containerkernel.OptionsOf(cfg)
			o.Container.Runtime = contract.RuntimeRunsc
			return containerkernel.New(o)
		}},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			cfg := testConfig(nil)
			dead := make(chan struct{}, 16)
			cfg.OnState = func(s kernel.State) {
				if s == kernel.StateDead {
					dead <- struct{}{}
				}
			}
			k, err := b.make(cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer k.Close()
			kerneltest.Run(t, k, "lost = 1")
			// Killed during a cell.
			res := make(chan kernel.Result, 1)
			ready := make(chan struct{})
			go func() {
				r, err := k.Execute(context.Background(), kernel.Request{Code: "print('ready')\nwhile True:\n    pass", OnOutput: func(_ kernel.Stream, text string) {
					if strings.Contains(text, "ready") {
						close(ready)
					}
				}})
				if err != nil {
					t.Error(err)
				}
				res <- r
			}()
			<-ready
			kill[b.dies](t, k)
			r := <-res
			if r.Status != kernel.StatusCrashed || r.Error.EName != "KernelCrashed" || r.Error.EValue != killed || r.Routing != nil {
				t.Fatalf("%+v %+v %+v", r, r.Error, r.Routing)
			}
			// Killed between cells.
			kerneltest.Run(t, k, "lost = 1")
			for len(dead) > 0 {
				<-dead
			}
			kill[b.dies](t, k)
			select {
			case <-dead: // noticed at once
			case <-time.After(time.Minute):
				t.Fatal("the death between cells was not noticed")
			}
			r = kerneltest.Run(t, k, "lost")
			if r.Status != kernel.StatusCrashed || r.ExecutionCount != 0 || r.Routing != nil ||
				r.Error.EValue != "the kernel died while idle: state lost (the kernel was killed by signal SIGKILL); the cell did not run, the next run starts a fresh kernel" {
				t.Fatalf("%+v %+v %+v", r, r.Error, r.Routing)
			}
		})
	}
}

// A move carries Monty's values into the container: a drawn number, a
// hash (which CPython computes otherwise), a dataclass instance, a
// datetime keep their values; a function is rebuilt by its cell; the cell
// that drew is run again only for the module it bound, and says so.
func TestAutoMoveCarriesValues(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine and the test image (scripts/build-test-image.sh)")
	}
	core, logs := observer.New(zap.InfoLevel)
	cfg := testConfig(func(s *contract.Settings) { s.Prewarm = false })
	cfg.Logger = zap.New(core)
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	drawn := kerneltest.Run(t, a, "import random\nr = random.random()\nr").Value.Text
	h := kerneltest.Run(t, a, "h = hash('abc')\nh").Value.Text
	for _, code := range []string{
		"from dataclasses import dataclass\n@dataclass\nclass P:\n    x: int\n    y: float",
		"p = P(1, 2.5)\nimport datetime\nwhen = datetime.datetime(2024, 1, 2, 3, 4, 5)\nblob = {'k': (1, b'\\x00', None), 2: [1.5, 'é']}",
		"def double(v):\n    return v * 2",
	} {
		if r := kerneltest.Run(t, a, code); r.Status != kernel.StatusOK || r.Backend != contract.BackendMonty {
			t.Fatalf("%q: %+v %+v %+v", code, r, r.Error, r.Routing)
		}
	}
	a.mu.Lock()
	started := a.started
	a.mu.Unlock()
	if started {
		t.Fatal("a container runs beside Monty already: the move would not carry")
	}
	r := kerneltest.Run(t, a, "import numpy\n(repr(r), h, p, when.year, blob, double(3))")
	// Past 79 columns, one item a line (IPython's pretty printer).
	want := "('" + drawn + "',\n " + h + ",\n P(x=1, y=2.5),\n 2024,\n {'k': (1, b'\\x00', None), 2: [1.5, 'é']},\n 6)"
	if r.Status != kernel.StatusOK || r.Backend != contract.BackendContainer || r.Value == nil || r.Value.Text != want {
		t.Fatalf("%+v %+v\n got %v\nwant %s", r, r.Error, r.Value, want)
	}
	if len(r.Notes) != 1 || r.Notes[0] != "random rebuilt in the container by running their cell again, which reads random values anew: they may differ from Monty's" {
		t.Fatalf("%q", r.Notes)
	}
	if failed := logs.FilterMessageSnippet("carrying values into the container failed").All(); len(failed) > 0 {
		t.Fatalf("the values were not carried: %v", failed[0].ContextMap())
	}
}

// A move carries Monty's namespace as one object graph: names bound to one
// object, an object that holds itself, Out[N] and the name bound to its
// value are one object in the container too, as in CPython, on both
// runtimes; mutating it through one name shows through the others. P's
// instances cross after the cell that defines P is run again, and f,
// which cannot cross, is rebuilt by running its cell again.
func TestAutoMoveKeepsIdentity(t *testing.T) {
	for _, rt := range []contract.Runtime{contract.RuntimeRunc, contract.RuntimeRunsc} {
		t.Run(string(rt), func(t *testing.T) {
			if testing.Short() {
				t.Skip("needs a container engine and the test image (scripts/build-test-image.sh)")
			}
			core, logs := observer.New(zap.InfoLevel)
			cfg := testConfig(func(s *contract.Settings) { s.Prewarm, s.Timeout, s.Container.Runtime = false, 60, rt })
			cfg.Logger = zap.New(core)
			a, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { a.Close() })
			for _, code := range []string{
				"a = b = [1]\nd = {'k': a}\nloop = [0]\nloop.append(loop)\nt = ([],)\nt[0].append(t)\ns = 'a str'\ns2 = s",
				"from dataclasses import dataclass\n@dataclass\nclass P:\n    x: object = None\np = P()\np.x = p\nq = [p, a]",
				"x = [3, 4]\nx",
				"def f():\n    return a",
			} {
				if r := kerneltest.Run(t, a, code); r.Status != kernel.StatusOK || r.Backend != contract.BackendMonty {
					t.Fatalf("%q on %s: %+v %+v", code, r.Backend, r.Error, r.Routing)
				}
			}
			r := kerneltest.Run(t, a, "import numpy\nb.append(2)\n(a, a is b, d['k'] is a, loop[1] is loop, t[0][0] is t, s is s2,\n p.x is p, q[0] is p, q[1] is a, Out[3] is x, _3 is x, f() is a)")
			if r.Backend != contract.BackendContainer || r.Routing == nil || !r.Routing.Moved {
				t.Fatalf("not moved: %s %+v %+v", r.Backend, r.Routing, r.Error)
			}
			if want := "([1, 2], True, True, True, True, True, True, True, True, True, True, True)"; valueText(r) != want {
				t.Errorf("got  %s %+v\nwant %s", valueText(r), r.Error, want)
			}
			if failed := logs.FilterMessageSnippet("carrying values into the container failed").All(); len(failed) > 0 {
				t.Fatalf("the values were not carried: %v", failed[0].ContextMap())
			}
		})
	}
}

// A container that runs beside Monty (started for a check) follows the
// journal by replaying it; a cell that drew has its values carried after
// its replay, so a later move sees what Monty drew.
func TestAutoFollowingContainerKeepsDrawnValues(t *testing.T) {
	a := newAutoWith(t, nil)
	if r := kerneltest.Run(t, a, "raise ValueError('x')"); r.Routing == nil || r.Routing.Check != contract.CheckConfirmed {
		t.Fatalf("%+v", r.Routing) // the container runs from now on
	}
	drawn := kerneltest.Run(t, a, "import random\nr = random.random()\nr").Value.Text
	stamp := kerneltest.Run(t, a, "import time\nstarted = time.time()\nstarted").Value.Text
	r := kerneltest.Run(t, a, "import numpy\nrepr(r), repr(started)")
	if r.Status != kernel.StatusOK || r.Backend != contract.BackendContainer || r.Value == nil || r.Value.Text != "('"+drawn+"', '"+stamp+"')" {
		t.Fatalf("%+v %+v %v, want %s and %s", r, r.Error, r.Value, drawn, stamp)
	}
}

// A cell that wrote files is run again when a move carries values: the
// files it wrote (in Monty's overlay) are in the container's too.
func TestAutoMoveRewritesFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine and the test image (scripts/build-test-image.sh)")
	}
	cfg := testConfig(func(s *contract.Settings) { s.Prewarm = false })
	cfg.Workspace = t.TempDir()
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if r := kerneltest.Run(t, a, "with open('out.txt', 'w') as f:\n    f.write('hi')\nsize = 2"); r.Status != kernel.StatusOK || r.Backend != contract.BackendMonty {
		t.Fatalf("%+v %+v", r, r.Error)
	}
	r := kerneltest.Run(t, a, "import numpy\nopen('out.txt').read(), size")
	if r.Status != kernel.StatusOK || r.Backend != contract.BackendContainer || r.Value == nil || r.Value.Text != "('hi', 2)" {
		t.Fatalf("%+v %+v %v", r, r.Error, r.Value)
	}
}
