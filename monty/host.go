package monty

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"slices"
	"strings"

	"github.com/backyard-ls/backyard-ls/internal/jsonval"
	"github.com/backyard-ls/backyard-ls/monty/internal/pb"
)

// Func is a host function the sandboxed code calls by name. Arguments and
// the result are JSON-compatible values: nil, bool, int64 (*big.Int past
// 64 bits), float64, string, []any and map[string]any; a result may be any
// value encoding/json can marshal. An *Exception error raises that
// exception in the cell (types Monty lacks become RuntimeError); any other
// error raises RuntimeError with its text. ctx ends when the cell is
// interrupted.
type Func func(ctx context.Context, args []any, kwargs map[string]any) (any, error)

// Error makes an Exception an error a Func can return to raise it.
func (e *Exception) Error() string {
	if e.Message == "" {
		return e.Type
	}
	return e.Type + ": " + e.Message
}

// A call answered with a result: ResumeCall, or ResumeFutures for an
// awaited call (Monty then needs the eager form).
func callReply(c *pb.FunctionCall, r *pb.ExtFunctionResult, values *pb.Arena) *pb.ParentRequest {
	if c.AllowEagerAwait {
		return &pb.ParentRequest{Kind: &pb.ParentRequest_ResumeFutures{ResumeFutures: &pb.ResumeFutures{
			Results: []*pb.FutureResult{{CallId: c.CallId, Result: r}}, Values: values}}}
	}
	return resumeCall(c.CallId, r, values)
}

// hostFunction answers a FunctionCall of host function f: it runs on the
// host. An interrupt while it runs raises KeyboardInterrupt at the call,
// as a SIGINT during a blocking call does in CPython (once per feed, as for
// a sleep).
func (w *Worker) hostFunction(ctx context.Context, c *pb.FunctionCall, f Func, interrupted *bool) *pb.ParentRequest {
	raise := func(typ, msg string) *pb.ParentRequest {
		return callReply(c, &pb.ExtFunctionResult{Kind: &pb.ExtFunctionResult_Error{Error: hostException(typ, msg)}}, nil)
	}
	nodes := c.GetValues().GetNodes()
	args := make([]any, len(c.Args))
	for i, a := range c.Args {
		v, err := fromNode(nodes, a, 0)
		if err != nil {
			return raise("TypeError", fmt.Sprintf("%s(): argument %d %v", c.FunctionName, i+1, err))
		}
		args[i] = v
	}
	kwargs := make(map[string]any, len(c.Kwargs))
	for _, kw := range c.Kwargs {
		name, _ := fromNode(nodes, kw.Key, 0)
		key, _ := name.(string)
		v, err := fromNode(nodes, kw.Value, 0)
		if err != nil {
			return raise("TypeError", fmt.Sprintf("%s(): argument %s %v", c.FunctionName, key, err))
		}
		kwargs[key] = v
	}
	w.hostPhase(phaseHost, *interrupted)
	type answer struct {
		v   any
		err error
	}
	done := make(chan answer, 1)
	go func() {
		v, err := callHost(ctx, f, args, kwargs)
		done <- answer{v, err}
	}()
	var v any
	var err error
	select {
	case a := <-done:
		v, err = a.v, a.err
	case <-ctx.Done():
		// A function that does not return when its ctx ends does not hold
		// up the interrupt; its answer is dropped.
	}
	if ctx.Err() != nil {
		if !*interrupted {
			*interrupted = true
			w.hostPhase(phaseHandled, false)
		}
		return raise("KeyboardInterrupt", "")
	}
	w.hostPhase(phaseRunning, *interrupted)
	if err != nil {
		if e, ok := err.(*Exception); ok {
			return raise(e.Type, e.Message)
		}
		return raise("RuntimeError", err.Error())
	}
	var a hostArena
	root, err := a.add(v, 0)
	if err != nil {
		return raise("TypeError", fmt.Sprintf("%s() returned a value that %v", c.FunctionName, err))
	}
	return callReply(c, &pb.ExtFunctionResult{Kind: &pb.ExtFunctionResult_ReturnValue{ReturnValue: root}}, a.pb())
}

