package auto

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/pysrc"
)

// A move carries Monty's values into the container instead of running the
// cells that made them again: plain data (numbers, strings, bytes,
// containers, dataclass instances, datetimes…) crosses as a value
// (monty.Value.Portable, rebuilt by loaderCode); what cannot cross
// (functions, classes, modules, open files, instances of other classes) is
// rebuilt by replaying the cells that define it. A cell that draws random
// values or reads the clock gets its values carried as soon as it ran, so
// that a replay of it (the container following Monty in the background)
// does not keep what it drew anew; a replay that rebuilds something that
// way says so in a note naming what it rebuilt.

// carryInput is the global the loader reads the carried values from.
const carryInput = "__backyard_carry__"

// loaderCode binds every name of carryInput to the value it describes, then
// leaves no trace in the namespace.
const loaderCode = `def __backyard_load__(carried):
    import base64, datetime, decimal, uuid, pathlib
    g = globals()
    def zone(z):
        if z is None:
            return None
        td = datetime.timedelta(seconds=z[0])
        return datetime.timezone(td) if z[1] is None else datetime.timezone(td, z[1])
    def load(x):
        if isinstance(x, list):
            return [load(i) for i in x]
        if not isinstance(x, dict):
            return x
        tag, v = x['$'], x.get('v')
        if tag == 'tuple':
            return tuple(load(i) for i in v)
        if tag == 'set':
            return {load(i) for i in v}
        if tag == 'frozenset':
            return frozenset(load(i) for i in v)
        if tag == 'dict':
            return {load(k): load(w) for k, w in v}
        if tag == 'bytes':
            return base64.b64decode(v)
        if tag == 'float':
            return float(v)
        if tag == 'complex':
            return complex(float(v[0]), float(v[1]))
        if tag == 'decimal':
            return decimal.Decimal(v)
        if tag == 'uuid':
            return uuid.UUID(hex=v)
        if tag == 'path':
            return pathlib.PosixPath(v)
        if tag == 'ellipsis':
            return ...
        if tag == 'date':
            return datetime.date(*v)
        if tag == 'time':
            return datetime.time(v[0], v[1], v[2], v[3], tzinfo=zone(v[4]), fold=v[5])
        if tag == 'datetime':
            return datetime.datetime(*v[:7], tzinfo=zone(v[7]))
        if tag == 'timedelta':
            return datetime.timedelta(days=v[0], seconds=v[1], microseconds=v[2])
        if tag == 'timezone':
            return zone(v)
        if tag == 'namedtuple':
            return g[x['cls']](*[load(i) for i in v])
        if tag == 'object':
            o = object.__new__(g[x['cls']])
            for k, w in v:
                object.__setattr__(o, load(k), load(w))
            return o
        raise ValueError('no such tag: %r' % tag)
    for name, x in carried.items():
        g[name] = load(x)
__backyard_load__(` + carryInput + `)
del __backyard_load__, ` + carryInput

// maxCarriedNodes bounds the values a move carries (in the worker's wire
// nodes, about one per item): past it a name is rebuilt by replaying its
// cells instead.
const maxCarriedNodes = 2_000_000

// carried are values that crossed, and the names that could not.
type carried struct {
	values map[string]any // name → portable form
	// later are those of values that hold instances of classes the
	// namespace defines: they are rebuilt once the classes are.
	later map[string]bool
	rest  []string // bound names that cannot be carried
	nodes int
}

// split is c's values in two: those rebuilt at once, and those later.
func (c carried) split() (now, later map[string]any) {
	now, later = map[string]any{}, map[string]any{}
	for n, v := range c.values {
		if c.later[n] {
			later[n] = v
		} else {
			now[n] = v
		}
	}
	return now, later
}

// carryFrom reads names from Monty and sorts them into what crosses as a
// value and what must be rebuilt; names not bound are left out.
func (a *Kernel) carryFrom(ctx context.Context, names []string) (carried, error) {
	c := carried{values: map[string]any{}, later: map[string]bool{}}
	if len(names) == 0 {
		return c, nil
	}
	vals, err := a.monty.Values(ctx, names)
	if err != nil {
		return c, err
	}
	for _, n := range names {
		v, ok := vals[n]
		if !ok {
			continue
		}
		if c.nodes+v.Nodes() > maxCarriedNodes {
			c.rest = append(c.rest, n)
			continue
		}
		p, classes, err := v.Portable()
		if err != nil {
			c.rest = append(c.rest, n)
			continue
		}
		c.values[n] = p
		c.later[n] = len(classes) > 0
		c.nodes += v.Nodes()
	}
	return c, nil
}

