package monty

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	"github.com/backyard-ls/backyard-ls/monty/internal/pb"
)

// Graph is values in a JSON-compatible form that another Python rebuilds
// them from (the auto kernel's loader does, in a container), as one object
// graph: an object that several values hold, or that holds itself, is one
// object there too, as in Monty. The values that share objects must come
// from one arena (one feed that returned them together); the worker's
// arena keeps one node per object it sent, and one cycle node where an
// object refers back to one it is inside.
//
// Every object is an entry of a table, by id: None, bool, int, finite
// float and str as JSON; every other type tagged, {"$": tag, "v": …}, a
// container's items by id. Ids follow the worker's post-order, so an
// item's id is below its container's but for a container that refers back
// to one it is inside.
type Graph struct {
	// back is a cycle node's object; nil: it cannot be told which.
	back map[*pb.MontyNode]*pb.MontyNode
	ids  map[*pb.MontyNode]int
	objs []any
	kids [][]int
	cls  []string // the class of the namespace an object needs, or ""
	root map[string]int
}

// NewGraph prepares vals (those of names, in the order the worker sent
// them) to be added to a graph.
func NewGraph(names []string, vals map[string]*Value) *Graph {
	g := &Graph{back: map[*pb.MontyNode]*pb.MontyNode{}, ids: map[*pb.MontyNode]int{}, root: map[string]int{}}
	w := walk{back: g.back, seen: map[*pb.MontyNode]bool{}, last: map[*pb.MontyNode]int{}, faithful: true}
	for _, n := range names {
		if v := vals[n]; v != nil && len(v.nodes) > 0 {
			w.visit(v, v.root)
		}
	}
	if !w.faithful {
		clear(g.back)
	}
	return g
}

// walk follows an arena as the worker wrote it, to find the object each
// cycle node stands for: the one it is inside whose kind its text names.
// It is unambiguous when one such object is on the path.
type walk struct {
	back     map[*pb.MontyNode]*pb.MontyNode
	seen     map[*pb.MontyNode]bool
	last     map[*pb.MontyNode]int // an arena (by its first node) → the last index written
	path     []*pb.MontyNode
	faithful bool // the walk met the nodes in the worker's order
}

func (w *walk) visit(v *Value, i uint32) {
	n := v.node(i)
	if n == nil || w.seen[n] {
		return
	}
	w.seen[n] = true
	if c, ok := n.Kind.(*pb.MontyNode_Cycle); ok {
		var found []*pb.MontyNode
		for _, a := range w.path {
			if cycleOf(c.Cycle, a) {
				found = append(found, a)
			}
		}
		if len(found) == 1 {
			w.back[n] = found[0]
		} else {
			w.back[n] = nil
		}
	} else {
		w.path = append(w.path, n)
		for _, c := range children(n, true) {
			w.visit(v, c)
		}
		w.path = w.path[:len(w.path)-1]
	}
	// The worker writes a node once its items are written.
	arena := v.nodes[0]
	if last, ok := w.last[arena]; ok && int(i) <= last {
		w.faithful = false
	}
	w.last[arena] = int(i)
}

// cycleOf reports whether the cycle node's text may stand for a.
func cycleOf(text string, a *pb.MontyNode) bool {
	switch a.Kind.(type) {
	case *pb.MontyNode_List:
		return text == "[...]"
	case *pb.MontyNode_Dict, *pb.MontyNode_Set:
		return text == "{...}"
	case *pb.MontyNode_Tuple, *pb.MontyNode_NamedTuple:
		return text == "(...)"
	case *pb.MontyNode_ClassInstance:
		return text == "..."
	}
	return false
}

