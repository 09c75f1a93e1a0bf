package auto

import (
	"context"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
)

func newAuto(t *testing.T) *Kernel {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a container engine and the test image (scripts/build-test-image.sh)")
	}
	a, err := New(testConfig(func(s *contract.Settings) { s.Timeout = 60 }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// The notebook: Monty first, numpy moves the document with its
// state, later pure-Python cells stay on the container, restart returns to
// Monty.
func TestAutoMovesWithState(t *testing.T) {
	a := newAuto(t)
	steps := []struct {
		code    string
		backend contract.Backend
		value   string
	}{
		{"data = [3, 1, 2]\nscale = 10", contract.BackendMonty, ""},
		{"total = sum(data) * scale\ntotal", contract.BackendMonty, "60"},
		{"1/0", contract.BackendMonty, ""}, // a plain error does not move
		{"import numpy as np\narr = np.array(data) * scale\nint(arr.sum()) == total", contract.BackendContainer, "True"},
		{"sorted(data)", contract.BackendContainer, "[1, 2, 3]"},
	}
	for i, s := range steps {
		r := kerneltest.Run(t, a, s.code)
		if r.Backend != s.backend {
			t.Fatalf("step %d ran on %s, want %s: %+v %+v", i, r.Backend, s.backend, r, r.Error)
		}
		if r.ExecutionCount != i+1 {
			t.Errorf("step %d has execution count %d", i, r.ExecutionCount)
		}
		got := ""
		if r.Value != nil {
			got = r.Value.Text
		}
		if got != s.value {
			t.Fatalf("step %d value %q, want %q (%+v)", i, got, s.value, r.Error)
		}
	}
	info := a.Info()
	if info.Backend != contract.BackendContainer || info.Mode != contract.BackendAuto || !strings.Contains(info.Reason, "numpy") {
		t.Fatalf("%+v", info)
	}
	if err := a.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := kerneltest.Run(t, a, "data")
	if r.Backend != contract.BackendMonty || r.Status != kernel.StatusError || r.Error.EName != "NameError" || r.ExecutionCount != 1 {
		t.Fatalf("after restart: %+v %+v", r, r.Error)
	}
}

func TestAutoMovesConstructsMontyRunsDifferently(t *testing.T) {
	a := newAuto(t)
	if r := kerneltest.Run(t, a, "match (1, 2):\n    case (x, y):\n        print(x + y)"); r.Backend != contract.BackendMonty || r.Stdout != "3\n" {
		t.Fatalf("match runs on Monty %s: %+v", a.caps.Version, r)
	}
	r := kerneltest.Run(t, a, "class Animal:\n    def speak(self):\n        return '...'\nclass Dog(Animal):\n    def speak(self):\n        return 'woof'\nDog().speak()")
	if r.Backend != contract.BackendContainer || r.Value == nil || r.Value.Text != "'woof'" {
		t.Fatalf("class hierarchy: %+v %+v", r, r.Error)
	}
}

// A cell that fails on Monty because Monty lacks something (not because the
// cell is wrong) moves after the fact.
func TestAutoMovesOnUnsupportedError(t *testing.T) {
	a := newAuto(t)
	kerneltest.Run(t, a, "x = 5")
	var streamed strings.Builder
	r, err := a.Execute(context.Background(), kernel.Request{Code: "import os\nprint(\"before\")\nos.getpid() > 0", OnOutput: func(_ kernel.Stream, s string) { streamed.WriteString(s) }})
	if err != nil || r.Backend != contract.BackendContainer || r.Status != kernel.StatusOK {
		t.Fatalf("%+v %v %+v", r, err, r.Error)
	}
	if !strings.Contains(streamed.String(), "running the cell in the container") {
		t.Fatalf("streamed %q", streamed.String())
	}
	if r := kerneltest.Run(t, a, "x"); r.Value.Text != "5" {
		t.Fatalf("%+v", r)
	}
}

func TestAutoPrewarm(t *testing.T) {
	a := newAuto(t)
	if a.Prewarm([]string{"x = 1", "y = 2"}) {
		t.Fatal("a Monty-only document must not start a container")
	}
	if !a.Prewarm([]string{"x = 1", "import numpy"}) {
		t.Fatal("no pre-warm")
	}
	kerneltest.Run(t, a, "x = 1")
	if r := kerneltest.Run(t, a, "import numpy\nx + 1"); r.Backend != contract.BackendContainer || r.Value.Text != "2" {
		t.Fatalf("%+v", r)
	}
}

func TestAutoWithoutEngineStaysOnMonty(t *testing.T) {
	cfg := testConfig(nil)
	cfg.DockerHost = "unix:///nonexistent/docker.sock"
	a, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	kerneltest.Run(t, a, "x = 1")
	r := kerneltest.Run(t, a, "import numpy")
	if r.Status != kernel.StatusError || r.Error.EName != "BackendUnavailable" || !strings.Contains(r.Error.EValue, "numpy") {
		t.Fatalf("%+v %+v", r, r.Error)
	}
	if r := kerneltest.Run(t, a, "x + 1"); r.Backend != contract.BackendMonty || r.Value.Text != "2" {
		t.Fatalf("%+v", r)
	}
}

func TestAutoCrashStartsAFreshCount(t *testing.T) {
	a, err := New(testConfig(func(s *contract.Settings) { s.Memory, s.RecursionLimit = 16, 100_000_000 }))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	kerneltest.Run(t, a, "x = 1")
	if r := kerneltest.Run(t, a, "def f(n):\n    return f(n + 1)\nf(0)"); r.Status != kernel.StatusCrashed || r.ExecutionCount != 2 {
		t.Fatalf("%+v", r)
	}
	if r := kerneltest.Run(t, a, "x"); r.Status != kernel.StatusError || r.ExecutionCount != 1 {
		t.Fatalf("%+v %+v", r, r.Error)
	}
}

// testConfig is the default configuration with the local test image, edited.
func testConfig(edit func(*contract.Settings)) kernel.Config {
	s := contract.DefaultSettings()
	s.Container.Image = containertest.Image()
	if edit != nil {
		edit(&s)
	}
	return kernel.Config{Settings: s}
}
