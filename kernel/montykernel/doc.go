// Package montykernel is the Monty backend: a kernel.Kernel backed by one
// `monty subprocess` worker (pydantic's sandboxed Python interpreter),
// started on the first execution, with interrupt by checkpoint and replay.
package montykernel
