package kcore

import (
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// DiedIdle is the result of a run that found the kernel's worker or
// container dead, killed between cells: the cell did not run, the state
// is lost and the count starts again (this result has count 0).
func DiedIdle(backend contract.Backend, runtime, why string) kernel.Result {
	return kernel.Result{Status: kernel.StatusCrashed, Backend: backend, Runtime: runtime, Error: &contract.ExecutionError{
		EName: "KernelDied", EValue: "the kernel died while idle: state lost (" + why + "); the cell did not run, the next run starts a fresh kernel",
	}}
}
