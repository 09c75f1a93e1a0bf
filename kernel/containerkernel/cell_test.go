package containerkernel

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/kernel"
)

// An interrupted cell that swallows KeyboardInterrupt runs on, as in
// Jupyter, until a restart ends it. Meanwhile the watcher wakes once for
// the interrupt, not in a loop (it once spun on the cancelled context's
// Done channel, which stays ready, burning a core while the cell ran).
func TestContainerInterruptWatcherDoesNotSpin(t *testing.T) {
	// "ready" inside the try: an interrupt just after it is caught too.
	const cell = "import time\nwhile True:\n    try:\n        print('ready', flush=True)\n        time.sleep(10)\n    except KeyboardInterrupt:\n        print('caught', flush=True)"
	forRuntimes(t, kernel.Limits{}, func(t *testing.T, k *Kernel) {
		if err := k.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		before := watchWakeups.Load()
		caught := make(chan struct{})
		var ready, got sync.Once
		done := make(chan kernel.Result, 1)
		go func() {
			r, _ := k.Execute(context.Background(), kernel.Request{Code: cell, OnOutput: func(_ kernel.Stream, text string) {
				if strings.Contains(text, "ready") {
					ready.Do(func() { go k.Interrupt() })
				}
				if strings.Contains(text, "caught") {
					got.Do(func() { close(caught) })
				}
			}})
			done <- r
		}()
		<-caught
		// The cell handled the interrupt and runs on: give a spinning
		// watcher the time to show itself.
		time.Sleep(time.Second)
		wakeups := watchWakeups.Load() - before
		if err := k.Restart(context.Background()); err != nil {
			t.Fatal(err)
		}
		r := <-done
		t.Logf("%d watcher wake-ups while the cell ran on", wakeups)
		if r.Status != kernel.StatusInterrupted {
			t.Errorf("restart should end the cell: %+v %+v", r, r.Error)
		}
		if wakeups > 3 {
			t.Errorf("the watcher woke %d times for one interrupt", wakeups)
		}
		if wakeups == 0 {
			t.Error("the watcher never woke: the test observes nothing")
		}
	})
}
