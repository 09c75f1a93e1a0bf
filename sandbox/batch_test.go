package sandbox

import (
	"context"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

func requireEngine(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a container engine (-short)")
	}
	r := container.Probe(context.Background(), container.Config{ContainerSettings: contract.ContainerSettings{Image: containertest.Image()}})
	if !r.Reachable || r.ImageID == "" {
		t.Fatalf("engine or test image missing: %v", r.Err)
	}
}

func seq(snippets ...kernel.Snippet) func(func(kernel.Snippet) bool) {
	return slices.Values(snippets)
}

// collect runs a batch and returns its results by index, failing on an
// index reported twice or never.
func collect(t *testing.T, sb *Sandbox, ctx context.Context, opts BatchOptions, snippets ...kernel.Snippet) []kernel.Result {
	t.Helper()
	got := make([]*kernel.Result, len(snippets))
	opts.OnResult = func(i int, r kernel.Result) {
		if got[i] != nil {
			t.Errorf("snippet %d reported twice", i)
		}
		got[i] = &r
	}
	if err := sb.Batch(ctx, seq(snippets...), opts); err != nil {
		t.Fatal(err)
	}
	out := make([]kernel.Result, len(snippets))
	for i, r := range got {
		if r == nil {
			t.Fatalf("snippet %d got no result", i)
		}
		out[i] = *r
	}
	return out
}