// children are the nodes n refers to, in the order the worker writes them;
// all also names those the graph does not carry (a class, a module's
// attributes).
func children(n *pb.MontyNode, all bool) []uint32 {
	pairs := func(ps []*pb.NodePair) []uint32 {
		out := make([]uint32, 0, 2*len(ps))
		for _, p := range ps {
			out = append(out, p.Key, p.Value)
		}
		return out
	}
	if items, ok := seqItems(n); ok {
		return items
	}
	switch k := n.Kind.(type) {
	case *pb.MontyNode_NamedTuple:
		return k.NamedTuple.Values
	case *pb.MontyNode_Dict:
		return pairs(k.Dict.Pairs)
	case *pb.MontyNode_ClassInstance:
		if all {
			return append([]uint32{k.ClassInstance.ClassType}, pairs(k.ClassInstance.GetAttrs().GetPairs())...)
		}
		return pairs(k.ClassInstance.GetAttrs().GetPairs())
	case *pb.MontyNode_Type:
		if all {
			return pairs(k.Type.GetAttrs().GetPairs())
		}
	case *pb.MontyNode_Module:
		if all {
			return pairs(k.Module.GetAttrs().GetPairs())
		}
	}
	return nil
}

// Add adds name's value to the graph, unless the graph would then hold
// more than limit objects. It returns the classes of the namespace its
// objects need (the dataclasses and named tuples they are instances of),
// which must exist where it is rebuilt. The error names what cannot be
// carried: a function, a class, a module, an open file, an instance of a
// class that is not a dataclass, a structure that refers to itself in a
// way the arena does not tell; the graph is then as it was.
func (g *Graph) Add(name string, v *Value, limit int) (classes []string, err error) {
	p := portable{g: g, v: v, adding: map[*pb.MontyNode]bool{}}
	r, err := p.visit(v.root, 0)
	if err != nil {
		return nil, err
	}
	if len(g.objs)+len(p.order) > limit {
		return nil, fmt.Errorf("more than %d objects", limit)
	}
	for _, n := range p.order {
		g.ids[n] = len(g.objs) + len(p.forms)
		p.forms = append(p.forms, nil)
	}
	for i, n := range p.order {
		form, kids, cls := p.form(n)
		p.forms[i] = form
		g.kids = append(g.kids, kids)
		g.cls = append(g.cls, cls)
	}
	g.objs = append(g.objs, p.forms...)
	g.root[name] = g.ids[g.resolve(r)]
	seen := map[string]bool{}
	for _, id := range g.closure([]string{name}) {
		if c := g.cls[id]; c != "" && !seen[c] {
			seen[c] = true
			classes = append(classes, c)
		}
	}
	slices.Sort(classes)
	return classes, nil
}

// Len is the number of objects the graph holds.
func (g *Graph) Len() int { return len(g.objs) }

// Payload is what rebuilds names (added before): {"objs": [[id, form],
// …] for every object they reach, in id order, "names": {name: id}}.
func (g *Graph) Payload(names []string) map[string]any {
	objs := []any{}
	for _, id := range g.closure(names) {
		objs = append(objs, []any{id, g.objs[id]})
	}
	bind := map[string]any{}
	for _, n := range names {
		bind[n] = g.root[n]
	}
	return map[string]any{"objs": objs, "names": bind}
}

