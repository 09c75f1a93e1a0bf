package kernel

import (
	"context"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/monty"
)

func newMonty(t testing.TB, lim Limits) *Monty {
	t.Helper()
	k, err := NewMonty(MontyOptions{Limits: lim})
	if err != nil {
		t.Fatalf("%v (run `make setup`)", err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

func run(t testing.TB, k Kernel, code string) Result {
	t.Helper()
	r, err := k.Execute(context.Background(), Request{Code: code})
	if err != nil {
		t.Fatalf("execute %q: %v", code, err)
	}
	return r
}

func TestStateValuesAndCounts(t *testing.T) {
	k := newMonty(t, Limits{})
	r := run(t, k, "x = 20\ndef double(v):\n    return v * 2")
	if r.Status != StatusOK || r.Value != nil || r.ExecutionCount != 1 || r.Backend != BackendMonty {
		t.Fatalf("%+v", r)
	}
	r = run(t, k, "print('double of', x)\ndouble(x) + 2")
	if r.Status != StatusOK || r.Stdout != "double of 20\n" || r.Value == nil || r.Value.Text != "42" || r.ExecutionCount != 2 {
		t.Fatalf("%+v", r)
	}
	if r := run(t, k, "print('only output')"); r.Value != nil {
		t.Fatalf("print's None must not be displayed: %+v", r.Value)
	}
	if r := run(t, k, "x;"); r.Value != nil {
		t.Fatalf("a trailing semicolon hides the value: %+v", r.Value)
	}
}

// Values are rendered by the interpreter itself, so custom __repr__ and the
// collections types come out as CPython prints them.
func TestValueReprFromInterpreter(t *testing.T) {
	k := newMonty(t, Limits{})
	cases := map[string]string{
		"class R:\n    def __repr__(self):\n        return 'R!'\nR()": "R!",
		"import collections\ncollections.Counter('aab')":              "Counter({'a': 2, 'b': 1})",
		"'quote\\'s'":                     `"quote's"`,
		"[1, 2,\n 3]  # trailing comment": "[1, 2, 3]",
		"a = 1; a + 1":                    "2",
		"None":                            "",
		"{'k': (1, 2.5)}":                 "{'k': (1, 2.5)}",
	}
	for code, want := range cases {
		r := run(t, k, code)
		got := ""
		if r.Value != nil {
			got = r.Value.Text
		}
		if r.Status != StatusOK || got != want {
			t.Errorf("%q: status %s value %q, want %q (%+v)", code, r.Status, got, want, r.Error)
		}
	}
}

func TestErrorWithCellRelativeLines(t *testing.T) {
	k := newMonty(t, Limits{})
	run(t, k, "a = 1\nb = 2")
	r := run(t, k, "def g(n):\n    return 10 / n\n\nv = 1\ng(0)\nv = 2")
	if r.Status != StatusError || r.Error.EName != "ZeroDivisionError" || r.Error.EValue != "division by zero" {
		t.Fatalf("%+v %+v", r, r.Error)
	}
	tb := r.Error.Traceback
	if len(tb) != 2 || tb[0].Line != 5 || tb[0].Text != "g(0)" || tb[1].Line != 2 || tb[1].Name != "g" || tb[1].Text != "return 10 / n" {
		t.Fatalf("%+v", tb)
	}
	// A syntax error in a cell whose last line is an expression still
	// reports the real error (the display rewrite never hides it).
	r = run(t, k, "x = (\n1 +")
	if r.Status != StatusError || r.Error.EName != "SyntaxError" {
		t.Fatalf("%+v", r.Error)
	}
	if r := run(t, k, "v"); r.Value.Text != "1" {
		t.Fatalf("v = %+v", r.Value)
	}
	// A frame in a function defined by an earlier cell has no line in this
	// cell, but keeps its source text.
	r = run(t, k, "\n\ng(0)")
	tb = r.Error.Traceback
	if len(tb) != 2 || tb[0].Line != 3 || tb[1].Line != 0 || tb[1].Text != "return 10 / n" || tb[1].Name != "g" {
		t.Fatalf("%+v", tb)
	}
}

func TestInterruptWhileTrueKeepsState(t *testing.T) {
	k := newMonty(t, Limits{})
	run(t, k, "kept = [1, 2]")
	time.AfterFunc(200*time.Millisecond, func() { k.Interrupt() })
	start := time.Now()
	r := run(t, k, "kept.append(3)\nwhile True:\n    pass")
	if r.Status != StatusInterrupted {
		t.Fatalf("%+v", r)
	}
	if d := time.Since(start); d > time.Second+200*time.Millisecond {
		t.Fatalf("interrupt took %s", d)
	}
	// The namespace is the one from before the interrupted cell.
	if r := run(t, k, "kept"); r.Value == nil || r.Value.Text != "[1, 2]" {
		t.Fatalf("%+v", r)
	}
	if r := run(t, k, "1"); r.ExecutionCount != 4 {
		t.Fatalf("count %d", r.ExecutionCount)
	}
}

func TestInterruptSleepInBand(t *testing.T) {
	k := newMonty(t, Limits{})
	time.AfterFunc(100*time.Millisecond, func() { k.Interrupt() })
	r := run(t, k, "import time\nstep = 1\ntime.sleep(60)\nstep = 2")
	if r.Status != StatusInterrupted || r.Error.EName != "KeyboardInterrupt" {
		t.Fatalf("%+v", r)
	}
	if r := run(t, k, "step"); r.Value.Text != "1" {
		t.Fatalf("%+v", r.Value)
	}
}

func TestCancelContextInterrupts(t *testing.T) {
	k := newMonty(t, Limits{})
	run(t, k, "n = 5")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	r, err := k.Execute(ctx, Request{Code: "while True:\n    n = 6"})
	if err != nil || r.Status != StatusInterrupted {
		t.Fatalf("%+v %v", r, err)
	}
	if r := run(t, k, "n"); r.Value.Text != "5" {
		t.Fatalf("%+v", r.Value)
	}
}

func TestTimeoutRestoresState(t *testing.T) {
	k := newMonty(t, Limits{Timeout: 300 * time.Millisecond})
	run(t, k, "n = 1")
	r := run(t, k, "n = 2\nwhile True:\n    pass")
	if r.Status != StatusTimeout || r.Error == nil || !strings.Contains(r.Error.EValue, "time limit") {
		t.Fatalf("%+v", r)
	}
	if r := run(t, k, "n"); r.Status != StatusOK || r.Value.Text != "1" {
		t.Fatalf("%+v", r)
	}
	// A sleep does not burn Monty's CPU budget; the host limit stops it.
	r = run(t, k, "import time\ntime.sleep(5)")
	if r.Status != StatusTimeout {
		t.Fatalf("%+v", r)
	}
}

func TestMemoryAndRecursionLimits(t *testing.T) {
	k := newMonty(t, Limits{MemoryBytes: 32 << 20, RecursionDepth: 100})
	run(t, k, "keep = 'k'")
	r := run(t, k, "big = 'x' * (100 * 1024 * 1024)")
	if r.Status != StatusError || r.Error.EName != "MemoryError" {
		t.Fatalf("%+v", r.Error)
	}
	r = run(t, k, "def f(n):\n    return f(n + 1)\nf(0)")
	if r.Status != StatusError || r.Error.EName != "RecursionError" || len(r.Error.Traceback) > maxFrames+1 {
		t.Fatalf("%+v", r.Error)
	}
	if r := run(t, k, "keep"); r.Value.Text != "'k'" {
		t.Fatalf("%+v", r)
	}
}

func TestCrashedWorkerGivesFreshKernel(t *testing.T) {
	var k *Monty
	pids := make(chan int, 1)
	k, err := NewMonty(MontyOptions{OnState: func(s State) {
		// Called on the executing goroutine, which owns the worker.
		if s == StateBusy {
			select {
			case pids <- k.w.Pid():
			default:
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	run(t, k, "lost = 1")
	<-pids
	go func() {
		pid := <-pids
		time.Sleep(50 * time.Millisecond)
		syscall.Kill(pid, syscall.SIGKILL)
	}()
	r := run(t, k, "while True:\n    pass")
	if r.Status != StatusCrashed || !strings.Contains(r.Error.EValue, "killed") {
		t.Fatalf("%+v %+v", r, r.Error)
	}
	r = run(t, k, "lost")
	if r.Status != StatusError || r.Error.EName != "NameError" || r.ExecutionCount != 1 {
		t.Fatalf("next run must start a fresh kernel: %+v %+v", r, r.Error)
	}
}

func TestOutOfMemoryIsCrash(t *testing.T) {
	k := newMonty(t, Limits{MemoryBytes: 16 << 20, RecursionDepth: 100_000_000})
	r := run(t, k, "def f(n):\n    return f(n + 1)\nf(0)")
	if r.Status != StatusCrashed || !strings.Contains(r.Error.EValue, "out of memory") {
		t.Fatalf("%+v %+v", r, r.Error)
	}
	if r := run(t, k, "1 + 1"); r.Status != StatusOK || r.Value.Text != "2" {
		t.Fatalf("%+v", r)
	}
}

// Regression: restart must always give an empty namespace.
func TestRestartClearsState(t *testing.T) {
	k := newMonty(t, Limits{})
	run(t, k, "secret = 42")
	if err := k.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := run(t, k, "secret")
	if r.Status != StatusError || r.Error.EName != "NameError" || r.ExecutionCount != 1 {
		t.Fatalf("%+v %+v", r, r.Error)
	}
	// Restart during a running cell interrupts it and still clears state.
	run(t, k, "again = 1")
	go func() {
		time.Sleep(100 * time.Millisecond)
		k.Restart(context.Background())
	}()
	run(t, k, "while True:\n    pass")
	if r := run(t, k, "again"); r.Status != StatusError {
		t.Fatalf("%+v", r)
	}
}

func TestStreamingOrderAndCap(t *testing.T) {
	k := newMonty(t, Limits{MaxOutputBytes: 1000})
	var mu sync.Mutex
	var streamed strings.Builder
	r, err := k.Execute(context.Background(), Request{Code: "for i in range(1000):\n    print(i)", OnOutput: func(s Stream, text string) {
		mu.Lock()
		streamed.WriteString(text)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(r.Stdout, "0\n1\n2\n") || !strings.Contains(r.Stdout, "output truncated at 1000 bytes") || len(r.Stdout) > 1100 {
		t.Fatalf("stdout %d bytes: %q", len(r.Stdout), r.Stdout[len(r.Stdout)-60:])
	}
	if streamed.String() != r.Stdout {
		t.Fatal("streamed output differs from the result")
	}
}

func TestExecutionsAreSerializedInOrder(t *testing.T) {
	k := newMonty(t, Limits{})
	run(t, k, "import time\nlog = []")
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); run(t, k, "time.sleep(0.2)") }()
	time.Sleep(20 * time.Millisecond)
	want := ""
	for i := range 20 {
		c := string(rune('a' + i))
		want += c
		wg.Add(1)
		go func() { defer wg.Done(); run(t, k, "log.append('"+c+"')") }()
		time.Sleep(5 * time.Millisecond) // submit in a known order while the first cell runs
	}
	wg.Wait()
	if r := run(t, k, "''.join(log)"); r.Value.Text != "'"+want+"'" {
		t.Fatalf("ran in order %s", r.Value.Text)
	}
}

func TestVariables(t *testing.T) {
	k := newMonty(t, Limits{})
	run(t, k, "import json\nx = 1\nname = 'ada'\ndef f(arg):\n    local = arg\n    return local\nitems = [f(i) for i in range(3)]\nprint(len(items), abs(-1), ValueError)")
	got := variablesByName(t, k)
	if got["x"].Repr != "1" || got["x"].Type != "int" || got["name"].Repr != "'ada'" || got["items"].Repr != "[0, 1, 2]" || got["f"].Type != "function" {
		t.Fatalf("%+v", got)
	}
	for _, hidden := range []string{"local", "arg", "json", "i", "print", "len", "abs", "ValueError"} {
		if _, ok := got[hidden]; ok {
			t.Errorf("%s listed: %+v", hidden, got[hidden])
		}
	}
}

func TestRunBatch(t *testing.T) {
	s, err := NewSandbox(Options{Limits: Limits{Timeout: time.Second, MemoryBytes: 16 << 20, RecursionDepth: 100_000_000}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	codes := []string{"1 + 1", "leak = 1", "leak", "def f(n):\n    return f(n + 1)\nf(0)", "print('after crash')\n3 * 3", "1/0"}
	for i := 0; i < 30; i++ {
		codes = append(codes, "sum(range("+string(rune('0'+i%10))+"))")
	}
	res, err := s.RunBatch(context.Background(), codes, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(codes) || res[0].Value.Text != "2" || res[1].Status != StatusOK {
		t.Fatalf("%+v", res[:2])
	}
	if res[2].Status != StatusError || res[2].Error.EName != "NameError" {
		t.Fatalf("snippets must not share state: %+v", res[2])
	}
	if res[3].Status != StatusCrashed {
		t.Fatalf("%+v", res[3])
	}
	if res[4].Status != StatusOK || res[4].Stdout != "after crash\n" || res[4].Value.Text != "9" {
		t.Fatalf("a crash must not affect other snippets: %+v", res[4])
	}
	if res[5].Error.EName != "ZeroDivisionError" {
		t.Fatalf("%+v", res[5])
	}
	for i := 6; i < len(res); i++ {
		n := (i - 6) % 10
		if want := n * (n - 1) / 2; res[i].Value == nil || res[i].Value.Text != itoa(want) {
			t.Fatalf("result %d out of order: %+v", i, res[i].Value)
		}
	}
}

func TestSandboxRunIsStateful(t *testing.T) {
	s, err := NewSandbox(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Run(context.Background(), "total = 40")
	r, err := s.Run(context.Background(), "total + 2")
	if err != nil || r.Value.Text != "42" || r.Duration <= 0 {
		t.Fatalf("%+v %v", r, err)
	}
}

func TestClosedKernel(t *testing.T) {
	k := newMonty(t, Limits{})
	run(t, k, "1")
	k.Close()
	if _, err := k.Execute(context.Background(), Request{Code: "1"}); err != ErrClosed {
		t.Fatalf("%v", err)
	}
}

func TestMissingBinary(t *testing.T) {
	_, err := NewMonty(MontyOptions{Binary: "/nonexistent/monty"})
	if err != nil {
		t.Fatal("NewMonty with an explicit path does not look it up")
	}
	k, _ := NewMonty(MontyOptions{Binary: "/nonexistent/monty"})
	if _, err := k.Execute(context.Background(), Request{Code: "1"}); err == nil || !strings.Contains(err.Error(), "start Monty kernel") {
		t.Fatalf("%v", err)
	}
	_ = monty.ErrNotFound
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

// After an interrupt the namespace is the snapshot plus the replayed
// journal: every cell that ran before the interrupted one counts, whether it
// came before or after the last snapshot.
func TestInterruptRecoversSnapshotAndJournal(t *testing.T) {
	k := newMonty(t, Limits{})
	run(t, k, "n = 0\nlog = []")
	for i := 0; i < maxJournal+10; i++ {
		run(t, k, "n = n + 1\nlog.append(n)")
	}
	if len(k.cp.journal) == 0 || k.cp.snap == nil {
		t.Fatalf("expected a snapshot and a journal: %d cells journaled", len(k.cp.journal))
	}
	time.AfterFunc(100*time.Millisecond, func() { k.Interrupt() })
	if r := run(t, k, "n = -1\nwhile True:\n    pass"); r.Status != StatusInterrupted {
		t.Fatalf("%+v", r)
	}
	want := itoa(maxJournal + 10)
	if r := run(t, k, "n, len(log)"); r.Value.Text != "("+want+", "+want+")" {
		t.Fatalf("%+v", r.Value)
	}
	// An idle kernel snapshots its journal, so the next recovery replays
	// nothing.
	deadline := time.Now().Add(5 * time.Second)
	for {
		k.q.acquire(context.Background())
		empty := len(k.cp.journal) == 0
		k.q.release()
		if empty {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no idle snapshot")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestKeyErrorValueLikeCPython(t *testing.T) {
	k := newMonty(t, Limits{})
	for code, want := range map[string]string{
		"{}['bananas']": "'bananas'", "{}[1]": "1", "{}[(1, 'a')]": "(1, 'a')", "{}[None]": "None",
		"{}[\"it's\"]": `"it's"`, "{}.pop('z')": "'z'", "{}[-2.5]": "-2.5",
	} {
		r := run(t, k, code)
		if r.Error == nil || r.Error.EName != "KeyError" || r.Error.EValue != want {
			t.Errorf("%s: %+v, want %s", code, r.Error, want)
		}
	}
}

// variablesByName lists k's variables, keyed by name.
func variablesByName(t *testing.T, k Kernel) map[string]Variable {
	t.Helper()
	vs, err := k.Variables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Variable{}
	for _, v := range vs {
		got[v.Name] = v
	}
	return got
}
