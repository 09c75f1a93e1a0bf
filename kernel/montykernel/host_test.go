package montykernel

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
)

// A killed worker's namespace is rebuilt by replaying cells; a host
// function they called is not called again: the replay gets the first
// answer.
func TestReplayDoesNotCallTheHostAgain(t *testing.T) {
	k := newMonty(t, kernel.Limits{})
	k.cp.hold = true // a slow machine would snapshot by time: replay is what this tests
	var calls atomic.Int32
	fns := map[string]kernel.HostFunc{"ticket": func(context.Context, []any, map[string]any) (any, error) {
		return int(calls.Add(1)) * 100, nil
	}}
	run := func(code string) kernel.Result {
		r, err := k.Execute(context.Background(), kernel.Request{Code: code, Functions: fns, Inputs: map[string]any{"base": 5}})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := run("a = ticket() + base"); r.Status != kernel.StatusOK {
		t.Fatalf("%+v", r.Error)
	}
	// The cell is in the journal (no snapshot), so recovery replays it.
	k.Q <- struct{}{}
	n := len(k.cp.journal) // the prelude (display) and the cell
	k.Q.Release()
	if n != 2 {
		t.Fatalf("journal %d", n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	r, _ := k.Execute(ctx, kernel.Request{Code: "b = 1\nwhile True:\n    pass"})
	if r.Status != kernel.StatusInterrupted {
		t.Fatalf("%+v", r)
	}
	if r := kerneltest.Run(t, k, "a"); r.Value == nil || r.Value.Text != "105" {
		t.Fatalf("a after replay: %+v %+v", r.Value, r.Error)
	}
	if r := kerneltest.Run(t, k, "b"); r.Error == nil || r.Error.EName != "NameError" {
		t.Fatalf("the interrupted cell's changes are gone: %+v", r)
	}
	if n := calls.Load(); n != 1 {
		t.Fatalf("the host function ran %d times", n)
	}
	vars := kerneltest.Variables(t, k)
	if vars["base"].Repr != "5" || vars["a"].Repr != "105" {
		t.Fatalf("%+v", vars)
	}
}

func TestPerCallLimits(t *testing.T) {
	k := newMonty(t, kernel.Limits{Timeout: 300 * time.Millisecond})
	kerneltest.Run(t, k, "kept = 1")
	// Longer than the kernel's limit for one call, shorter for another; the
	// namespace stays.
	r, err := k.Execute(context.Background(), kernel.Request{Code: "import time\ntime.sleep(0.6)\nkept + 1", Limits: kernel.Limits{Timeout: 5 * time.Second}})
	if err != nil || r.Status != kernel.StatusOK || r.Value.Text != "2" {
		t.Fatalf("%+v %v", r, err)
	}
	r, _ = k.Execute(context.Background(), kernel.Request{Code: "while True:\n    pass", Limits: kernel.Limits{Timeout: 100 * time.Millisecond}})
	if r.Status != kernel.StatusTimeout || r.Error.EValue != "cell exceeded the 100ms time limit" {
		t.Fatalf("%+v %+v", r, r.Error)
	}
	r, _ = k.Execute(context.Background(), kernel.Request{Code: "import time\ntime.sleep(0.6)"})
	if r.Status != kernel.StatusTimeout || r.Error.EValue != "cell exceeded the 300ms time limit" {
		t.Fatalf("the kernel's own limit is back: %+v %+v", r, r.Error)
	}
	if r := kerneltest.Run(t, k, "kept"); r.Value == nil || r.Value.Text != "1" {
		t.Fatalf("%+v", r)
	}
	_, err = k.Execute(context.Background(), kernel.Request{Code: "1", Limits: kernel.Limits{MemoryBytes: 1 << 30}})
	if !errors.Is(err, kernel.ErrLimitFixed) {
		t.Fatalf("%v", err)
	}
	if _, err := k.Execute(context.Background(), kernel.Request{Code: "1", Inputs: map[string]any{"c": make(chan int)}}); err == nil {
		t.Fatal("an input that cannot cross must be refused")
	}
}