// closure is the ids of the objects names reach, in order.
func (g *Graph) closure(names []string) []int {
	seen := map[int]bool{}
	var stack []int
	for _, n := range names {
		if id, ok := g.root[n]; ok && !seen[id] {
			seen[id] = true
			stack = append(stack, id)
		}
	}
	for len(stack) > 0 {
		id := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, k := range g.kids[id] {
			if !seen[k] {
				seen[k] = true
				stack = append(stack, k)
			}
		}
	}
	ids := make([]int, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// resolve is the object node n stands for.
func (g *Graph) resolve(n *pb.MontyNode) *pb.MontyNode {
	if t, ok := g.back[n]; ok && t != nil {
		return t
	}
	return n
}

// portable adds one value to a graph: it checks the nodes the graph does
// not hold yet and lists them in post-order.
type portable struct {
	g      *Graph
	v      *Value
	adding map[*pb.MontyNode]bool
	order  []*pb.MontyNode
	forms  []any
}

// maxPortableDepth bounds nesting, as it did when each value crossed as
// one nested JSON value (whose own bound is 100, two a level).
const maxPortableDepth = 45

// errUntoldCycle: a cycle node whose object the arena does not name, or
// an immutable object that holds one it is inside.
var errUntoldCycle = errors.New("a structure that refers to itself in a way its form does not tell")

func tagged(tag string, v any) map[string]any { return map[string]any{"$": tag, "v": v} }

// visit checks node i and what it holds, and returns the node that stands
// for it (a cycle node's object).
func (p *portable) visit(i uint32, depth int) (*pb.MontyNode, error) {
	n := p.v.node(i)
	if n == nil {
		return nil, fmt.Errorf("a value the worker did not send whole")
	}
	if _, ok := n.Kind.(*pb.MontyNode_Cycle); ok {
		t := p.g.back[n]
		if _, held := p.g.ids[t]; t == nil || !held && !p.adding[t] {
			return nil, errUntoldCycle
		}
		return t, nil
	}
	if _, ok := p.g.ids[n]; ok || p.adding[n] {
		return n, nil
	}
	if depth > maxPortableDepth {
		return nil, fmt.Errorf("a value nested more than %d levels deep", maxPortableDepth)
	}
	if err := p.check(i, n); err != nil {
		return nil, err
	}
	p.adding[n] = true
	for _, c := range children(n, false) {
		t, err := p.visit(c, depth+1)
		if err != nil {
			return nil, err
		}
		if t != p.v.node(c) && !mutable(n) {
			// Only a mutable object can come to hold one it is inside.
			return nil, errUntoldCycle
		}
	}
	p.order = append(p.order, n)
	return n, nil
}

func mutable(n *pb.MontyNode) bool {
	switch n.Kind.(type) {
	case *pb.MontyNode_List, *pb.MontyNode_Dict, *pb.MontyNode_Set, *pb.MontyNode_ClassInstance:
		return true
	}
	return false
}

// check says why node i cannot be carried, if it cannot.
func (p *portable) check(i uint32, n *pb.MontyNode) error {
	if _, ok := jsonScalar(n); ok {
		return nil
	}
	switch k := n.Kind.(type) {
	case *pb.MontyNode_Ellipsis, *pb.MontyNode_Float, *pb.MontyNode_Bytes, *pb.MontyNode_Complex, *pb.MontyNode_Decimal,
		*pb.MontyNode_Uuid, *pb.MontyNode_Path, *pb.MontyNode_List, *pb.MontyNode_Tuple, *pb.MontyNode_Set, *pb.MontyNode_FrozenSet,
		*pb.MontyNode_Dict, *pb.MontyNode_Date, *pb.MontyNode_Time, *pb.MontyNode_Datetime, *pb.MontyNode_Timedelta,
		*pb.MontyNode_Timezone, *pb.MontyNode_NamedTuple:
		return nil
	case *pb.MontyNode_ClassInstance:
		t := p.v.node(k.ClassInstance.ClassType).GetType()
		if t == nil || !t.IsDataclass || t.Origin == pb.TypeOrigin_TYPE_ORIGIN_BUILTIN {
			return fmt.Errorf("an instance of %s, which is not a dataclass", typeName(&Value{nodes: p.v.nodes, root: i}))
		}
		return nil
	}
	// A function, a class, a module, an open file, an exception…
	return fmt.Errorf("a value of type %s", typeName(&Value{nodes: p.v.nodes, root: i}))
}

// form is node n's entry in the table, the ids of the objects it holds and
// the class of the namespace it needs.
func (p *portable) form(n *pb.MontyNode) (form any, kids []int, cls string) {
	id := func(c uint32) int {
		k := p.g.ids[p.g.resolve(p.v.node(c))]
		kids = append(kids, k)
		return k
	}
	ids := func(items []uint32) []any {
		out := make([]any, len(items))
		for i, c := range items {
			out[i] = id(c)
		}
		return out
	}
	pairs := func(ps []*pb.NodePair) []any {
		out := make([]any, len(ps))
		for i, pr := range ps {
			out[i] = []any{id(pr.Key), id(pr.Value)}
		}
		return out
	}
	if v, ok := jsonScalar(n); ok {
		return v, nil, ""
	}
	switch k := n.Kind.(type) {
	default:
		panic("form of a node check refused") // check lets only the kinds here through
	case *pb.MontyNode_Ellipsis:
		return tagged("ellipsis", nil), nil, ""
	case *pb.MontyNode_Float:
		return tagged("float", FloatRepr(k.Float)), nil, ""
	case *pb.MontyNode_Bytes:
		return tagged("bytes", base64.StdEncoding.EncodeToString(k.Bytes)), nil, ""
	case *pb.MontyNode_Complex:
		return tagged("complex", []any{FloatRepr(k.Complex.GetReal()), FloatRepr(k.Complex.GetImag())}), nil, ""
	case *pb.MontyNode_Decimal:
		return tagged("decimal", k.Decimal), nil, ""
	case *pb.MontyNode_Uuid:
		return tagged("uuid", hex.EncodeToString(k.Uuid.Data)), nil, ""
	case *pb.MontyNode_Path:
		return tagged("path", k.Path), nil, ""
	case *pb.MontyNode_List:
		form = tagged("list", ids(k.List.Items))
	case *pb.MontyNode_Tuple:
		form = tagged("tuple", ids(k.Tuple.Items))
	case *pb.MontyNode_Set:
		form = tagged("set", ids(k.Set.Items))
	case *pb.MontyNode_FrozenSet:
		form = tagged("frozenset", ids(k.FrozenSet.Items))
	case *pb.MontyNode_Dict:
		form = tagged("dict", pairs(k.Dict.Pairs))
	case *pb.MontyNode_Date:
		return tagged("date", []any{int64(k.Date.Year), int64(k.Date.Month), int64(k.Date.Day)}), nil, ""
	case *pb.MontyNode_Time:
		t := k.Time
		return tagged("time", []any{int64(t.Hour), int64(t.Minute), int64(t.Second), int64(t.Microsecond), zone(t.OffsetSeconds, t.TimezoneName), int64(t.Fold)}), nil, ""
	case *pb.MontyNode_Datetime:
		t := k.Datetime
		return tagged("datetime", []any{int64(t.Year), int64(t.Month), int64(t.Day), int64(t.Hour), int64(t.Minute), int64(t.Second), int64(t.Microsecond),
			zone(t.OffsetSeconds, t.TimezoneName)}), nil, ""
	case *pb.MontyNode_Timedelta:
		t := k.Timedelta
		return tagged("timedelta", []any{int64(t.Days), int64(t.Seconds), int64(t.Microseconds)}), nil, ""
	case *pb.MontyNode_Timezone:
		off := k.Timezone.OffsetSeconds
		return tagged("timezone", zone(&off, k.Timezone.Name)), nil, ""
	case *pb.MontyNode_NamedTuple:
		form, cls = map[string]any{"$": "namedtuple", "cls": k.NamedTuple.TypeName, "v": ids(k.NamedTuple.Values)}, k.NamedTuple.TypeName
	case *pb.MontyNode_ClassInstance:
		t := p.v.node(k.ClassInstance.ClassType).GetType()
		form, cls = map[string]any{"$": "object", "cls": t.Name, "v": pairs(k.ClassInstance.GetAttrs().GetPairs())}, t.Name
	}
	return form, kids, cls
}

// zone is a time zone's portable form: nil, or [offset seconds, name or nil].
func zone(offset *int32, name *string) any {
	if offset == nil {
		return nil
	}
	var n any
	if name != nil {
		n = *name
	}
	return []any{int64(*offset), n}
}
