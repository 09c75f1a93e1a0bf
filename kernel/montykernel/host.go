package montykernel

import (
	"context"
	"errors"

	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/monty"
)

// workerFuncs adapts host functions for the worker: a *kernel.HostError
// raises its own type in the cell.
func workerFuncs(fns map[string]kernel.HostFunc) map[string]monty.Func {
	if len(fns) == 0 {
		return nil
	}
	out := make(map[string]monty.Func, len(fns))
	for name, f := range fns {
		out[name] = func(ctx context.Context, args []any, kwargs map[string]any) (any, error) {
			v, err := f(ctx, args, kwargs)
			var he *kernel.HostError
			if errors.As(err, &he) {
				return nil, &monty.Exception{Type: he.Type, Message: he.Message}
			}
			return v, err
		}
	}
	return out
}
