package auto

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/monty"
	"github.com/backyard-ls/backyard-ls/pysrc"
)

// A move carries Monty's values into the container instead of running the
// cells that made them again: plain data (numbers, strings, bytes,
// containers, dataclass instances, datetimes…) crosses as a value
// (monty.Graph, rebuilt by loaderCode), all of them as one object graph, so
// that an object several names (or Out[N] and a name) hold, or one that
// holds itself, is one object in the container as in Monty; what cannot cross
// (functions, classes, modules, open files, instances of other classes) is
// rebuilt by replaying the cells that define it. A cell that draws random
// values or reads the clock gets its values carried as soon as it ran, so
// that a replay of it (the container following Monty in the background)
// does not keep what it drew anew; a replay that rebuilds something that
// way says so in a note naming what it rebuilt.

// carryInput is the global the loader reads the carried values from.
const carryInput = "__backyard_carry__"

// loaderCode binds the names of carryInput (monty.Graph.Payload) to the
// objects it describes, each object made once, so that what several names
// hold, or what holds itself, is one object as it was in Monty. With
// "keep", the objects stay for the next load (in carryObjects), which
// makes again only those it has not and sets the mutable ones back to
// Monty's state; else it leaves no trace in the namespace.
const loaderCode = `def __backyard_load__(carried):
    import base64, datetime, decimal, uuid, pathlib
    g = globals()
    objs = g.pop('` + carryObjects + `', {})
    def zone(z):
        if z is None:
            return None
        td = datetime.timedelta(seconds=z[0])
        return datetime.timezone(td) if z[1] is None else datetime.timezone(td, z[1])
    def make(x):
        tag, v = x['$'], x.get('v')
        if tag == 'tuple':
            return tuple(objs[i] for i in v)
        if tag == 'frozenset':
            return frozenset(objs[i] for i in v)
        if tag == 'namedtuple':
            return g[x['cls']](*[objs[i] for i in v])
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
        raise ValueError('no such tag: %r' % tag)
    def fill(o, x):
        tag, v = x['$'], x['v']
        if tag == 'list':
            o[:] = [objs[i] for i in v]
        elif tag == 'set':
            o.clear()
            o.update(objs[i] for i in v)
        elif tag == 'dict':
            o.clear()
            o.update((objs[k], objs[w]) for k, w in v)
        else:
            d = getattr(o, '__dict__', None)
            if isinstance(d, dict):
                d.clear()
            for k, w in v:
                object.__setattr__(o, objs[k], objs[w])
    # The mutable objects first, empty: an object may hold one it is inside.
    mutable = {'list': list, 'set': set, 'dict': dict}
    for i, x in carried['objs']:
        if i not in objs and isinstance(x, dict) and x['$'] in mutable:
            objs[i] = mutable[x['$']]()
        elif i not in objs and isinstance(x, dict) and x['$'] == 'object':
            objs[i] = object.__new__(g[x['cls']])
    later = []
    for i, x in carried['objs']:
        if not isinstance(x, dict):
            objs.setdefault(i, x)
        elif x['$'] not in mutable and x['$'] != 'object':
            if i not in objs:
                objs[i] = make(x)
        elif all(j in objs for j in (x['v'] if x['$'] != 'dict' and x['$'] != 'object' else [j for p in x['v'] for j in p])):
            fill(objs[i], x)
        else:
            later.append((i, x)) # it holds a tuple that holds it, made since
    for i, x in later:
        fill(objs[i], x)
    for name, i in carried['names'].items():
        g[name] = objs[i]
    if carried.get('keep'):
        g['` + carryObjects + `'] = objs
__backyard_load__(` + carryInput + `)
del __backyard_load__, ` + carryInput

// carryObjects holds the objects of a load for the next one.
const carryObjects = "__backyard_carried__"

// maxCarriedNodes bounds the values a move carries (in the worker's wire
// nodes, about one per item; an object several names hold counts once):
// past it a name is rebuilt by replaying its cells instead.
const maxCarriedNodes = 2_000_000

// carried are values that crossed, as one object graph, and the names
// that could not.
type carried struct {
	graph *monty.Graph
	names []string // those carried, in order
	// later are those of values that hold instances of classes the
	// namespace defines: they are rebuilt once the classes are.
	later map[string]bool
	rest  []string // bound names that cannot be carried
}

// split is c's names in two: those rebuilt at once, and those later.
func (c carried) split() (now, later []string) {
	for _, n := range c.names {
		if c.later[n] {
			later = append(later, n)
		} else {
			now = append(now, n)
		}
	}
	return now, later
}

// payload is what load binds names with; keep: a load follows that
// binds more of the same objects.
func (c carried) payload(names []string, keep bool) map[string]any {
	p := c.graph.Payload(names)
	p["keep"] = keep
	return p
}

// carryFrom reads names from Monty and sorts them into what crosses as a
// value and what must be rebuilt; names not bound are left out.
func (a *Kernel) carryFrom(ctx context.Context, names []string) (carried, error) {
	c := carried{later: map[string]bool{}}
	vals, order, err := a.monty.Values(ctx, names)
	if err != nil {
		return c, err
	}
	c.graph = monty.NewGraph(order, vals)
	for _, n := range names {
		v, ok := vals[n]
		if !ok {
			continue
		}
		classes, err := c.graph.Add(n, v, maxCarriedNodes)
		if err != nil {
			c.rest = append(c.rest, n)
			continue
		}
		c.names = append(c.names, n)
		c.later[n] = len(classes) > 0
	}
	return c, nil
}

// load binds the carried values in the container (payload: nil binds
// none).
func load(ctx context.Context, ctr kernel.Kernel, payload map[string]any) error {
	if payload == nil {
		return nil
	}
	r, err := ctr.Execute(ctx, kernel.Request{Code: loaderCode, Silent: true, Inputs: map[string]any{carryInput: payload}})
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
	if len(c.names) == 0 {
		return nil, c.rest
	}
	return c.payload(c.names, false), c.rest
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
	rebuilds := make([][]string, len(journal))
	replays := false
	for i, e := range journal {
		for _, n := range bound[i] {
			if slices.Contains(c.rest, n) {
				rebuilds[i] = append(rebuilds[i], n)
			}
		}
		replays = replays || len(rebuilds[i]) > 0 || e.wrote || e.future || e.setting
	}
	now, again := c.split()
	// The objects of the first load stay for the second, which binds
	// what needs the classes the replays define and what they bound anew.
	keep := len(now) > 0 && (replays || len(again) > 0)
	if len(now) > 0 {
		if err := load(ctx, ctr, c.payload(now, keep)); err != nil {
			return false, err
		}
	}
	var notes []string
	for i, e := range journal {
		if len(rebuilds[i]) == 0 && !e.wrote && !e.future && !e.setting {
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
			return false, fmt.Errorf("rebuilding %s: %s", strings.Join(rebuilds[i], ", "), errorText(r))
		}
		for _, n := range bound[i] {
			if slices.Contains(c.names, n) && n != outName(e.filed.Count) && !slices.Contains(again, n) {
				again = append(again, n) // the replay bound it anew: Monty's value wins (not its Out[N], which the replay filed)
			}
		}
		if len(e.draws) > 0 && len(rebuilds[i]) > 0 {
			notes = append(notes, redrawn(rebuilds[i], e.draws))
		}
	}
	if keep || len(again) > 0 {
		if err := load(ctx, ctr, c.payload(again, false)); err != nil {
			return false, err
		}
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
