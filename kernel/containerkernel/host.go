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

// pipCall is the host call of the driver's %pip install: its argument is
// the magic's line, its result the text the cell prints to stderr.
const pipCall = "__backyard_pip_install__"

// onCall runs the host functions a cell calls, under the cell's ctx (an
// interrupt ends it); a *kernel.HostError raises its own type. pip, when
// set, runs the cell's %pip install lines.
func onCall(ctx context.Context, fns map[string]kernel.HostFunc, pip func(context.Context, string) string) container.HostFunc {
	if len(fns) == 0 && pip == nil {
		return nil
	}
	return func(_ context.Context, name string, args []any, kwargs map[string]any) (any, error) {
		if name == pipCall && pip != nil {
			line, _ := firstString(args)
			text := pip(ctx, line)
			if ctx.Err() != nil {
				return nil, &container.PyError{EName: "KeyboardInterrupt"}
			}
			return text, nil
		}
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

func firstString(args []any) (string, bool) {
	if len(args) == 0 {
		return "", false
	}
	v, ok := args[0].(string)
	return v, ok
}
