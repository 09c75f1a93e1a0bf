package montykernel

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/monty"
)

// laneRun sends every snippet to a new lane, as a batch does (half the
// depth at a time), and returns the results by tag.
func laneRun(t *testing.T, ctx context.Context, lim kernel.Limits, codes ...string) []kernel.Result {
	t.Helper()
	bin, err := monty.Find("")
	if err != nil {
		t.Fatal(err)
	}
	l := NewLane(ctx, bin, lim)
	defer l.Close()
	res := make([]kernel.Result, len(codes))
	got := make([]bool, len(codes))
	next := 0
	for done := 0; done < len(codes); done++ {
		for next < len(codes) && l.Hungry() {
			if err := l.Send(next, kernel.Snippet{Code: codes[next]}); err != nil {
				t.Fatal(err)
			}
			next++
		}
		tag, r := l.Receive()
		if got[tag] {
			t.Fatalf("snippet %d came back twice", tag)
		}
		got[tag], res[tag] = true, r
	}
	return res
}

// A lane shows each snippet's value as the notebook kernel does: None is
// not shown, a value over the output limit is cut with the exact count of
// what was left out (such a snippet runs again alone), an error's
// traceback shows the snippet's own line, and nothing leaks from one
// snippet to the next.
func TestLaneValues(t *testing.T) {
	codes := []string{
		"1 + 1",
		"None",
		"s = 'x' * 5000\ns",
		"'é' * 600",
		"x = 1\n1/0",
		"x",
		"print('out')\n[1, 2]",
		"y = 3",
	}
	res := laneRun(t, context.Background(), kernel.Limits{MaxOutputBytes: 1000}, codes...)
	check := func(i int, ok bool) {
		t.Helper()
		if !ok {
			t.Fatalf("%q: %+v %+v %+v", codes[i], res[i], res[i].Value, res[i].Error)
		}
	}
	check(0, res[0].Status == kernel.StatusOK && res[0].Value != nil && res[0].Value.Text == "2")
	check(1, res[1].Status == kernel.StatusOK && res[1].Value == nil)
	want := "\n[backyard: value truncated at 1000 bytes; 4002 more characters not shown]"
	check(2, res[2].Value != nil && res[2].Value.Text == "'"+strings.Repeat("x", 999)+want)
	check(3, res[3].Value != nil && strings.HasPrefix(res[3].Value.Text, "'éé") && strings.HasSuffix(res[3].Value.Text, "; 102 more characters not shown]"))
	check(4, res[4].Error != nil && res[4].Error.EName == "ZeroDivisionError" && len(res[4].Error.Traceback) > 0 &&
		res[4].Error.Traceback[len(res[4].Error.Traceback)-1].Text == "1/0" && res[4].Error.Traceback[len(res[4].Error.Traceback)-1].Line == 2)
	check(5, res[5].Error != nil && res[5].Error.EName == "NameError")
	check(6, res[6].Stdout == "out\n" && res[6].Value != nil && res[6].Value.Text == "[1, 2]")
	check(7, res[7].Status == kernel.StatusOK && res[7].Value == nil)
}

