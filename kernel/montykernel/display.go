package montykernel

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel/internal/kcore"
	"github.com/backyard-ls/backyard-ls/monty"
)

// displayFunc is the host function the prelude's display() calls with an
// object's repr and its display id.
const displayFunc = "__backyard_display__"

// displayPrelude defines IPython's display() builtin on Monty: each object
// becomes a text/plain display output (its text as IPython's pretty
// printer shows it), as IPython shows an object without other
// representations; past 1 MiB of text, its repr (which the output limit
// cuts, as any). Without the host function (a replay) it shows
// nothing. It also defines valueFunc, which gives a cell's value as
// __backyard_shown__ does, a repr as the pair of its length and its first
// m characters.
const displayPrelude = prettyPrelude + `def display(*objs, display_id=None, clear=False, **kwargs):
    for o in objs:
        try:
            ` + displayFunc + `(__backyard_shown__(o, 1048576), display_id)
        except NameError:
            pass
    return None
def ` + valueFunc + `(v, m, sigs=None, n=0, bound=None):  # bound: _n, bound by the call
    global _, __, ___
    t = type(v)
    if t is int or t is str or t is float or t is bool:
        s = repr(v)
        r = (len(s), s[:m])
    else:
        s = __backyard_shown__(v, m)
        r = (len(s), s[:m]) if type(s) is str else s
    if n and v is not None and v is not Out:
        Out[n] = v  # after the value is shown, as IPython's display hook files it
        kept, given = __backyard_unders__, __backyard_given__
        update = _ is given[0] and __ is given[1] and ___ is given[2]
        kept[2], kept[1], kept[0] = kept[1], kept[0], v
        if update:
            ___, __, _ = kept[2], kept[1], kept[0]
            given[2], given[1], given[0] = kept[2], kept[1], kept[0]
    return r
`

// historyPrelude starts IPython's output history (Options.History) as
// IPython's shell starts it: Out empty, the last three values empty
// strings, the directory history (_dh) the working directory. IPython
// keeps the last three values (__backyard_unders__) and
// gives them to _, __ and ___ unless a cell assigned one of them since it
// last did (__backyard_given__).
const historyPrelude = `Out = {}
_oh = Out
_ = ''
__ = ''
___ = ''
__backyard_unders__ = [_, __, ___]
__backyard_given__ = [_, __, ___]
from pathlib import Path as __backyard_Path__
_dh = [__backyard_Path__.cwd()]
`

// history is IPython's input history (Options.History): In and the _i
// names, which a cell gets as inputs.
type history struct {
	in []string // by execution count, each cell as IPython transforms it
	// i00 is the last cell as written; i, ii and iii those before it.
	i00, i, ii, iii string
}

// inputs are a cell's inputs (given) with the input history as cell n
// starts: In holds code, the cell as IPython transforms it, and _iN raw,
// the cell as written; names are those it mentions: In and _ih, a list
// made anew, only for a cell that names them.
func (h *history) inputs(given map[string]any, n int, code, raw string, names []string) map[string]any {
	code, raw = strings.TrimRight(code, "\n"), strings.TrimRight(raw, "\n")
	if len(h.in) == 0 {
		h.in = []string{""}
	}
	h.in = h.in[:min(len(h.in), n)] // the count started again
	for len(h.in) < n {
		h.in = append(h.in, "")
	}
	h.in = append(h.in, code)
	h.iii, h.ii, h.i, h.i00 = h.ii, h.i, h.i00, raw
	out := map[string]any{"_i": h.i, "_ii": h.ii, "_iii": h.iii, "_i" + strconv.Itoa(n): raw}
	if slices.Contains(names, "In") || slices.Contains(names, "_ih") {
		l := make([]any, len(h.in))
		for i, s := range h.in {
			l[i] = s
		}
		out["In"], out["_ih"] = l, l
	}
	maps.Copy(out, given) // the caller's own inputs win
	return out
}

// valueFunc is the prelude's function that a kernel cell's trailing
// expression is passed to (preludeDisplayCode).
const valueFunc = "__backyard_value__"

// displayed collects a cell's display outputs.
type displayed struct {
	mu sync.Mutex
	ds *kcore.Displays
}

// bind adds the display host function to a cell's functions; names ties
// the functions shown to their defs.
func (d *displayed) bind(fns map[string]monty.Func, max int, names *funcNames) map[string]monty.Func {
	d.ds = kcore.NewDisplays(max)
	if fns == nil {
		fns = map[string]monty.Func{}
	}
	fns[displayFunc] = func(_ context.Context, args []any, _ map[string]any) (any, error) {
		text := shownText(args[0], names)
		id, _ := args[1].(string)
		d.mu.Lock()
		defer d.mu.Unlock()
		d.ds.Add(map[string]string{"text/plain": text}, nil, id, false, false, false)
		return nil, nil
	}
	return fns
}

// list is the outputs, each placed within streams of stdout and stderr bytes.
func (d *displayed) list(stdout, stderr int) []contract.Display {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.ds == nil {
		return nil
	}
	d.ds.Clamp(stdout, stderr)
	return d.ds.List()
}

// first is the first of two results.
func first[T any](v T, _ bool) T { return v }
