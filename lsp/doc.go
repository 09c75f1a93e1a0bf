// Package lsp is the backyard-ls language server: the LSP surface of the
// notebook model (package notebook). Editors run a document's "# %%" cells,
// a selection or the whole file with workspace/executeCommand (from a code
// lens or a key); results come back as the command's response, as the
// backyard/* notifications, as code lenses, diagnostics and inlay hints.
// The commands, records, notifications and settings are declared once in
// package contract (docs/contract.md); testdata/contract holds the contract
// as data-driven cases that the editor plugins replay.
//
// The server implements protocol.Server and runs behind one explicit
// middleware (middleware.go: panics, the lifecycle gate, cancellation and the
// ordered-then-async policy per method); it talks to the client through a
// typed facade (client.go) over a write coalescer (coalesce.go) and reads
// with a framer that survives a misbehaving client (framer.go). One file per
// LSP feature, as gopls does: lifecycle.go, text_synchronization.go,
// code_lens.go, commands.go (workspace/executeCommand), diagnostics.go,
// inlay_hint.go, progress.go, configuration.go, refresh.go.
//
// Lock order: server.mu is taken alone (never while calling the notebook or
// the client); a call's callContext.mu before the watchdog's and the write
// coalescer's; the notebook's locks are its own (package notebook).
//
// # Where a trivial run's time goes
//
// A runCell of "x = 1" on an idle document (Monty backend), request to
// response over stdio: the server's CPU profile and a runtime/trace of it
// while it served bench/roundtrip.py's client (BenchmarkRunCellInProcess
// -cpuprofile shows the same path in one process), on the 2-vCPU VM while
// other builds kept it loaded (load average 8 to 20). Server CPU per run in
// µs, two profiles of 20,000 runs each (scripts/bench-roundtrip.sh measures
// the round trips against bench/floor and Jupyter):
//
//	                                               before   after
//	read and frame the request                      11-16       7
//	decode the params and the argument              16-19     9-10
//	queue the run (notebook)                          6-9       5
//	release the read loop (jsonrpc2.Async)           3-12       0
//	grow the new reader's stack (copystack)            25       1
//	build the kernel configuration (every run)      12-18       0
//	the kernel, Go side (worker I/O 30-35 of it)    60-67   52-54
//	notifications                                   10-14     5-8
//	the response                                     6-13     7-9
//	timers                                            4-5     0-2
//	GC                                              12-18       9
//	scheduler                                       27-29   18-21
//	all                                               205     130
//
// Before, the read loop decoded the call and queued the run, then released
// itself (jsonrpc2.Async): a fresh reader goroutine per request, whose stack
// grew from its first size by copying once it handled the next run, while
// the old reader ran the cell. Each run rebuilt the kernel's configuration
// (the document's folder from its uri, the settings under the overrides)
// though the kernel existed, and its first notification armed the write
// coalescer's 1 ms timer (a new earliest timer wakes another thread). In the
// trace, from the request's arrival: 83-119 µs to the write to the worker,
// 59-72 µs in the worker and its two wake-ups, 30-45 µs from its answer to
// the response's write.
//
// Now a run whose executions drain an idle document's queue stays on the
// read loop (callContext.keep): the cell runs on the goroutine that read
// the request, and the run's notifications are held without a timer and
// leave in the response's write. A watchdog releases a call kept for one to
// two milliseconds (one timer per connection, armed only while a call is
// kept), and every call to the client, and the wait for pulled settings,
// releases it first: the reader is never held by a cell that waits on the
// client, and $/cancelRequest, interrupts and edits are read while a long
// cell runs. The kernel configuration is built only for a new kernel. In
// the trace: 53-58 µs to the worker, 65-70 µs in it, 40-45 µs after it.
//
// What is left is mostly the kernel's: the worker's pipe (a write that
// wakes it, a read that parks on the poller), its protobuf, the contexts
// and state changes of an execution, and the two process wake-ups that a
// kernel in another process costs and bench/floor does not. A run also
// sends five notifications before its response (queued, running, busy,
// idle, done: the contract), which the client parses.
package lsp
