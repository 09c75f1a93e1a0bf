package monty

import (
	"encoding/hex"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"google.golang.org/protobuf/proto"

	"github.com/backyard-ls/backyard-ls/monty/internal/pb"
	"github.com/backyard-ls/backyard-ls/pysrc"
)

// Value is a Python value returned by the worker (protocol 5 arena form).
type Value struct {
	nodes []*pb.MontyNode
	root  uint32
}

func (v *Value) node(i uint32) *pb.MontyNode {
	if v == nil || int(i) >= len(v.nodes) {
		return nil
	}
	return v.nodes[i]
}

// IsNone reports whether the value is None.
func (v *Value) IsNone() bool {
	n := v.node(v.root)
	return n == nil || n.GetNone() != nil
}

// Str returns the value if it is a str.
func (v *Value) Str() (string, bool) {
	n := v.node(v.root)
	if n == nil {
		return "", false
	}
	s, ok := n.Kind.(*pb.MontyNode_Str)
	if !ok {
		return "", false
	}
	return s.Str, true
}

// IsList reports whether the value is a list.
func (v *Value) IsList() bool {
	_, ok := v.node(v.root).GetKind().(*pb.MontyNode_List)
	return ok
}

// Int returns the value if it is an int that fits 64 bits.
func (v *Value) Int() (int64, bool) {
	n := v.node(v.root)
	if n == nil {
		return 0, false
	}
	i, ok := n.Kind.(*pb.MontyNode_Int)
	if !ok {
		return 0, false
	}
	return i.Int, true
}

// str is str() of the value as far as the wire form allows: a str as it
// is, anything else as its repr.
func (v *Value) str() string {
	if s, ok := v.Str(); ok {
		return s
	}
	return v.Repr()
}

// Repr renders the value the way CPython's repr would, as far as the wire
// form allows: sandbox class instances arrive without their __repr__, and
// Counter, defaultdict and deque arrive as dict and list. That is why the
// kernel has the worker compute repr() of a cell's value instead; Repr is
// for host-side inspection of values (and proves the decoding in tests).
func (v *Value) Repr() string {
	var b strings.Builder
	v.repr(&b, v.root, 0)
	return b.String()
}

const maxDepth = 100