// The worker's own budget stops a runaway snippet and the ones behind it
// still run; when the lane's context ends, what it holds comes back
// interrupted.
func TestLaneTimeLimitAndCancel(t *testing.T) {
	res := laneRun(t, context.Background(), kernel.Limits{Timeout: 200 * time.Millisecond},
		"while True:\n    pass", "'next'")
	if res[0].Status != kernel.StatusTimeout || res[1].Value == nil || res[1].Value.Text != "'next'" {
		t.Fatalf("%+v / %+v", res[0], res[1])
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	res = laneRun(t, ctx, kernel.Limits{Timeout: time.Hour}, "while True:\n    pass", "'never'")
	for i, r := range res {
		if r.Status != kernel.StatusInterrupted {
			t.Fatalf("%d: %+v", i, r)
		}
	}
}

// The lane's guard stops a worker that stops answering, which the
// worker's own budget cannot (it counts bytecode): here a stand-in that
// accepts its configuration, then never answers again. Each snippet is
// then a timeout after its limit and the grace, on a new worker.
func TestLaneGuardStopsAHungWorker(t *testing.T) {
	hung := filepath.Join(t.TempDir(), "hung-worker")
	script := "#!/bin/sh\nprintf '\\002\\000\\000\\000\\122\\000'\nexec /bin/sleep 1000\n" // an Ok frame
	if err := os.WriteFile(hung, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	l := NewLane(context.Background(), hung, kernel.Limits{Timeout: 100 * time.Millisecond})
	defer l.Close()
	for i := range 2 {
		if err := l.Send(i, kernel.Snippet{Code: "1"}); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now()
	for i := range 2 {
		tag, r := l.Receive()
		if tag != i || r.Status != kernel.StatusTimeout || r.Error == nil || r.Error.EValue != "cell exceeded the 100ms time limit" {
			t.Fatalf("%d: %+v %+v", tag, r, r.Error)
		}
	}
	if took := time.Since(start); took < 2*(100*time.Millisecond+timeoutGrace) {
		t.Fatalf("stopped after %v, before the limits and their grace", took)
	}
}

// A snippet whose own context ends stops, running or waiting its turn in
// the pipeline, and comes back interrupted; the snippets sent with it
// still run (on a new worker when the stopped one was running), and the
// lane goes on.
func TestLaneStopsOneSnippet(t *testing.T) {
	bin, err := monty.Find("")
	if err != nil {
		t.Fatal(err)
	}
	l := NewLane(context.Background(), bin, kernel.Limits{Timeout: 5 * time.Minute})
	defer l.Close()
	running, stopRunning := context.WithCancel(context.Background())
	waiting, stopWaiting := context.WithCancel(context.Background())
	slept, stopSleep := context.WithCancel(context.Background())
	defer stopRunning()
	defer stopSleep()
	stopWaiting() // stopped before its turn
	sent := []kernel.Snippet{
		{Code: "1 + 1"},
		{Code: "while True:\n    pass", Context: running},
		{Code: "2 + 2"},
		{Code: "while True:\n    pass", Context: waiting},
		{Code: "import time\ntime.sleep(300)", Context: slept},
		{Code: "3 + 3"},
	}
	for i, sn := range sent {
		if err := l.Send(i, sn); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"2", "interrupted", "4", "interrupted", "interrupted", "6"}
	for range sent {
		tag, r := l.Receive()
		switch tag {
		case 0:
			stopRunning() // snippet 1 is running now
		case 3:
			stopSleep() // snippet 4 sleeps alone after the pipeline
		}
		got := string(r.Status)
		if r.Status == kernel.StatusOK {
			got = r.Value.Text
		}
		if got != want[tag] {
			t.Fatalf("snippet %d: %+v %+v", tag, r, r.Error)
		}
	}
	if err := l.Send(9, kernel.Snippet{Code: "'after'"}); err != nil {
		t.Fatal(err)
	}
	if _, r := l.Receive(); r.Status != kernel.StatusOK || r.Value.Text != "'after'" {
		t.Fatalf("%+v %+v", r, r.Error)
	}
}

// A program's trailing expression shows no value, in the pipeline and
// run alone.
func TestLaneProgram(t *testing.T) {
	bin, err := monty.Find("")
	if err != nil {
		t.Fatal(err)
	}
	l := NewLane(context.Background(), bin, kernel.Limits{})
	defer l.Close()
	for i, code := range []string{"x = 6 * 7\nprint(x)\nx", "import time\ntime.sleep(0.01)\n'slept'"} {
		if err := l.Send(i, kernel.Snippet{Code: code, Program: true}); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if tag, r := l.Receive(); r.Status != kernel.StatusOK || r.Value != nil || tag == 0 && r.Stdout != "42\n" {
			t.Fatalf("snippet %d: %+v", tag, r)
		}
	}
}

// A snippet whose worker dies is a crash worded as a kernel's crash is
// (kcore.Death.Text, which TestDeathsReadTheSameOnEveryBackend holds for
// every backend), without the kernel's next-run clause; the snippet sent
// behind it runs on a new worker.
func TestLaneDeathReadsAsAKernelDeath(t *testing.T) {
	bin, err := monty.Find("")
	if err != nil {
		t.Fatal(err)
	}
	l := NewLane(context.Background(), bin, kernel.Limits{Timeout: time.Hour})
	defer l.Close()
	for i, code := range []string{"while True:\n    pass", "'next'"} {
		if err := l.Send(i, kernel.Snippet{Code: code}); err != nil {
			t.Fatal(err)
		}
	}
	if p, err := os.FindProcess(l.w.Pid()); err == nil {
		p.Kill()
	}
	tag, r := l.Receive()
	if tag != 0 || r.Status != kernel.StatusCrashed || r.Error.EName != "KernelCrashed" || r.Error.EValue != "the kernel was killed by signal SIGKILL" {
		t.Fatalf("%d: %+v %+v", tag, r, r.Error)
	}
	if tag, r := l.Receive(); tag != 1 || r.Value == nil || r.Value.Text != "'next'" {
		t.Fatalf("%d: %+v", tag, r)
	}
}