// callHost runs f; a panic in it raises RuntimeError in the cell instead of
// ending the host.
func callHost(ctx context.Context, f Func, args []any, kwargs map[string]any) (v any, err error) {
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, fmt.Errorf("host function panicked: %v", p)
		}
	}()
	return f(ctx, args, kwargs)
}

// raisable are the exception types the worker accepts from the host; it
// refuses others (a protocol violation that leaves the call pending).
var raisable = []string{
	"Exception", "BaseException", "SystemExit", "KeyboardInterrupt", "ArithmeticError", "OverflowError",
	"ZeroDivisionError", "LookupError", "IndexError", "KeyError", "RuntimeError", "NotImplementedError",
	"RecursionError", "AttributeError", "NameError", "UnboundLocalError", "ValueError", "UnicodeDecodeError",
	"UnicodeEncodeError", "ImportError", "ModuleNotFoundError", "OSError", "FileNotFoundError",
	"FileExistsError", "IsADirectoryError", "NotADirectoryError", "PermissionError", "TimeoutError",
	"AssertionError", "MemoryError", "StopIteration", "TypeError",
}

// hostException is the exception the host raises; a type Monty lacks becomes a
// RuntimeError that names it.
func hostException(typ, msg string) *pb.RaisedException {
	if !slices.Contains(raisable, typ) {
		if msg == "" {
			msg = typ
		} else {
			msg = typ + ": " + msg
		}
		typ = "RuntimeError"
	}
	return &pb.RaisedException{ExcType: typ, Message: &msg}
}

// feedRequest is the Feed of code with inputs and host functions bound as
// globals (they persist, like any global).
func feedRequest(code string, opt FeedOptions) (*pb.ParentRequest, error) {
	f := &pb.Feed{Code: code}
	if len(opt.Inputs) > 0 || len(opt.Functions) > 0 {
		var a hostArena
		for _, name := range sortedNames(opt.Inputs) {
			i, err := a.add(opt.Inputs[name], 0)
			if err != nil {
				return nil, fmt.Errorf("input %s: %w", name, err)
			}
			f.Inputs = append(f.Inputs, &pb.NamedRef{Name: name, Value: i})
		}
		for _, name := range sortedNames(opt.Functions) {
			i := a.node(&pb.MontyNode{Kind: &pb.MontyNode_Function{Function: &pb.Function{Name: name}}})
			f.Inputs = append(f.Inputs, &pb.NamedRef{Name: name, Value: i})
		}
		f.Values = a.pb()
	}
	return &pb.ParentRequest{Kind: &pb.ParentRequest_Feed{Feed: f}}, nil
}

// CheckValue reports why v cannot cross into the sandbox (see Func), nil
// when it can.
func CheckValue(v any) error {
	var a hostArena
	_, err := a.add(v, 0)
	return err
}