func (v *Value) repr(b *strings.Builder, i uint32, depth int) {
	n := v.node(i)
	if n == nil || depth > maxDepth {
		b.WriteString("...")
		return
	}
	seq := func(open, close string, items []uint32, single bool) {
		b.WriteString(open)
		for j, it := range items {
			if j > 0 {
				b.WriteString(", ")
			}
			v.repr(b, it, depth+1)
		}
		if single && len(items) == 1 {
			b.WriteString(",")
		}
		b.WriteString(close)
	}
	pairs := func(ps []*pb.NodePair, sep string, keyAsName bool) {
		for j, p := range ps {
			if j > 0 {
				b.WriteString(", ")
			}
			if keyAsName {
				if s, ok := v.node(p.Key).GetKind().(*pb.MontyNode_Str); ok {
					b.WriteString(s.Str)
				}
			} else {
				v.repr(b, p.Key, depth+1)
			}
			b.WriteString(sep)
			v.repr(b, p.Value, depth+1)
		}
	}
	switch k := n.Kind.(type) {
	case *pb.MontyNode_Ellipsis:
		b.WriteString("Ellipsis")
	case *pb.MontyNode_None:
		b.WriteString("None")
	case *pb.MontyNode_NotImplemented:
		b.WriteString("NotImplemented")
	case *pb.MontyNode_Boolean:
		if k.Boolean {
			b.WriteString("True")
		} else {
			b.WriteString("False")
		}
	case *pb.MontyNode_Int:
		b.WriteString(strconv.FormatInt(k.Int, 10))
	case *pb.MontyNode_Bigint:
		x := new(big.Int).SetBytes(k.Bigint.Magnitude)
		if k.Bigint.Negative {
			x.Neg(x)
		}
		b.WriteString(x.String())
	case *pb.MontyNode_Float:
		b.WriteString(FloatRepr(k.Float))
	case *pb.MontyNode_Str:
		b.WriteString(StrRepr(k.Str))
	case *pb.MontyNode_Bytes:
		b.WriteString(BytesRepr(k.Bytes))
	case *pb.MontyNode_Uuid:
		h := hex.EncodeToString(k.Uuid.Data)
		if len(h) == 32 {
			h = h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
		}
		b.WriteString("UUID('" + h + "')")
	case *pb.MontyNode_List:
		seq("[", "]", k.List.Items, false)
	case *pb.MontyNode_Tuple:
		seq("(", ")", k.Tuple.Items, true)
	case *pb.MontyNode_Set:
		if len(k.Set.Items) == 0 {
			b.WriteString("set()")
		} else {
			seq("{", "}", k.Set.Items, false)
		}
	case *pb.MontyNode_FrozenSet:
		if len(k.FrozenSet.Items) == 0 {
			b.WriteString("frozenset()")
		} else {
			seq("frozenset({", "})", k.FrozenSet.Items, false)
		}
	case *pb.MontyNode_Dict:
		b.WriteString("{")
		pairs(k.Dict.Pairs, ": ", false)
		b.WriteString("}")
	case *pb.MontyNode_NamedTuple:
		b.WriteString(k.NamedTuple.TypeName + "(")
		for j, val := range k.NamedTuple.Values {
			if j > 0 {
				b.WriteString(", ")
			}
			if j < len(k.NamedTuple.FieldNames) {
				b.WriteString(k.NamedTuple.FieldNames[j] + "=")
			}
			v.repr(b, val, depth+1)
		}
		b.WriteString(")")
	case *pb.MontyNode_Date:
		fmt.Fprintf(b, "datetime.date(%d, %d, %d)", k.Date.Year, k.Date.Month, k.Date.Day)
	case *pb.MontyNode_Time:
		t := k.Time
		b.WriteString("datetime.time(" + clockArgs(t.Hour, t.Minute, t.Second, t.Microsecond))
		if t.OffsetSeconds != nil {
			b.WriteString(", tzinfo=" + tzRepr(*t.OffsetSeconds, t.TimezoneName))
		}
		if t.Fold != 0 {
			b.WriteString(", fold=1")
		}
		b.WriteString(")")
	case *pb.MontyNode_Datetime:
		t := k.Datetime
		fmt.Fprintf(b, "datetime.datetime(%d, %d, %d, %s", t.Year, t.Month, t.Day, clockArgs(t.Hour, t.Minute, t.Second, t.Microsecond))
		if t.OffsetSeconds != nil {
			b.WriteString(", tzinfo=" + tzRepr(*t.OffsetSeconds, t.TimezoneName))
		}
		b.WriteString(")")
	case *pb.MontyNode_Timedelta:
		b.WriteString(timedeltaRepr(k.Timedelta))
	case *pb.MontyNode_Timezone:
		b.WriteString(tzRepr(k.Timezone.OffsetSeconds, k.Timezone.Name))
	case *pb.MontyNode_Exception:
		b.WriteString(k.Exception.ExcType + "(")
		if k.Exception.Arg != nil {
			b.WriteString(StrRepr(*k.Exception.Arg))
		}
		b.WriteString(")")
	case *pb.MontyNode_Type:
		if k.Type.Origin == pb.TypeOrigin_TYPE_ORIGIN_BUILTIN {
			b.WriteString("<class '" + k.Type.Name + "'>")
		} else {
			b.WriteString("<class '__main__." + k.Type.Name + "'>")
		}
	case *pb.MontyNode_ClassInstance:
		name := "object"
		dataclass := false
		if t := v.node(k.ClassInstance.ClassType).GetType(); t != nil {
			name, dataclass = t.Name, t.IsDataclass
		}
		if dataclass {
			b.WriteString(name + "(")
			pairs(k.ClassInstance.GetAttrs().GetPairs(), "=", true)
			b.WriteString(")")
		} else {
			b.WriteString("<__main__." + name + " object>")
		}
	case *pb.MontyNode_Function:
		b.WriteString("<function " + k.Function.Name + ">")
	case *pb.MontyNode_BuiltinFunction:
		b.WriteString("<built-in function " + k.BuiltinFunction + ">")
	case *pb.MontyNode_Path:
		b.WriteString("PosixPath(" + StrRepr(k.Path) + ")")
	case *pb.MontyNode_FileHandle:
		fmt.Fprintf(b, "<_io.TextIOWrapper name=%s mode=%s>", StrRepr(k.FileHandle.Path), StrRepr(k.FileHandle.Mode))
	case *pb.MontyNode_Complex:
		b.WriteString(complexRepr(k.Complex.GetReal(), k.Complex.GetImag()))
	case *pb.MontyNode_Module:
		b.WriteString("<module " + StrRepr(k.Module.Name) + ">")
	case *pb.MontyNode_Decimal:
		b.WriteString("Decimal(" + StrRepr(k.Decimal) + ")")
	case *pb.MontyNode_Repr:
		b.WriteString(k.Repr)
	case *pb.MontyNode_Cycle:
		b.WriteString(k.Cycle)
	default:
		b.WriteString("<unknown>")
	}
}

