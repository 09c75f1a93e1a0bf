// Package kcore is what the backend kernels share: the execution queue and
// bookkeeping (Base), capped output (Output) and the causes of a stopped
// execution.
package kcore

import "errors"

// Causes of a stopped execution, as context causes.
var (
	ErrInterrupted = errors.New("interrupted")
	ErrTimedOut    = errors.New("time limit exceeded")
	ErrRestarted   = errors.New("kernel restarted")
)
