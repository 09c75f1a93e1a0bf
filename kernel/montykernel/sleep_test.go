package montykernel

import (
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
)

// A cell that catches the KeyboardInterrupt its time limit raises in a
// sleep, and sleeps again, ends at the limit as a timeout: the later sleep
// neither returns at once (a busy loop past the limit) nor runs on.
func TestCaughtTimeoutSleepLoopEndsAsTimeout(t *testing.T) {
	k := newMonty(t, kernel.Limits{Timeout: time.Second})
	r := kerneltest.Run(t, k, "import time\ncaught = 0\nwhile True:\n    try:\n        time.sleep(0.25)\n    except KeyboardInterrupt:\n        caught += 1")
	if r.Status != kernel.StatusTimeout || r.Error == nil || r.Error.EName != "TimeoutError" {
		t.Fatalf("%+v %+v", r, r.Error)
	}
	if r := kerneltest.Run(t, k, "caught"); r.Value == nil || r.Value.Text != "1" {
		t.Fatalf("caught %+v", r.Value)
	}
}