func clockArgs(h, m, s, us uint32) string {
	parts := []string{strconv.Itoa(int(h)), strconv.Itoa(int(m))}
	if s != 0 || us != 0 {
		parts = append(parts, strconv.Itoa(int(s)))
	}
	if us != 0 {
		parts = append(parts, strconv.Itoa(int(us)))
	}
	return strings.Join(parts, ", ")
}

func tzRepr(offset int32, name *string) string {
	if offset == 0 && name == nil {
		return "datetime.timezone.utc"
	}
	s := "datetime.timezone(" + timedeltaRepr(&pb.TimeDelta{Days: int32(math.Floor(float64(offset) / 86400)), Seconds: ((offset % 86400) + 86400) % 86400})
	if name != nil {
		s += ", " + StrRepr(*name)
	}
	return s + ")"
}

func timedeltaRepr(t *pb.TimeDelta) string {
	var parts []string
	if t.Days != 0 {
		parts = append(parts, "days="+strconv.Itoa(int(t.Days)))
	}
	if t.Seconds != 0 {
		parts = append(parts, "seconds="+strconv.Itoa(int(t.Seconds)))
	}
	if t.Microseconds != 0 {
		parts = append(parts, "microseconds="+strconv.Itoa(int(t.Microseconds)))
	}
	if len(parts) == 0 {
		parts = []string{"0"}
	}
	return "datetime.timedelta(" + strings.Join(parts, ", ") + ")"
}

// itemIndexes are the nodes of a list's, tuple's, set's or frozenset's
// elements.
func (v *Value) itemIndexes() []uint32 {
	items, _ := seqItems(v.node(v.root))
	return items
}

// seqItems are the nodes of n's elements when n is a list, tuple, set or
// frozenset; ok is false for any other node.
func seqItems(n *pb.MontyNode) (items []uint32, ok bool) {
	switch k := n.GetKind().(type) {
	case *pb.MontyNode_List:
		return k.List.Items, true
	case *pb.MontyNode_Tuple:
		return k.Tuple.Items, true
	case *pb.MontyNode_Set:
		return k.Set.Items, true
	case *pb.MontyNode_FrozenSet:
		return k.FrozenSet.Items, true
	}
	return nil, false
}

// FloatRepr formats f like CPython's repr(float): the shortest round-trip
// digits, scientific notation below 1e-4 and from 1e16.
func FloatRepr(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case math.IsNaN(f):
		return "nan"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±XX
	mant, expS, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expS)
	if exp < -4 || exp >= 16 {
		sign := "+"
		if exp < 0 {
			sign, exp = "-", -exp
		}
		return fmt.Sprintf("%se%s%02d", mant, sign, exp)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// complexRepr formats a complex number like CPython: 1j, (1+2j), (-0-1.5j).
func complexRepr(re, im float64) string {
	part := func(f float64) string { return strings.TrimSuffix(FloatRepr(f), ".0") }
	imag := part(im) + "j"
	if re == 0 && !math.Signbit(re) {
		return imag
	}
	if !math.Signbit(im) && !math.IsNaN(im) {
		imag = "+" + imag
	}
	return "(" + part(re) + imag + ")"
}

// StrRepr quotes s like CPython's repr(str).
func StrRepr(s string) string { return pysrc.StrRepr(s) }

// BytesRepr quotes p like CPython's repr(bytes).
func BytesRepr(p []byte) string {
	quote := byte('\'')
	if strings.IndexByte(string(p), '\'') >= 0 && strings.IndexByte(string(p), '"') < 0 {
		quote = '"'
	}
	var b strings.Builder
	b.WriteString("b")
	b.WriteByte(quote)
	for _, c := range p {
		switch {
		case c == quote || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '\n':
			b.WriteString(`\n`)
		case c == '\r':
			b.WriteString(`\r`)
		case c == '\t':
			b.WriteString(`\t`)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, `\x%02x`, c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte(quote)
	return b.String()
}

// Items returns the elements of a list, tuple, set or frozenset value.
func (v *Value) Items() []*Value {
	idx := v.itemIndexes()
	out := make([]*Value, len(idx))
	for i, j := range idx {
		out[i] = &Value{nodes: v.nodes, root: j}
	}
	return out
}

// SameScalar reports whether v and w are equal values that hold no others
// (a str, a float…): the worker sends such a value anew each time it
// meets it, so two of them are one object only if their id() says so.
func (v *Value) SameScalar(w *Value) bool {
	a, b := v.node(v.root), w.node(w.root)
	if a == nil || b == nil || len(children(a, true)) > 0 || a.GetCycle() != "" {
		return false
	}
	return proto.Equal(a, b)
}
