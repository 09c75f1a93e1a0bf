//go:build !linux

package monty

import "time"

// CPUTimes are the worker process's user and system CPU time; this system
// does not say (ok is false).
func (w *Worker) CPUTimes() (user, sys time.Duration, ok bool) { return 0, 0, false }
