package kcore

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"

	"github.com/backyard-ls/backyard-ls/kernel"
)

// HostCall is what one host function call answered.
type HostCall struct {
	Name  string
	Value any
	Err   error
}

// Replayable is what re-running an execution needs so that it does what
// it did the first time: its code, its inputs and what its host functions
// answered. A kernel replays executions after a killed worker or a move to
// another backend; the host functions are not called again (they may
// have effects).
type Replayable struct {
	Code   string
	Inputs map[string]any
	Funcs  []string // the host function names it had
	Calls  []HostCall
}

// Recording wraps the request's host functions so that every answer is
// kept (in call order) in the returned Replayable.
func Recording(req kernel.Request) (map[string]kernel.HostFunc, *Replayable) {
	r := &Replayable{Code: req.Code, Inputs: req.Inputs, Funcs: slices.Sorted(maps.Keys(req.Functions))}
	if len(req.Functions) == 0 {
		return nil, r
	}
	var mu sync.Mutex // threads of a container cell may call concurrently
	out := make(map[string]kernel.HostFunc, len(req.Functions))
	for name, f := range req.Functions {
		out[name] = func(ctx context.Context, args []any, kwargs map[string]any) (any, error) {
			v, err := f(ctx, args, kwargs)
			mu.Lock()
			r.Calls = append(r.Calls, HostCall{Name: name, Value: v, Err: err})
			mu.Unlock()
			return v, err
		}
	}
	return out, r
}

// Request is the silent request that replays r: its host functions answer
// with the recorded answers, in order, without calling the host.
func (r *Replayable) Request() kernel.Request {
	req := kernel.Request{Code: r.Code, Silent: true, Inputs: r.Inputs}
	if len(r.Funcs) == 0 {
		return req
	}
	var mu sync.Mutex
	next := 0
	req.Functions = make(map[string]kernel.HostFunc, len(r.Funcs))
	for _, name := range r.Funcs {
		req.Functions[name] = func(context.Context, []any, map[string]any) (any, error) {
			mu.Lock()
			defer mu.Unlock()
			if next >= len(r.Calls) || r.Calls[next].Name != name {
				return nil, &kernel.HostError{Type: "RuntimeError", Message: fmt.Sprintf("replay: %s() was not called here the first time", name)}
			}
			c := r.Calls[next]
			next++
			return c.Value, c.Err
		}
	}
	return req
}
