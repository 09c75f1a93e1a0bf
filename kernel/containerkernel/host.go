package containerkernel

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/kernel"
)

func funcNames(fns map[string]kernel.HostFunc) []string {
	return slices.Sorted(maps.Keys(fns))
}

// onCall runs the host functions a cell calls, under the cell's ctx (an
// interrupt ends it); a *kernel.HostError raises its own type.
func onCall(ctx context.Context, fns map[string]kernel.HostFunc) container.HostFunc {
	if len(fns) == 0 {
		return nil
	}
	return func(_ context.Context, name string, args []any, kwargs map[string]any) (any, error) {
		f := fns[name]
		if f == nil {
			return nil, &container.PyError{EName: "NameError", EValue: "name '" + name + "' is not defined"}
		}
		v, err := f(ctx, args, kwargs)
		if ctx.Err() != nil {
			// Interrupted while on the host: the cell stops at the call,
			// as on Monty (the SIGINT may come after the reply).
			return nil, &container.PyError{EName: "KeyboardInterrupt"}
		}
		var he *kernel.HostError
		if errors.As(err, &he) {
			return nil, &container.PyError{EName: he.Type, EValue: he.Message}
		}
		return v, err
	}
}
