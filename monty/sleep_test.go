package monty

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/monty/internal/pb"
)

// startHooked starts a worker whose OS calls are shown to hook first.
func startHooked(t *testing.T, hook func(*pb.OsCall)) *Worker {
	t.Helper()
	return startConfig(t, Config{Binary: workerBinary(t), onOSCall: hook})
}

// floatOf reads a float value by its repr.
func floatOf(t *testing.T, v *Value) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(v.Repr(), 64)
	if err != nil {
		t.Fatalf("not a float: %s", v.Repr())
	}
	return f
}

func isSleep(c *pb.OsCall) bool {
	switch c.Call.(type) {
	case *pb.OsCall_SystemSleep, *pb.OsCall_Sleep_, *pb.OsCall_AsyncSystemSleep, *pb.OsCall_AsyncSleep_:
		return true
	}
	return false
}

// After a cell caught the KeyboardInterrupt of an interrupt during a
// sleep, its later sleeps sleep as asked (the interrupt is delivered once).
func TestSleepAfterCaughtInterruptSleeps(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sleeps := 0
	w := startHooked(t, func(c *pb.OsCall) {
		if isSleep(c) {
			if sleeps++; sleeps == 1 {
				cancel() // the interrupt lands in the first sleep
			}
		}
	})
	code := "import time\ncaught = 0\ntry:\n    time.sleep(60)\nexcept KeyboardInterrupt:\n    caught += 1\n" +
		"t0 = time.monotonic()\ntime.sleep(0.3)\ntime.sleep(0.2)\n(caught, time.monotonic() - t0)"
	start := time.Now()
	o, err := w.Feed(ctx, code, FeedOptions{})
	took := time.Since(start)
	if err != nil || o.Exception != nil {
		t.Fatalf("%v %+v", err, o.Exception)
	}
	if !o.Interrupted || o.TimedOut {
		t.Fatalf("interrupted %v, timed out %v", o.Interrupted, o.TimedOut)
	}
	items := o.Value.Items()
	caught, _ := items[0].Int()
	slept := floatOf(t, items[1])
	if caught != 1 || slept < 0.5 || took < 500*time.Millisecond || sleeps != 3 {
		t.Fatalf("caught %d, the later sleeps took %.3f s (the feed %s), %d sleeps", caught, slept, took, sleeps)
	}
}

// A cell that keeps catching the interrupt and sleeping ends at ctx's
// deadline (the cell's time limit), and cannot catch that end.
func TestSleepLoopAfterInterruptEndsAtDeadline(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 1500*time.Millisecond)
	defer cancel()
	first := true
	w := startHooked(t, func(c *pb.OsCall) {
		if isSleep(c) && first {
			first = false
			cancel()
		}
	})
	o, err := w.Feed(ctx, "import time\ncaught = 0\nwhile True:\n    try:\n        time.sleep(0.2)\n    except KeyboardInterrupt:\n        caught += 1", FeedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Exception == nil || o.Exception.Type != "KeyboardInterrupt" || !o.TimedOut {
		t.Fatalf("%+v timed out %v", o.Exception, o.TimedOut)
	}
	if o, _ := feed(t, w, "caught"); o.Value.Repr() != "1" {
		t.Fatalf("caught %s: the end at the deadline was caught", o.Value.Repr())
	}
	if !w.Alive() {
		t.Fatal("the worker died")
	}
}

// process_time() advances with the work a session does, as CPython's
// does with the process's CPU time, and never goes back.
func TestProcessTimeAdvances(t *testing.T) {
	w := start(t, Limits{})
	var last float64
	for i := 0; i < 3; i++ {
		o, _ := feed(t, w, "import time\nt0 = time.process_time()\nx = sum(range(200000))\n(t0, time.process_time())")
		items := o.Value.Items()
		t0, t1 := floatOf(t, items[0]), floatOf(t, items[1])
		if !(t1 > t0) || t0 < last {
			t.Fatalf("feed %d: process_time %v then %v (last %v)", i, t0, t1, last)
		}
		last = t1
	}
}

// The worker's own cap on a sleep (10 s unless told) is gone: a sleep
// longer than it lasts as asked. (The one test here that sleeps that long.)
func TestSleepPastTheWorkersDefaultCap(t *testing.T) {
	if testing.Short() {
		t.Skip("sleeps 10.5 s")
	}
	w := start(t, Limits{})
	o, _ := feed(t, w, "import time\nt0 = time.monotonic()\ntime.sleep(10.5)\ntime.monotonic() - t0")
	slept := floatOf(t, o.Value)
	if slept < 10.5 {
		t.Fatalf("time.sleep(10.5) returned after %s s", strconv.FormatFloat(slept, 'f', 3, 64))
	}
}

// An interrupt that lands while the code runs Python, just before a sleep
// in a try, is the KeyboardInterrupt that try catches: the code reaches
// the sleep within its grace (a minute here, so the test does not depend
// on how soon the worker gets a CPU) and takes the interrupt there.
func TestInterruptJustBeforeASleepIsCaught(t *testing.T) {
	w := startConfig(t, Config{Binary: workerBinary(t), interruptGrace: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	code := "import time\ncaught = 0\ntry:\n    print('ready')\n    for i in range(20000):\n        pass\n    time.sleep(60)\nexcept KeyboardInterrupt:\n    caught = 1\ncaught"
	o, err := w.Feed(ctx, code, FeedOptions{OnPrint: func(_ Stream, text string) {
		if text == "ready\n" {
			cancel() // the worker runs on: the loop, then the sleep
		}
	}})
	if err != nil || o.Exception != nil {
		t.Fatalf("%v %+v", err, o.Exception)
	}
	if !o.Interrupted || o.Value.Repr() != "1" {
		t.Fatalf("interrupted %v, caught %s", o.Interrupted, o.Value.Repr())
	}
	if !w.Alive() {
		t.Fatal("the worker was killed")
	}
}
