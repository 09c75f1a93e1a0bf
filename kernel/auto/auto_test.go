package auto

import (
	"context"
	"strings"
	"testing"
	"time"

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

// The issue's notebook: Monty first, numpy moves the document with its
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
// cell is wrong) moves after the fact; what Monty streamed before it
// raised is not streamed again.
func TestAutoMovesOnUnsupportedError(t *testing.T) {
	a := newAuto(t)
	kerneltest.Run(t, a, "x = 5")
	var streamed strings.Builder
	r, err := a.Execute(context.Background(), kernel.Request{Code: "import os\nprint(\"before\")\nos.getpid() > 0", OnOutput: func(_ kernel.Stream, s string) { streamed.WriteString(s) }})
	if err != nil || r.Backend != contract.BackendContainer || r.Status != kernel.StatusOK || r.Stdout != "before\n" {
		t.Fatalf("%+v %v %+v", r, err, r.Error)
	}
	if streamed.String() != "before\n" {
		t.Fatalf("streamed %q", streamed.String())
	}
	if g := r.Routing; g == nil || g.Rule != "error:AttributeError" || !g.Moved || g.Check != contract.CheckDiffers || g.MontyError == nil || !strings.Contains(g.MontyError.EValue, "getpid") {
		t.Fatalf("routing %+v", r.Routing)
	}
	if r := kerneltest.Run(t, a, "x"); r.Value.Text != "5" {
		t.Fatalf("%+v", r)
	}
}

// The messages issue 13 names: each is a Monty gap, and the cell shows
// what CPython shows.
func TestAutoIssueMessages(t *testing.T) {
	cases := []struct {
		name, code       string
		stdout, stderr   string
		value            string
		backend          contract.Backend
		rule, montyError string
	}{
		{name: "bit_length", code: "(5).bit_length(), (255).bit_length()", value: "(3, 8)", backend: contract.BackendContainer, rule: "error:AttributeError", montyError: "'int' object has no attribute 'bit_length'"},
		// A shim: the cell stays on Monty.
		{name: "sys.stdout.write", code: "import sys\nsys.stdout.write('written\\n')", stdout: "written\n", value: "8", backend: contract.BackendMonty},
		{name: "sys.stderr.write", code: "import sys\nsys.stderr.write('to stderr\\n');", stderr: "to stderr\n", backend: contract.BackendMonty},
		{name: "re.sub callable", code: "import re\nre.sub(r'\\d+', lambda m: str(int(m.group()) * 2), 'a1 b20')", value: "'a2 b40'", backend: contract.BackendContainer, rule: "error:TypeError", montyError: "callable replacement is not yet supported in re.sub()"},
		// Silent differences: Monty runs these without an error.
		{name: "asyncio order", code: "import asyncio\nout = []\nasync def w(n, d):\n    await asyncio.sleep(d)\n    out.append(n)\nawait asyncio.gather(w('a', 0.03), w('b', 0.01), w('c', 0.02))\nout", value: "['b', 'c', 'a']", backend: contract.BackendContainer, rule: "construct:asyncio-concurrency"},
		{name: "round", code: "round(2.675, 2), round(0.125, 2), f'{round(1.005, 2)}'", value: "(2.67, 0.12, '1.0')", backend: contract.BackendMonty},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := newAuto(t)
			r := kerneltest.Run(t, a, c.code)
			if r.Backend != c.backend || r.Stdout != c.stdout || r.Stderr != c.stderr || valueText(r) != c.value {
				t.Fatalf("%+v %+v %+v", r, r.Error, r.Routing)
			}
			if c.rule == "" {
				if r.Routing != nil || r.Status != kernel.StatusOK {
					t.Fatalf("routing %+v %+v", r.Routing, r.Error)
				}
				return
			}
			if r.Routing == nil || r.Routing.Rule != c.rule || !r.Routing.Moved {
				t.Fatalf("routing %+v", r.Routing)
			}
			if c.montyError != "" && (r.Routing.MontyError == nil || r.Routing.MontyError.EValue != c.montyError) {
				t.Fatalf("Monty's error %+v", r.Routing.MontyError)
			}
		})
	}
}

// Monty's deep repr: CPython refuses it with RecursionError, and so does
// the cell.
func TestAutoDeepNestingRaisesAsInCPython(t *testing.T) {
	a := newAuto(t)
	r := kerneltest.Run(t, a, "x = []\nfor _ in range(100000):\n    x = [x]\nrepr(x)")
	if r.Status != kernel.StatusError || r.Error.EName != "RecursionError" || r.Routing == nil || r.Routing.Rule != "value:deep-nesting" {
		t.Fatalf("%+v %+v %+v", r, r.Error, r.Routing)
	}
}

