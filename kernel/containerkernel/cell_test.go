package containerkernel

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/backyard-ls/backyard-ls/kernel"
)

// An interrupted cell that swallows KeyboardInterrupt runs on through the
// grace period and is then killed. Meanwhile the watcher wakes for the
// interrupt, for each repeated SIGINT and for the kill: a handful of
// times, not in a loop (it once spun on the cancelled context's Done
// channel, which stays ready, burning a core for the whole grace period).
func TestContainerInterruptWatcherDoesNotSpin(t *testing.T) {
	const cell = "import time\nprint('ready', flush=True)\nwhile True:\n    try:\n        time.sleep(10)\n    except KeyboardInterrupt:\n        pass"
	forRuntimes(t, kernel.Limits{}, func(t *testing.T, k *Kernel) {
		if err := k.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		grace := k.opts.InterruptGrace
		var once sync.Once
		before := watchWakeups.Load()
		// Interrupt once the cell runs its loop: when its first line of
		// output arrives.
		r, err := k.Execute(context.Background(), kernel.Request{Code: cell, OnOutput: func(_ kernel.Stream, text string) {
			if strings.Contains(text, "ready") {
				once.Do(func() { go k.Interrupt() })
			}
		}})
		wakeups := watchWakeups.Load() - before
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%d watcher wake-ups", wakeups)
		if r.Status != kernel.StatusInterrupted || r.Error == nil || !strings.Contains(r.Error.EValue, "did not stop within") {
			t.Fatalf("the cell should run through the grace period and be killed: %+v %+v", r, r.Error)
		}
		// One wake-up for the interrupt, one per repeated SIGINT; slack
		// for a tick that lands together with the kill.
		if most := int64(grace/interruptRepeat) + 3; wakeups > most {
			t.Errorf("the watcher woke %d times in a %s grace period with SIGINT every %s; want at most %d", wakeups, grace, interruptRepeat, most)
		}
		if wakeups == 0 {
			t.Error("the watcher never woke: the test observes nothing")
		}
	})
}