// load binds the carried values in the container.
func load(ctx context.Context, ctr kernel.Kernel, values map[string]any) error {
	if len(values) == 0 {
		return nil
	}
	r, err := ctr.Execute(ctx, kernel.Request{Code: loaderCode, Silent: true, Inputs: map[string]any{carryInput: values}})
	if err == nil && r.Status != kernel.StatusOK {
		err = fmt.Errorf("%s", errorText(r))
	}
	if err != nil {
		return fmt.Errorf("carry values into the container: %w", err)
	}
	return nil
}

// drawnCarry reads, right after a cell that draws ran on Monty, the values
// of the names it bound: a replay of the cell in the container then keeps
// Monty's. It returns them with the names that cannot be carried.
func (a *Kernel) drawnCarry(ctx context.Context, code string, draws []string) (map[string]any, []string) {
	if len(draws) == 0 {
		return nil, nil
	}
	names, _ := pysrc.Bindings(code)
	c, err := a.carryFrom(ctx, names)
	if err != nil {
		a.log.Info("reading a drawing cell's values", zap.Error(err))
		return nil, names
	}
	return c.values, c.rest
}

// redrawn is the note of names rebuilt in the container by a cell that
// draws.
func redrawn(names, draws []string) string {
	return fmt.Sprintf("%s rebuilt in the container by running their cell again, which reads %s anew: they may differ from Monty's",
		strings.Join(names, ", "), strings.Join(draws, " and "))
}

// carryAll rebuilds Monty's namespace in an empty container: the values of
// every name the journal's cells bound, then the cells that define what
// cannot be carried (and those that wrote files, import from __future__
// or change a setting of the kernel), then the values those cells bound
// again. The caller holds sync; gen is the journal's generation. It reports false when the
// journal cannot be carried (a star import binds names it cannot know): it
// is then replayed.
func (a *Kernel) carryAll(ctx context.Context, ctr kernel.Kernel, gen int) (bool, error) {
	a.mu.Lock()
	journal := slices.Clone(a.journal)
	a.mu.Unlock()
	var names, outs []string
	bound := make([][]string, len(journal))
	for i, e := range journal {
		ns, star := pysrc.Bindings(e.rec.Code)
		if star {
			return false, nil
		}
		for _, n := range ns {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
		if e.filed.Value {
			// Its value, which the container files as Out[N] from _N;
			// after the variables, which come first in the carry's bound.
			ns = append(ns, outName(e.filed.Count))
			outs = append(outs, ns[len(ns)-1])
		}
		bound[i] = ns
	}
	for _, n := range outs {
		if !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	c, err := a.carryFrom(ctx, names)
	if err != nil {
		return false, err
	}
	now, again := c.split()
	if err := load(ctx, ctr, now); err != nil {
		return false, err
	}
	var notes []string
	for i, e := range journal {
		var rebuilds []string
		for _, n := range bound[i] {
			if slices.Contains(c.rest, n) {
				rebuilds = append(rebuilds, n)
			}
		}
		if len(rebuilds) == 0 && !e.wrote && !e.future && !e.setting {
			continue // everything it bound crossed as a value
		}
		r, err := ctr.Execute(ctx, a.replay(e))
		if err != nil {
			return false, err
		}
		if r.Status != kernel.StatusOK && r.Status != kernel.StatusError {
			if ctx.Err() != nil {
				return false, context.Cause(ctx)
			}
			a.drop(gen, e, r)
			return false, fmt.Errorf("rebuilding %s: %s", strings.Join(rebuilds, ", "), errorText(r))
		}
		for _, n := range bound[i] {
			if v, ok := c.values[n]; ok && n != outName(e.filed.Count) {
				again[n] = v // the replay bound it anew: Monty's value wins (not its Out[N], which the replay filed)
			}
		}
		if len(e.draws) > 0 && len(rebuilds) > 0 {
			notes = append(notes, redrawn(rebuilds, e.draws))
		}
	}
	if err := load(ctx, ctr, again); err != nil {
		return false, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.gen == gen {
		a.synced = len(journal)
		a.lost = append(a.lost, notes...)
	}
	return true, nil
}

// outName is the global that holds Out[n] in IPython's shell.
func outName(n int) string { return "_" + strconv.Itoa(n) }