// An error CPython raises too is shown from Monty, confirmed; one whose
// message differs shows CPython's message and the document stays on Monty.
func TestAutoConfirmsErrors(t *testing.T) {
	a := newAuto(t)
	r := kerneltest.Run(t, a, "raise ValueError('bad input')")
	if r.Backend != contract.BackendMonty || r.Error.EValue != "bad input" || r.Routing == nil || r.Routing.Check != contract.CheckConfirmed || r.Routing.Rule != "error:ValueError" {
		t.Fatalf("%+v %+v", r.Error, r.Routing)
	}
	r = kerneltest.Run(t, a, "def split(total, people):\n    return total // people\nsplit(100, 0)")
	if r.Error.EValue != "integer division or modulo by zero" || r.Routing.Check != contract.CheckMessage || r.Routing.MontyError.EValue != "division by zero" {
		t.Fatalf("%+v %+v", r.Error, r.Routing)
	}
	if r := kerneltest.Run(t, a, "split(100, 3)"); r.Backend != contract.BackendMonty || r.Value.Text != "33" {
		t.Fatalf("the document stays on Monty: %+v", r)
	}
	// A NameError for a name no cell mentioned is CPython's for sure.
	if r := kerneltest.Run(t, a, "totl"); r.Error.EName != "NameError" || r.Routing != nil {
		t.Fatalf("%+v %+v", r.Error, r.Routing)
	}
	info := a.Info()
	if info.Backend != contract.BackendMonty || len(info.Cells) != 4 || info.Cells[0].Check != contract.CheckConfirmed || info.Cells[1].Backend != contract.BackendContainer || info.Cells[2].Backend != contract.BackendMonty {
		t.Fatalf("%+v", info)
	}
}

// Issue 13, item 3: what a cell assigned before it raised on Monty is in
// the container after the move, whether the error was CPython's too (the
// journal replays the cell) or the cell itself moved the document.
func TestAutoMoveKeepsAssignmentsBeforeAnError(t *testing.T) {
	a := newAuto(t)
	if r := kerneltest.Run(t, a, "rate = 3\nratio = 1 / 0"); r.Error.EName != "ZeroDivisionError" || r.Backend != contract.BackendMonty {
		t.Fatalf("%+v %+v", r, r.Error)
	}
	if r := kerneltest.Run(t, a, "prices = [10, 20]\nbits = (rate).bit_length()\nbits"); r.Backend != contract.BackendContainer || r.Value.Text != "2" {
		t.Fatalf("%+v %+v", r, r.Error)
	}
	if r := kerneltest.Run(t, a, "[p * rate for p in prices]"); r.Backend != contract.BackendContainer || r.Value.Text != "[30, 60]" {
		t.Fatalf("%+v %+v", r, r.Error)
	}
	info := a.Info()
	if info.Rule != "error:AttributeError" || !strings.Contains(info.Reason, "bit_length") || info.Cells[2].Rule != "moved" {
		t.Fatalf("%+v", info)
	}
}