func containerSandbox(t *testing.T, backend contract.Backend, runtime contract.Runtime) *Sandbox {
	t.Helper()
	requireEngine(t)
	sb, err := New(Options{Backend: backend, Limits: kernel.Limits{Timeout: 10 * time.Second},
		Container: contract.ContainerSettings{Image: containertest.Image(), Runtime: runtime, Network: contract.NetworkNone}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

// The container backend: numpy preloaded, files and inputs, a crash that
// harms no other snippet, on runc and runsc.
func TestBatchContainer(t *testing.T) {
	for _, rt := range []contract.Runtime{contract.RuntimeRunc, contract.RuntimeRunsc} {
		t.Run(string(rt), func(t *testing.T) {
			sb := containerSandbox(t, contract.BackendContainer, rt)
			var snippets []kernel.Snippet
			for i := range 6 {
				snippets = append(snippets, kernel.Snippet{Code: "import numpy as np; print(np.arange(" + string(rune('4'+i)) + ").sum())"})
			}
			snippets = append(snippets,
				kernel.Snippet{Code: "import os\nos._exit(9)"},
				kernel.Snippet{Code: "open('in.txt').read() + input()", Files: map[string]string{"in.txt": "a"}, Inputs: []string{"b"}},
				kernel.Snippet{Code: "import time\ntime.sleep(30)", Timeout: 300 * time.Millisecond},
			)
			res := collect(t, sb, context.Background(), BatchOptions{Parallelism: 2, Preload: []string{"numpy"}}, snippets...)
			for i := range 6 {
				n := 4 + i
				if r := res[i]; r.Status != kernel.StatusOK || r.Stdout != strconv.Itoa(n*(n-1)/2)+"\n" || r.Runtime != string(rt) || r.Backend != contract.BackendContainer {
					t.Fatalf("%d: %+v", i, r)
				}
			}
			if r := res[6]; r.Status != kernel.StatusCrashed {
				t.Fatalf("%+v", r)
			}
			if r := res[7]; r.Status != kernel.StatusOK || r.Value.Text != "'ab'" {
				t.Fatalf("%+v %+v", r, r.Error)
			}
			if r := res[8]; r.Status != kernel.StatusTimeout {
				t.Fatalf("%+v", r)
			}
		})
	}
}

// Auto sends each snippet where the editors' auto kernel would run it: to
// Monty unless it imports what Monty lacks, has files or inputs, or fails
// on Monty for want of something; an exception Monty raised is shown once
// CPython raised it too.
func TestBatchAutoRoutes(t *testing.T) {
	sb := containerSandbox(t, contract.BackendAuto, contract.RuntimeRunc)
	res := collect(t, sb, context.Background(), BatchOptions{},
		kernel.Snippet{Code: "sum(range(4))"},
		kernel.Snippet{Code: "import numpy as np\nint(np.arange(4).sum())"},
		kernel.Snippet{Code: "input()", Inputs: []string{"typed"}},
		kernel.Snippet{Code: "bytearray(b'ab')"},
		kernel.Snippet{Code: "1/0"},
	)
	want := []struct {
		backend contract.Backend
		text    string
	}{{contract.BackendMonty, "6"}, {contract.BackendContainer, "6"}, {contract.BackendContainer, "'typed'"}, {contract.BackendContainer, "bytearray(b'ab')"}}
	for i, w := range want {
		if r := res[i]; r.Status != kernel.StatusOK || r.Backend != w.backend || r.Value.Text != w.text {
			t.Fatalf("%d: %+v %+v", i, r, r.Error)
		}
	}
	if r := res[4]; r.Backend != contract.BackendMonty || r.Error.EName != "ZeroDivisionError" || r.Routing == nil || r.Routing.Check != contract.CheckConfirmed {
		t.Fatalf("an ordinary error stays a result on Monty: %+v", r)
	}
}

// Files and inputs need a container: on Monty alone they are an error
// result that says so.
func TestBatchMontyRefusesFiles(t *testing.T) {
	sb, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	res := collect(t, sb, context.Background(), BatchOptions{}, kernel.Snippet{Code: "1", Files: map[string]string{"a": "b"}}, kernel.Snippet{Code: "2"})
	if res[0].Status != kernel.StatusError || !strings.Contains(res[0].Error.EValue, "needs the container backend") || res[1].Value.Text != "2" {
		t.Fatalf("%+v %+v", res[0].Error, res[1])
	}
}

// Results stream as snippets end: a slow snippet does not hold up the
// ones after it.
func TestBatchStreamsResults(t *testing.T) {
	sb, err := New(Options{Limits: kernel.Limits{Timeout: 5 * time.Second}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	var mu sync.Mutex
	var order []int
	snippets := []kernel.Snippet{{Code: "import time\ntime.sleep(0.5)\n'slow'"}}
	for range 20 {
		snippets = append(snippets, kernel.Snippet{Code: "1"})
	}
	err = sb.Batch(context.Background(), seq(snippets...), BatchOptions{Parallelism: 2, OnResult: func(i int, r kernel.Result) {
		mu.Lock()
		order = append(order, i)
		mu.Unlock()
	}})
	if err != nil || len(order) != len(snippets) {
		t.Fatalf("%v %v", err, order)
	}
	if order[len(order)-1] != 0 {
		t.Fatalf("the slow snippet should end last: %v", order)
	}
}

// Cancelling a batch stops it: every snippet taken gets a result (the
// running ones interrupted), no more are taken, and no container is left.
func TestBatchCancelLeavesNothing(t *testing.T) {
	sb := containerSandbox(t, contract.BackendAuto, contract.RuntimeRunc)
	ctx, cancel := context.WithCancel(context.Background())
	taken := 0
	snippets := func(yield func(kernel.Snippet) bool) {
		for i := 0; ; i++ {
			code := "while True: pass"
			if i%2 == 1 {
				code = "import numpy\nwhile True: pass"
			}
			taken++
			if !yield(kernel.Snippet{Code: code}) {
				return
			}
		}
	}
	results := map[int]kernel.Result{}
	var mu sync.Mutex
	time.AfterFunc(3*time.Second, cancel)
	err := sb.Batch(ctx, snippets, BatchOptions{Parallelism: 2, OnResult: func(i int, r kernel.Result) {
		mu.Lock()
		results[i] = r
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != taken {
		t.Fatalf("%d snippets taken, %d results", taken, len(results))
	}
	for i, r := range results {
		if r.Status != kernel.StatusInterrupted {
			t.Fatalf("%d: %+v", i, r)
		}
	}
	out, _ := exec.Command("docker", "ps", "-aq", "--filter", "label="+container.LabelInstance+"="+container.InstanceID()).Output()
	if ids := strings.Fields(string(out)); len(ids) > 0 {
		t.Fatalf("containers left: %v", ids)
	}
}

// An auto batch runs a snippet its router gives shims on Monty, with the
// shims' helpers (as the auto kernel's Monty session has them), %time's
// included: CPython's answer without a container.
func TestBatchAutoRunsShimsOnMonty(t *testing.T) {
	sb := containerSandbox(t, contract.BackendAuto, contract.RuntimeRunc)
	res := collect(t, sb, context.Background(), BatchOptions{Parallelism: 1},
		kernel.Snippet{Code: "round(2.675, 2)"}, kernel.Snippet{Code: "import sys\nsys.stdout.write('a')"}, kernel.Snippet{Code: "%time round(2.675, 2)"})
	for i, want := range []string{"2.67", "1", "2.67"} {
		if r := res[i]; r.Status != kernel.StatusOK || r.Backend != contract.BackendMonty || r.Routing != nil || r.Value == nil || r.Value.Text != want {
			t.Errorf("%d: %+v %+v %+v", i, r, r.Error, r.Routing)
		}
	}
}
