// Package auto is the auto kernel: Monty first, a container when a cell
// needs full CPython. It owns the routing: what the pinned Monty worker
// supports, probed from the worker itself (capabilities.go), the decision
// before a cell runs and the reading of Monty's errors after it (route.go),
// and the move with its replay (auto.go).
package auto