func sortedNames[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// hostArena builds a value arena in post-order (children before parents).
type hostArena struct{ nodes []*pb.MontyNode }

func (a *hostArena) node(n *pb.MontyNode) uint32 {
	a.nodes = append(a.nodes, n)
	return uint32(len(a.nodes) - 1)
}

func (a *hostArena) pb() *pb.Arena { return &pb.Arena{NodeCount: uint32(len(a.nodes)), Nodes: a.nodes} }

// add appends v (normalized by jsonval) and returns its index.
func (a *hostArena) add(v any, depth int) (uint32, error) {
	if depth == 0 {
		n, err := jsonval.Normalize(v)
		if err != nil {
			return 0, err
		}
		v = n
	}
	switch x := v.(type) {
	case bool:
		return a.node(&pb.MontyNode{Kind: &pb.MontyNode_Boolean{Boolean: x}}), nil
	case string:
		return a.node(&pb.MontyNode{Kind: &pb.MontyNode_Str{Str: x}}), nil
	case int64:
		return a.int(x), nil
	case *big.Int:
		return a.node(&pb.MontyNode{Kind: &pb.MontyNode_Bigint{Bigint: &pb.BigInt{Negative: x.Sign() < 0, Magnitude: new(big.Int).Abs(x).Bytes()}}}), nil
	case float64:
		return a.node(&pb.MontyNode{Kind: &pb.MontyNode_Float{Float: x}}), nil
	case []any:
		items := make([]uint32, len(x))
		for i, it := range x {
			items[i], _ = a.add(it, depth+1)
		}
		return a.node(&pb.MontyNode{Kind: &pb.MontyNode_List{List: &pb.Indexes{Items: items}}}), nil
	case map[string]any:
		pairs := make([]*pb.NodePair, 0, len(x))
		for _, k := range sortedNames(x) {
			key := a.node(&pb.MontyNode{Kind: &pb.MontyNode_Str{Str: k}})
			val, _ := a.add(x[k], depth+1)
			pairs = append(pairs, &pb.NodePair{Key: key, Value: val})
		}
		return a.node(&pb.MontyNode{Kind: &pb.MontyNode_Dict{Dict: &pb.NodePairs{Pairs: pairs}}}), nil
	}
	return a.node(&pb.MontyNode{Kind: &pb.MontyNode_None{None: &pb.Unit{}}}), nil
}

func (a *hostArena) int(i int64) uint32 {
	return a.node(&pb.MontyNode{Kind: &pb.MontyNode_Int{Int: i}})
}

// jsonScalar is node n as a JSON value when it is None, a bool, an int, a
// finite float or a str.
func jsonScalar(n *pb.MontyNode) (any, bool) {
	switch k := n.GetKind().(type) {
	case *pb.MontyNode_None:
		return nil, true
	case *pb.MontyNode_Boolean:
		return k.Boolean, true
	case *pb.MontyNode_Int:
		return k.Int, true
	case *pb.MontyNode_Bigint:
		x := new(big.Int).SetBytes(k.Bigint.Magnitude)
		if k.Bigint.Negative {
			x.Neg(x)
		}
		return jsonval.Int(x), true
	case *pb.MontyNode_Float:
		if math.IsNaN(k.Float) || math.IsInf(k.Float, 0) {
			return nil, false
		}
		return k.Float, true
	case *pb.MontyNode_Str:
		return k.Str, true
	}
	return nil, false
}

// fromNode decodes node i as a JSON-compatible value; the error says what
// the value is when it is not one ("is not JSON-compatible: bytes").
func fromNode(nodes []*pb.MontyNode, i uint32, depth int) (any, error) {
	if int(i) >= len(nodes) || depth > maxDepth {
		return nil, fmt.Errorf("is nested too deeply or malformed")
	}
	seq := func(items []uint32) (any, error) {
		out := make([]any, len(items))
		for j, it := range items {
			v, err := fromNode(nodes, it, depth+1)
			if err != nil {
				return nil, err
			}
			out[j] = v
		}
		return out, nil
	}
	if v, ok := jsonScalar(nodes[i]); ok {
		return v, nil
	}
	switch k := nodes[i].Kind.(type) {
	case *pb.MontyNode_Float:
		return nil, fmt.Errorf("is not JSON-compatible: %s", FloatRepr(k.Float))
	case *pb.MontyNode_List:
		return seq(k.List.Items)
	case *pb.MontyNode_Tuple:
		return seq(k.Tuple.Items)
	case *pb.MontyNode_Dict:
		out := make(map[string]any, len(k.Dict.Pairs))
		for _, p := range k.Dict.Pairs {
			var key *pb.MontyNode_Str
			if int(p.Key) < len(nodes) {
				key, _ = nodes[p.Key].GetKind().(*pb.MontyNode_Str)
			}
			if key == nil {
				return nil, fmt.Errorf("is not JSON-compatible: a dict key that is not a str")
			}
			v, err := fromNode(nodes, p.Value, depth+1)
			if err != nil {
				return nil, err
			}
			out[key.Str] = v
		}
		return out, nil
	}
	v := &Value{nodes: nodes, root: i}
	return nil, fmt.Errorf("is not JSON-compatible: %s", typeName(v))
}

// typeName names a value's Python type for a message.
func typeName(v *Value) string {
	n := v.node(v.root)
	name := strings.TrimPrefix(fmt.Sprintf("%T", n.GetKind()), "*pb.MontyNode_")
	switch name {
	case "FrozenSet":
		return "frozenset"
	case "NamedTuple":
		return "namedtuple"
	case "ClassInstance":
		if t := v.node(n.GetClassInstance().ClassType).GetType(); t != nil {
			return t.Name
		}
	}
	return strings.ToLower(name)
}
