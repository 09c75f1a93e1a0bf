package kcore

import (
	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// Death is how a kernel's process (a Monty worker, a container) ended when
// the kernel did not end it.
type Death struct {
	// Signal names the signal that killed it ("SIGKILL"); "" when it
	// exited with Code.
	Signal string
	Code   int
	// OOM: it ran out of memory (the OOM killer, or Monty's allocator cap)
	// under the limit MemoryBytes.
	OOM         bool
	MemoryBytes uint64
	// Stderr is the end of what the process itself wrote (its fatal
	// errors); the cells' output is not there.
	Stderr string
}

// Text says what happened, in the same words for every backend.
func (d Death) Text() string {
	return container.DeathText(d.OOM, d.MemoryBytes, d.Signal, d.Code, d.Stderr)
}

// Crashed is the error of a cell whose kernel died running it.
func (d Death) Crashed() *contract.ExecutionError {
	return &contract.ExecutionError{EName: "KernelCrashed", EValue: d.Text() + "; the next run starts a fresh kernel"}
}

// SnippetCrashed is the error of a batch snippet whose process died (a
// Monty worker, a fork server's child or its container); why is the death
// in the words a kernel's crash uses too (Death.Text,
// container.ExitInfo.Describe). A snippet has no next run to tell of: the
// others do not share its process.
func SnippetCrashed(why string) *contract.ExecutionError {
	return &contract.ExecutionError{EName: "KernelCrashed", EValue: why}
}

// DiedIdle is the result of a run that found the kernel's worker or
// container dead, killed between cells: the cell did not run, the state
// is lost and the count starts again (this result has count 0).
func DiedIdle(backend contract.Backend, runtime, why string) kernel.Result {
	return kernel.Result{Status: kernel.StatusCrashed, Backend: backend, Runtime: runtime, Error: &contract.ExecutionError{
		EName: "KernelDied", EValue: "the kernel died while idle: state lost (" + why + "); the cell did not run, the next run starts a fresh kernel",
	}}
}

// Restarted is the error of a cell that Restart or Close ended.
func Restarted() *contract.ExecutionError {
	return &contract.ExecutionError{EName: "KeyboardInterrupt", EValue: "the kernel was restarted"}
}