// A set's order: Monty iterates sets in insertion order, CPython in hash
// order. Cells that only use the set stay on Monty; the first one whose
// output shows the order moves, with CPython's order.
func TestAutoSetOrder(t *testing.T) {
	a := newAuto(t)
	for _, c := range []struct{ code, value string }{{"s = {3, 1, 2}\nlen(s)", "3"}, {"sorted(s)", "[1, 2, 3]"}} {
		if r := kerneltest.Run(t, a, c.code); r.Backend != contract.BackendMonty || r.Value.Text != c.value || r.Routing.Check != contract.CheckConfirmed {
			t.Fatalf("%q: %+v %+v", c.code, r, r.Routing)
		}
	}
	if r := kerneltest.Run(t, a, "print(list(s))"); r.Backend != contract.BackendContainer || r.Stdout != "[1, 2, 3]\n" || r.Routing.Rule != "value:set-order" {
		t.Fatalf("%+v %+v", r, r.Routing)
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
	if r.Status != kernel.StatusError || !r.Unavailable || r.Error.EName != "BackendUnavailable" || !strings.Contains(r.Error.EValue, "numpy") {
		t.Fatalf("%+v %+v", r, r.Error)
	}
	if r := kerneltest.Run(t, a, "x + 1"); r.Backend != contract.BackendMonty || r.Value.Text != "2" {
		t.Fatalf("%+v", r)
	}
	// Monty's errors and limits are shown unconfirmed; the first says that
	// CPython was not asked, the others say no more.
	for i, code := range []string{"x / 0", "(x).bit_length()", "def f(n):\n    return f(n + 1)\nf(0)"} {
		r := kerneltest.Run(t, a, code)
		if r.Status != kernel.StatusError || r.Backend != contract.BackendMonty || r.Routing == nil || r.Routing.Check != contract.CheckUnconfirmed ||
			(i == 0) != strings.Contains(r.Routing.Note, "could not be compared") || i > 0 && r.Routing.Note != "" {
			t.Fatalf("%q: %+v %+v", code, r.Error, r.Routing)
		}
	}
}

// Offline, a container start that failed to pull its image is said once,
// under the first cell that wanted a check; the next such cells show
// Monty's result without a note and without waiting for another pull. A
// cell that needs the container says why it cannot run, every time.
// Restart, like a new kernel, says it again.
func TestAutoNoContainerIsSaidOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine")
	}
	const image = "registry.invalid/backyard-ls/missing:1" // .invalid never resolves
	a, err := New(testConfig(func(s *contract.Settings) { s.Container.Image = image }))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for round := range 2 {
		kerneltest.Run(t, a, "x = 1")
		r := kerneltest.Run(t, a, "x / 0")
		if r.Error == nil || r.Error.EName != "ZeroDivisionError" || r.Routing == nil || r.Routing.Check != contract.CheckUnconfirmed ||
			!strings.Contains(r.Routing.Note, "could not be compared") || !strings.Contains(r.Routing.Note, "pull "+image) {
			t.Fatalf("round %d, first check: %+v %+v", round, r.Error, r.Routing)
		}
		for _, code := range []string{"{}['k']", "int('x')"} {
			r := kerneltest.Run(t, a, code)
			if r.Status != kernel.StatusError || r.Backend != contract.BackendMonty || r.Routing == nil || r.Routing.Check != contract.CheckUnconfirmed || r.Routing.Note != "" {
				t.Fatalf("round %d, %q: %+v %+v", round, code, r.Error, r.Routing)
			}
		}
		r = kerneltest.Run(t, a, "import numpy")
		if !r.Unavailable || r.Error.EName != "BackendUnavailable" || !strings.Contains(r.Error.EValue, "pull "+image) || !strings.Contains(r.Error.EValue, "not pulled again") {
			t.Fatalf("round %d, a cell that needs the container: %+v", round, r.Error)
		}
		if r := kerneltest.Run(t, a, "x + 1"); r.Backend != contract.BackendMonty || r.Value == nil || r.Value.Text != "2" {
			t.Fatalf("round %d: %+v", round, r)
		}
		if err := a.Restart(context.Background()); err != nil {
			t.Fatal(err)
		}
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

// Restart and Close while the container replays the journal in the
// background: the replayed cell is interrupted and nothing hangs.
func TestAutoRestartAndCloseDuringCatchUp(t *testing.T) {
	for _, op := range []string{"restart", "close"} {
		t.Run(op, func(t *testing.T) {
			a := newAuto(t)
			if r := kerneltest.Run(t, a, "raise ValueError('x')"); r.Routing == nil || r.Routing.Check != contract.CheckConfirmed {
				t.Fatalf("%+v", r.Routing) // the container runs from now on
			}
			kerneltest.Run(t, a, "import time\ntime.sleep(1)\nn = 1")
			a.mu.Lock()
			catching := a.catching
			a.mu.Unlock()
			if !catching {
				t.Fatal("no catch-up after a Monty cell")
			}
			done := make(chan error, 1)
			go func() {
				if op == "restart" {
					done <- a.Restart(context.Background())
				} else {
					done <- a.Close()
				}
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("%s hangs while the container replays", op)
			}
			if op == "restart" {
				if r := kerneltest.Run(t, a, "n"); r.Backend != contract.BackendMonty || r.Error == nil || r.Error.EName != "NameError" {
					t.Fatalf("%+v %+v", r, r.Error)
				}
			}
		})
	}
}

// An interrupt that comes before the backend began the cell still numbers
// it, as Jupyter does: the lens shows [n] ■ interrupted, and the next cell
// is n+1. A canceled context stands for the interrupt; whether Execute
// takes the queue first is the select's coin, so it is tossed many times.
func TestAutoInterruptBeforeTheCellBeginsKeepsItsCount(t *testing.T) {
	a := newAuto(t)
	kerneltest.Run(t, a, "x = 1")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	last, numbered := 1, 0
	for range 40 {
		r, err := a.Execute(ctx, kernel.Request{Code: "x"})
		if err != nil {
			continue // refused before the cell was taken: no number used
		}
		// Every select the cell passes is such a coin too: it may even run.
		interrupted := r.Status == kernel.StatusInterrupted && r.Error != nil && r.Error.EName == "KeyboardInterrupt"
		if !interrupted && r.Status != kernel.StatusOK || r.ExecutionCount != last+1 {
			t.Fatalf("after [%d]: %+v %+v", last, r, r.Error)
		}
		last++
		if interrupted {
			numbered++
		}
	}
	if numbered == 0 {
		t.Fatal("no canceled Execute was interrupted in 40 tries")
	}
	if r := kerneltest.Run(t, a, "x"); r.ExecutionCount != last+1 || r.Value == nil || r.Value.Text != "1" {
		t.Fatalf("after [%d]: %+v %+v", last, r, r.Error)
	}
}
