package montykernel

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/internal/kcore"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
)

// swallows catches every KeyboardInterrupt, waiting in input() (where
// Monty raises it in-band, as in a sleep); it says "caught" each time.
const swallows = "print('ready')\nwhile True:\n    try:\n        input('? ')\n    except KeyboardInterrupt:\n        print('caught')\n        changed = 2"

// start runs code on k in the background; out receives its output. Its
// input() waits until the cell is stopped.
func start(k *Kernel, req kernel.Request) (<-chan kernel.Result, <-chan string) {
	res := make(chan kernel.Result, 1)
	out := make(chan string, 1024)
	req.OnOutput = func(_ kernel.Stream, text string) {
		select {
		case out <- text:
		default: // the loop after an interrupt asks again and again
		}
	}
	req.OnInput = func(ctx context.Context, prompt string, _ bool) (string, error) {
		out <- "asked\n"
		<-ctx.Done()
		return "", ctx.Err()
	}
	go func() {
		r, _ := k.Execute(context.Background(), req)
		res <- r
	}()
	return res, out
}

func waitFor(t *testing.T, out <-chan string, text string) {
	t.Helper()
	var got strings.Builder
	for !strings.Contains(got.String(), text) {
		select {
		case s := <-out:
			got.WriteString(s)
		case <-time.After(time.Minute):
			t.Fatalf("no %q in %q", text, got.String())
		}
	}
}

// caught runs swallows on k after "changed = 1", and interrupts it once:
// the cell catches it and runs on.
func caught(t *testing.T, k *Kernel) <-chan kernel.Result {
	t.Helper()
	kerneltest.Run(t, k, "changed = 1")
	res, out := start(k, kernel.Request{Code: swallows})
	waitFor(t, out, "asked")
	k.Interrupt()
	waitFor(t, out, "caught")
	return res
}

// A cell that catches the KeyboardInterrupt of its time limit is killed
// once past it: its result is a timeout, the namespace as before it.
func TestTimeLimitEndsACellThatCatchesIt(t *testing.T) {
	k := newMonty(t, kernel.Limits{Timeout: 500 * time.Millisecond})
	kerneltest.Run(t, k, "changed = 1")
	res, out := start(k, kernel.Request{Code: swallows})
	waitFor(t, out, "asked")
	r := <-res
	if r.Status != kernel.StatusTimeout || !r.Restored || !strings.Contains(r.Stdout, "caught") {
		t.Fatalf("%+v %+v", r, r.Error)
	}
	if r := kerneltest.Run(t, k, "changed"); r.Value == nil || r.Value.Text != "1" {
		t.Fatalf("%+v", r)
	}
}

// Each interrupt request counts: the first raises KeyboardInterrupt in the
// sleep, the second ends a cell that caught it (Monty takes one in-band
// interrupt per cell: its worker is killed, the namespace restored).
func TestSecondInterruptEndsACellThatCatchesIt(t *testing.T) {
	k := newMonty(t, kernel.Limits{})
	res := caught(t, k)
	k.Interrupt()
	r := <-res
	if r.Status != kernel.StatusInterrupted || !r.Restored {
		t.Fatalf("%+v %+v", r, r.Error)
	}
	if r := kerneltest.Run(t, k, "changed"); r.Value == nil || r.Value.Text != "1" {
		t.Fatalf("%+v", r)
	}
}

// Restart and Close end the running cell at once, whatever it does, and
// do not restore what a restart empties anyway.
func TestRestartAndCloseEndTheCell(t *testing.T) {
	for _, op := range []string{"restart", "close", "stop"} {
		t.Run(op, func(t *testing.T) {
			k := newMonty(t, kernel.Limits{})
			res := caught(t, k)
			switch op {
			case "restart":
				if err := k.Restart(context.Background()); err != nil {
					t.Fatal(err)
				}
			case "close":
				k.Close()
			case "stop":
				var s kernel.Stopper = k
				s.Stop()
			}
			r := <-res
			if r.Status != kernel.StatusInterrupted || r.Error.EValue != "the kernel was restarted" || r.Restored {
				t.Fatalf("%+v %+v", r, r.Error)
			}
		})
	}
}

// One budget per cell: a run gets what is left of the time limit after
// what the cell spent elsewhere, and its timeout names the whole limit.
func TestSpentTimeCounts(t *testing.T) {
	k := newMonty(t, kernel.Limits{Timeout: 5 * time.Second})
	r, err := k.Execute(context.Background(), kernel.Request{Code: "while True:\n    pass", Spent: 4800 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != kernel.StatusTimeout || r.Error.EValue != "cell exceeded the 5s time limit" || r.Duration >= 5*time.Second || r.Backend != contract.BackendMonty {
		t.Fatalf("%+v %+v", r, r.Error)
	}
}

// A drawn value survives an interrupt as it was: its cell is snapshotted
// at once, so recovery carries the value instead of drawing again.
func TestInterruptKeepsDrawnValues(t *testing.T) {
	k := newMonty(t, kernel.Limits{})
	before := kerneltest.Run(t, k, "import random\nx = random.random()\nx").Value.Text
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if r, _ := k.Execute(ctx, kernel.Request{Code: "while True:\n    pass"}); r.Status != kernel.StatusInterrupted || !r.Restored {
		t.Fatalf("%+v", r)
	}
	if r := kerneltest.Run(t, k, "x"); r.Value == nil || r.Value.Text != before {
		t.Fatalf("x was %s, is %+v", before, r.Value)
	}
}

// A replayed cell that draws says so, naming what it rebuilt.
func TestReplayThatDrawsSaysSo(t *testing.T) {
	k := newMonty(t, kernel.Limits{})
	kerneltest.Run(t, k, "import random")
	k.Q <- struct{}{}
	defer k.Q.Release()
	var cp checkpoint
	cp.record(&kcore.Replayable{Code: "import random\nroll = random.randint(1, 6)\ndef again():\n    return random.random()"}, 0, false)
	w, notes, err := cp.restore(context.Background(), k.w, time.Minute, nil, k.startWorker)
	if err != nil || w != k.w {
		t.Fatal(err)
	}
	if len(notes) != 1 || notes[0] != "random, roll, again rebuilt by running their cell again, which reads random values anew: they may differ from before" {
		t.Fatalf("%q", notes)
	}
}

// Close ends a cell blocked in a host call whatever the call does (see
// kerneltest.BlockedInHostCall). (A FIFO in the workspace cannot block a
// cell: Monty's files see regular files only, see
// TestWorkspaceFIFOIsNotThere.)
func TestCloseEndsACellBlockedInAHostCall(t *testing.T) {
	k := newMonty(t, kernel.Limits{})
	res := kerneltest.BlockedInHostCall(t, k)
	start := time.Now()
	if err := k.Close(); err != nil {
		t.Fatal(err)
	}
	r := <-res
	t.Logf("Close ended the kernel in %s", time.Since(start))
	if r.Status != kernel.StatusInterrupted || r.Error.EValue != "the kernel was restarted" {
		t.Fatalf("%+v %+v", r, r.Error)
	}
}
