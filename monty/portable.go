package monty

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"slices"

	"github.com/backyard-ls/backyard-ls/monty/internal/pb"
)

// Nodes is the number of nodes the value's wire form holds (a bound on the
// work of walking it).
func (v *Value) Nodes() int {
	if v == nil {
		return 0
	}
	return len(v.nodes)
}

// Portable is the value in a JSON-compatible form that another Python
// rebuilds it from (the auto kernel's loader does, in a container): None,
// bool, int, finite float, str and list as JSON; every other type tagged,
// as an object {"$": tag, "v": …}. classes are the names of the classes of
// the dataclass instances and named tuples it holds: they must exist where
// it is rebuilt. The error names what cannot be carried: a function, a
// class, a module, an open file, an instance of a class that is not a
// dataclass, a structure that refers to itself.
func (v *Value) Portable() (value any, classes []string, err error) {
	p := portable{v: v, classes: map[string]bool{}}
	value, err = p.of(v.root, 0)
	if err != nil {
		return nil, nil, err
	}
	for c := range p.classes {
		classes = append(classes, c)
	}
	slices.Sort(classes)
	return value, classes, nil
}

type portable struct {
	v       *Value
	classes map[string]bool
}

// maxPortableDepth bounds nesting: each level takes two in the JSON form,
// whose own bound is 100.
const maxPortableDepth = 45

func tagged(tag string, v any) map[string]any { return map[string]any{"$": tag, "v": v} }

func (p *portable) all(items []uint32, depth int) ([]any, error) {
	out := make([]any, len(items))
	for i, it := range items {
		x, err := p.of(it, depth+1)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

func (p *portable) pairs(ps []*pb.NodePair, depth int) ([]any, error) {
	out := make([]any, len(ps))
	for i, pr := range ps {
		k, err := p.of(pr.Key, depth+1)
		if err != nil {
			return nil, err
		}
		v, err := p.of(pr.Value, depth+1)
		if err != nil {
			return nil, err
		}
		out[i] = []any{k, v}
	}
	return out, nil
}

func (p *portable) of(i uint32, depth int) (any, error) {
	n := p.v.node(i)
	if n == nil {
		return nil, fmt.Errorf("a value the worker did not send whole")
	}
	if depth > maxPortableDepth {
		return nil, fmt.Errorf("a value nested more than %d levels deep", maxPortableDepth)
	}
	if v, ok := jsonScalar(n); ok {
		return v, nil
	}
	switch k := n.Kind.(type) {
	case *pb.MontyNode_Ellipsis:
		return tagged("ellipsis", nil), nil
	case *pb.MontyNode_Float:
		return tagged("float", FloatRepr(k.Float)), nil
	case *pb.MontyNode_Bytes:
		return tagged("bytes", base64.StdEncoding.EncodeToString(k.Bytes)), nil
	case *pb.MontyNode_Complex:
		return tagged("complex", []any{FloatRepr(k.Complex.GetReal()), FloatRepr(k.Complex.GetImag())}), nil
	case *pb.MontyNode_Decimal:
		return tagged("decimal", k.Decimal), nil
	case *pb.MontyNode_Uuid:
		return tagged("uuid", hex.EncodeToString(k.Uuid.Data)), nil
	case *pb.MontyNode_Path:
		return tagged("path", k.Path), nil
	case *pb.MontyNode_List:
		return p.all(k.List.Items, depth)
	case *pb.MontyNode_Tuple, *pb.MontyNode_Set, *pb.MontyNode_FrozenSet:
		items, err := p.all((&Value{nodes: p.v.nodes, root: i}).itemIndexes(), depth)
		return tagged(typeName(&Value{nodes: p.v.nodes, root: i}), items), err
	case *pb.MontyNode_Dict:
		items, err := p.pairs(k.Dict.Pairs, depth)
		return tagged("dict", items), err
	case *pb.MontyNode_Date:
		return tagged("date", []any{int64(k.Date.Year), int64(k.Date.Month), int64(k.Date.Day)}), nil
	case *pb.MontyNode_Time:
		t := k.Time
		return tagged("time", []any{int64(t.Hour), int64(t.Minute), int64(t.Second), int64(t.Microsecond), zone(t.OffsetSeconds, t.TimezoneName), int64(t.Fold)}), nil
	case *pb.MontyNode_Datetime:
		t := k.Datetime
		return tagged("datetime", []any{int64(t.Year), int64(t.Month), int64(t.Day), int64(t.Hour), int64(t.Minute), int64(t.Second), int64(t.Microsecond),
			zone(t.OffsetSeconds, t.TimezoneName)}), nil
	case *pb.MontyNode_Timedelta:
		t := k.Timedelta
		return tagged("timedelta", []any{int64(t.Days), int64(t.Seconds), int64(t.Microseconds)}), nil
	case *pb.MontyNode_Timezone:
		off := k.Timezone.OffsetSeconds
		return tagged("timezone", zone(&off, k.Timezone.Name)), nil
	case *pb.MontyNode_NamedTuple:
		items, err := p.all(k.NamedTuple.Values, depth)
		if err != nil {
			return nil, err
		}
		p.classes[k.NamedTuple.TypeName] = true
		return map[string]any{"$": "namedtuple", "cls": k.NamedTuple.TypeName, "v": items}, nil
	case *pb.MontyNode_ClassInstance:
		t := p.v.node(k.ClassInstance.ClassType).GetType()
		if t == nil || !t.IsDataclass || t.Origin == pb.TypeOrigin_TYPE_ORIGIN_BUILTIN {
			return nil, fmt.Errorf("an instance of %s, which is not a dataclass", typeName(&Value{nodes: p.v.nodes, root: i}))
		}
		attrs, err := p.pairs(k.ClassInstance.GetAttrs().GetPairs(), depth)
		if err != nil {
			return nil, err
		}
		p.classes[t.Name] = true
		return map[string]any{"$": "object", "cls": t.Name, "v": attrs}, nil
	case *pb.MontyNode_Cycle:
		return nil, fmt.Errorf("a structure that refers to itself")
	}
	// A function, a class, a module, an open file, an exception…
	return nil, fmt.Errorf("a value of type %s", typeName(&Value{nodes: p.v.nodes, root: i}))
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
