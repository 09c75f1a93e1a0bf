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
// response over stdio, driven by bench/roundtrip.py's Python client on the
// 2-vCPU VM; medians of a few thousand runs, timed inside the server at
// each step (scripts/bench-roundtrip.sh measures the whole round trip
// against bench/floor and Jupyter):
//
//	                                                     µs
//	the request's frame to the middleware                 2
//	the middleware, ExecuteCommandParams decoded        8-10
//	the argument decoded, the run queued (notebook)     9-11
//	the execution started, the kernel entered            4-5
//	the kernel: limits, state busy                       6-7
//	the cell's value rewrite, the feed built, written   9-12
//	the first notifications written, the answer read   47-64
//	the result, state idle, the checkpoint journal       7-8
//	done, the response encoded                            11
//	idle, done and the response written                  2-4
//
// A run whose executions drain an idle document's queue stays on the
// read loop (callContext.keep): the cell runs on the goroutine that read
// the request. A watchdog releases a call kept for one to two milliseconds
// (one timer per connection, armed only while a call is kept), and every
// call to the client, and the wait for pulled settings, releases it first:
// the reader is never held by a cell that waits on the client, and
// $/cancelRequest, interrupts and edits are read while a long cell runs.
// The kernel configuration is built only for a new kernel.
//
// The worker is another process, whose answer the reader waits for in
// the read system call (monty.Config.BlockingReads), woken by the
// worker's write without a hand-off through Go's poller: spinning for it
// (75 → 47 µs of the hop on an idle machine) took the worker's CPU on a
// busy 2-CPU one (a trivial cell's median 19 µs without, 25-37 with).
// The run's first three notifications (queued, running, busy) are written
// once the cell is on its way (kernel.Request.OnSent), so the client reads
// them while the worker runs it; idle, done and the response leave in one
// write.
//
// What the server cannot do without has its own floor: bench/floor with
// the run's five notifications and one real round trip to a worker
// answers 0.08-0.11 ms after the bare floor, before any of the server's
// code; the server's own code adds 0.06-0.10 ms more (the steps above).
package lsp
