package montykernel

import (
	"strconv"
	"strings"

	"github.com/backyard-ls/backyard-ls/monty"
	"github.com/backyard-ls/backyard-ls/pysrc"
)

// prettyPrelude has Monty show a value as IPython's displayhook does
// (IPython.lib.pretty): the walk of the value is Python, in the sandbox,
// where its _repr_pretty_ and __repr__ methods are; the layout is the
// host's (pysrc.Pretty), from the list of steps the walk makes. A step is
// a string whose first character says what it is:
//
//	t<text>            text
//	b<sep>             a breakable
//	,                  text "," and a breakable " "
//	B                  a line break now (break_)
//	g<indent> <open>   begin a group
//	e<dedent> <close>  end a group
//	i<n>               indentation n more (p.indent)
//	r<repr>            an object shown by its repr (its own groups, a line a line)
//	p<text>            an object shown by one text (a float, a class)
//	f<repr>            a function without a kept signature, by Monty's repr (funcNames may name it)
//	R<repr>\x00<repr>… items of a container, each shown by its repr, "," and a breakable between
//	P<text>\x00<text>… items each shown by one text (floats)
//	D<k><v><keys>\x01<values>  a dict's items, keys and values as after R or P (k, v: R or P)
//
// (R, P and D spare Monty a step per item: a list of a thousand numbers
// is walked by map and join. Reprs of numbers and strings hold no control
// characters.)
// IPython opens a group for every object it prints, and the order it
// breaks groups in depends on them, so the walk opens each one too. Monty
// has no subclasses, OrderedDict or SimpleNamespace; its Counter,
// defaultdict and deque are shown as IPython shows them. __backyard_shown__
// gives the repr itself where that is IPython's text (a number, a str, a
// list, tuple or dict of those that fits on a line, anything past m
// characters) and the steps otherwise, and the repr alone while %pprint
// turned pretty printing off (__backyard_pprint_on__). (A cycle is found
// with "is", not id(): a cell calling id() is replayed as one that draws
// a random number, and every cell with a value calls the prelude.)
const prettyPrelude = `from collections import Counter as __backyard_Counter__, defaultdict as __backyard_defaultdict__, deque as __backyard_deque__
__backyard_repr_types__ = {int, str, bool, type(None), bytes}
__backyard_float_types__ = {float}
__backyard_leaf_types__ = __backyard_repr_types__ | __backyard_float_types__
__backyard_builtin_types__ = (ArithmeticError, AssertionError, AttributeError, BaseException, Exception, FileExistsError, FileNotFoundError,
    ImportError, IndexError, IsADirectoryError, KeyError, KeyboardInterrupt, LookupError, MemoryError, ModuleNotFoundError, NameError,
    NotADirectoryError, NotImplementedError, OSError, OverflowError, PermissionError, RecursionError, RuntimeError, StopIteration,
    SyntaxError, SystemExit, TimeoutError, TypeError, UnboundLocalError, UnicodeDecodeError, UnicodeEncodeError, ValueError,
    ZeroDivisionError, bool, bytes, complex, dict, enumerate, filter, float, frozenset, int, list, map, object, property, range,
    reversed, set, slice, str, tuple, zip)
class __backyard_PrettyWith__:
    def __init__(self, p, indent, open, close, group):
        self.p, self.indent, self.open, self.close, self.group = p, indent, open, close, group
    def __enter__(self):
        if self.group:
            self.p.begin_group(self.indent, self.open)
        else:
            self.p.ops.append("i" + str(self.indent))
    def __exit__(self, a, b, c):
        if self.group:
            self.p.end_group(self.indent, self.close)
        else:
            self.p.ops.append("i" + str(-self.indent))
        return False
class __backyard_Pretty__:
    def __init__(self, m):
        self.ops, self.stack, self.n, self.m = [], [], 0, m
        self.verbose, self.max_seq_length = False, 1000
    def text(self, s):
        self.n += len(s)
        self.ops.append("t" + s)
    def breakable(self, sep=" "):
        self.ops.append("b" + sep)
    def break_(self):
        self.ops.append("B")
    def begin_group(self, indent=0, open=""):
        self.n += len(open)
        self.ops.append("g" + str(indent) + " " + open)
    def end_group(self, dedent=0, close=""):
        self.n += len(close)
        self.ops.append("e" + str(dedent) + " " + close)
    def group(self, indent=0, open="", close=""):
        return __backyard_PrettyWith__(self, indent, open, close, True)
    def indent(self, indent):
        return __backyard_PrettyWith__(self, indent, "", "", False)
    def pretty(self, v):
        __backyard_pretty__(self, v)
class __backyard_PrettyRaw__:
    def __init__(self, text):
        self.text = text
    def _repr_pretty_(self, p, cycle):
        p.text(self.text)
def __backyard_leaves__(items):
    kinds = {type(x) for x in items}
    if kinds <= __backyard_repr_types__:
        return "R"
    if kinds == __backyard_float_types__:
        return "P"
    return ""
def __backyard_pretty_items__(p, items, values, more):  # values: a dict's, one a key
    ops = p.ops
    kind = __backyard_leaves__(items) if items else ""
    if kind and values is not None:
        vk = __backyard_leaves__(values)
        kind = "D" + kind + vk if vk else ""
    if kind:
        s = "\x00".join(map(repr, items))
        p.n += len(s)
        if values is not None:
            vs = "\x00".join(map(repr, values))
            p.n += len(vs)
            s = s + "\x01" + vs
        ops.append(kind + s)
    else:
        k = 0
        for x in items:
            if k:
                ops.append(",")
            __backyard_pretty__(p, x)
            if values is not None:
                ops.append("t: ")
                __backyard_pretty__(p, values[k])
            k += 1
            if p.n > p.m:
                return
    if more:
        ops.append(",")
        ops.append("t...")
def __backyard_pretty_call__(p, name, args, kwargs):
    ops = p.ops
    ops.append("g0 ")
    ops.append("g" + str(len(name) + 1) + " " + name + "(")
    p.n += len(name) + 2
    k = 0
    for a in args:
        if k:
            ops.append(",")
        k += 1
        __backyard_pretty__(p, a)
    for kv in kwargs:
        if k:
            ops.append(",")
        k += 1
        ops.append("g" + str(len(kv[0]) + 1) + " " + kv[0] + "=")
        __backyard_pretty__(p, kv[1])
        ops.append("e" + str(len(kv[0]) + 1) + " ")
    ops.append("e" + str(len(name) + 1) + " )")
    ops.append("e0 ")
def __backyard_type_name__(c):
    if c is __backyard_Counter__:
        return "collections.Counter"
    name = repr(c)[8:-2]
    if c in __backyard_builtin_types__ or "." in name:
        return name
    return "__main__." + name
__backyard_sigs__ = {}
def __backyard_annotation__(a):
    if type(a) is str:
        return repr(a)
    if a is None:
        return "None"
    if repr(type(a)) == "<class 'type'>":
        return __backyard_type_name__(a)
    if repr(type(a)) == "<class 'types.GenericAlias'>":
        return repr(a)
    raise TypeError("not an annotation inspect formats alike")
def ` + sigFunc + `(*defs):
    for name, qual, parts in defs:
        try:
            f, parts = parts()
            if not repr(f).startswith("<function '" + name + "' at "):
                continue
            s = ""
            for x in parts:
                t = type(x)
                if t is str:
                    s += x
                elif t is tuple:
                    s += repr(x[0])
                else:
                    s += __backyard_annotation__(x[0])
            __backyard_sigs__[f] = "<function __main__." + qual + s + ">"
        except Exception:
            pass
    return None
def ` + sigValueFunc + `(f, parts):
    ` + sigFunc + `(("<lambda>", "<lambda>", lambda: (f, parts)))
    return f
__backyard_function__ = type(` + sigFunc + `)
def __backyard_pretty__(p, v):
    ops = p.ops
    t = type(v)
    if t is int or t is str or t is bool or v is None or t is bytes:
        r = repr(v)
        p.n += len(r)
        ops.append("r" + r)
        return
    if t is float:
        r = repr(v)
        p.n += len(r)
        ops.append("p" + r)
        return
    cycle = False
    for s in p.stack:
        if s is v:
            cycle = True
            break
    p.stack.append(v)
    ops.append("g0 ")
    if t is list or t is tuple:
        o, c = ("[", "]") if t is list else ("(", ")")
        if cycle:
            ops.append("t" + o + "..." + c)
        else:
            ops.append("g1 " + o)
            p.n += 2
            __backyard_pretty_items__(p, v[:1000], None, len(v) > 1000)
            if t is tuple and len(v) == 1:
                ops.append("t,")
            ops.append("e1 " + c)
    elif t is dict:
        if cycle:
            ops.append("t{...}")
        else:
            ops.append("g1 {")
            p.n += 2
            keys = list(v)[:1000]
            __backyard_pretty_items__(p, keys, [v[key] for key in keys], len(v) > 1000)
            ops.append("e1 }")
    elif t is set or t is frozenset:
        o, c = ("{", "}") if t is set else ("frozenset({", "})")
        if cycle:
            ops.append("t" + o + "..." + c)
        elif len(v) == 0:
            ops.append("t" + t.__name__ + "()")
        else:
            items = v
            if len(v) < 1000:
                try:
                    items = sorted(v)
                except Exception:
                    try:
                        items = sorted(v, key=str)
                    except Exception:
                        items = list(v)
            ops.append("g" + str(len(o)) + " " + o)
            p.n += len(o) + len(c)
            __backyard_pretty_items__(p, list(items)[:1000], None, len(v) > 1000)
            ops.append("e" + str(len(o)) + " " + c)
    elif t is __backyard_Counter__ or t is __backyard_defaultdict__ or t is __backyard_deque__:
        name = t.__name__
        if cycle:
            __backyard_pretty_call__(p, name, [__backyard_PrettyRaw__("...")], [])
        elif t is __backyard_Counter__:
            __backyard_pretty_call__(p, name, [dict(v.most_common())] if len(v) else [], [])
        elif t is __backyard_defaultdict__:
            __backyard_pretty_call__(p, name, [v.default_factory, dict(v)], [])
        else:
            __backyard_pretty_call__(p, name, [list(v)], [("maxlen", v.maxlen)] if v.maxlen is not None else [])
    elif t.__name__ == "Pattern" and hasattr(v, "pattern"):
        f = v.flags | (32 if type(v.pattern) is str else 0)
        args = [__backyard_PrettyRaw__("r" + repr(v.pattern).replace("\\\\", "\\"))]
        if f:
            names = [("IGNORECASE", 2), ("LOCALE", 4), ("MULTILINE", 8), ("DOTALL", 16), ("UNICODE", 32), ("VERBOSE", 64), ("DEBUG", 128)]
            args.append(__backyard_PrettyRaw__("|".join(["re." + n for n, b in names if f & b])))
        __backyard_pretty_call__(p, "re.compile", args, [])
    elif repr(t) == "<class 'type'>":
        name = __backyard_type_name__(v)
        p.n += len(name)
        ops.append("t" + name)
    elif t is __backyard_function__ and v in __backyard_sigs__:
        s = __backyard_sigs__[v]
        p.n += len(s)
        ops.append("t" + s)
    elif t is __backyard_function__:
        r = repr(v)
        p.n += len(r)
        ops.append("f" + r)
    elif hasattr(v, "_repr_pretty_"):
        v._repr_pretty_(p, cycle)
    elif isinstance(v, BaseException):
        __backyard_pretty_call__(p, repr(t)[8:-2], v.args, [])
    else:
        r = repr(v)
        p.n += len(r)
        if not hasattr(v, "__repr__") and r.startswith("<") and r.endswith(">") and " object at 0x" in r:
            ops.append("g1 <")
            ops.append("p__main__." + r[1 : r.index(" object at 0x")])
            ops.append("t at " + r[r.index(" object at 0x") + 11 : -1])
            if cycle:
                ops.append("t ...")
            ops.append("e1 >")
        else:
            ops.append("r" + r)
    ops.append("e0 ")
    p.stack.pop()
__backyard_pprint_on__ = [True]
def __backyard_shown__(v, m):
    if not __backyard_pprint_on__[0]:
        return repr(v)
    t = type(v)
    if t is int or t is str or t is float or t is bool or t is bytes or v is None:
        return repr(v)
    if (t is list or t is tuple or t is dict) and len(v) <= 26:  # more items never fit in 79 columns
        kinds = {type(x) for x in v}
        if t is dict:
            kinds = kinds | {type(x) for x in v.values()}
        if kinds <= __backyard_leaf_types__:
            r = repr(v)
            if len(r) <= 79:
                return r
    try:
        p = __backyard_Pretty__(m)
        __backyard_pretty__(p, v)
        if p.n <= m:
            return p.ops
    except Exception:
        pass
    return repr(v)
`

// sigFunc is the prelude's function that keeps the signatures of a
// cell's functions (pysrc.Signatures: top-level defs, methods, lambdas
// assigned to a name), which Monty's functions do not carry (no __name__,
// __qualname__, __defaults__ or __annotations__): a function shows as
// IPython shows it, "<function __main__.A.f(x, y=1)>", when the cells gave
// it its signature. signaturesCode calls it after the cell's last
// statement: a def the cell did not reach has none. A function without one
// (a nested or decorated def, a lambda a function made, a default or
// annotation whose value cannot be had again) is named by its name's
// defs (funcNames) when they agree, else shows Monty's repr; a bound
// method shows Monty's "<bound method>", which names neither its function
// nor its instance (Monty has no __self__ or __func__ either).
const sigFunc = "__backyard_sig__"

// signaturesCode is the call of sigFunc with code's def statements, ""
// when it has none: each gives the function its name is bound to and the
// parts of its signature (text, a default's value in a 1-tuple, an
// annotation's in a 1-list), evaluated again after the def.
func signaturesCode(code string) string {
	sigs := pysrc.Signatures(code)
	if len(sigs) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(sigFunc + "(")
	for _, s := range sigs {
		b.WriteString("(" + pysrc.StrRepr(s.Name) + ", " + pysrc.StrRepr(s.Qual) + ", lambda: (" + s.Ref + ", " + partsCode(s) + ")), ")
	}
	b.WriteString(")")
	return b.String()
}

// partsCode is a tuple of s's parts as sigFunc reads them: text, a
// default's value in a 1-tuple, an annotation's in a 1-list.
func partsCode(s pysrc.Signature) string {
	var b strings.Builder
	b.WriteString("(")
	for _, p := range s.Parts {
		switch p.Kind {
		case pysrc.SigDefault:
			b.WriteString("(" + p.Text + ",)")
		case pysrc.SigAnnotation:
			b.WriteString("[" + p.Text + "]")
		default:
			b.WriteString(pysrc.StrRepr(p.Text))
		}
		b.WriteString(", ")
	}
	b.WriteString(")")
	return b.String()
}

// sigValueFunc is the prelude's function that keeps the signature of a
// lambda that is a cell's trailing expression (pysrc.TrailingLambda) and
// returns it: lambdaValueCode wraps the expression in a call of it.
const sigValueFunc = "__backyard_sig_value__"

// lambdaValueCode is code whose trailing expression, a lambda, keeps its
// signature when it runs; code itself when it is no lambda whose
// signature is known.
func lambdaValueCode(code string) string {
	s, start, end, ok := pysrc.TrailingLambda(code)
	if !ok {
		return code
	}
	return code[:start] + sigValueFunc + "((" + code[start:end] + "), " + partsCode(s) + ")" + code[end:]
}

// prettyWidth is IPython's max_width.
const prettyWidth = 79

// layoutSteps lays out the steps of prettyPrelude's walk; names gives
// the functions it ties to their defs IPython's text (nil: none).
func layoutSteps(steps []string, names *funcNames) string {
	p := pysrc.NewPretty(prettyWidth)
	for _, s := range steps {
		if s == "" {
			continue
		}
		arg := s[1:]
		switch s[0] {
		case 't':
			p.Text(arg)
		case 'b':
			p.Breakable(arg)
		case ',':
			comma(p)
		case 'B':
			p.Break()
		case 'g', 'e':
			n, text, _ := strings.Cut(arg, " ")
			indent, _ := strconv.Atoi(n)
			if s[0] == 'g' {
				p.BeginGroup(indent, text)
			} else {
				p.EndGroup(indent, text)
			}
		case 'i':
			n, _ := strconv.Atoi(arg)
			p.Indent(n)
		case 'r':
			leaf(p, 'R', arg)
		case 'p':
			leaf(p, 'P', arg)
		case 'f':
			if text := names.text(arg); text != "" {
				p.Text(text)
			} else {
				leaf(p, 'R', arg)
			}
		case 'R', 'P', 'D':
			// D: keys as after kind, values as after valueKind
			kind, items, valueKind, vs := s[0], arg, byte(0), []string(nil)
			if kind == 'D' {
				if len(arg) < 2 {
					continue
				}
				keys, values, _ := strings.Cut(arg[2:], "\x01")
				kind, items, valueKind, vs = arg[0], keys, arg[1], strings.Split(values, "\x00")
			}
			for i, item := range strings.Split(items, "\x00") {
				if i > 0 {
					comma(p)
				}
				leaf(p, kind, item)
				if valueKind != 0 {
					p.Text(": ")
					if i < len(vs) {
						leaf(p, valueKind, vs[i])
					}
				}
			}
		}
	}
	return p.String()
}

// comma adds the text "," and a breakable " ", as between the items of a
// container.
func comma(p *pysrc.Pretty) {
	p.Text(",")
	p.Breakable(" ")
}

// leaf adds an object as IPython prints one: in a group of its own, by
// its repr (kind R) or by one text (P).
func leaf(p *pysrc.Pretty, kind byte, text string) {
	p.BeginGroup(0, "")
	if kind == 'R' {
		p.Repr(text)
	} else {
		p.Text(text)
	}
	p.EndGroup(0, "")
}

// shownText is the text of what __backyard_shown__ gave: a repr, or the
// steps to lay out (layoutSteps, with names).
func shownText(v any, names *funcNames) string {
	switch v := v.(type) {
	case string:
		return v
	case []any:
		steps := make([]string, 0, len(v))
		for _, s := range v {
			if s, ok := s.(string); ok {
				steps = append(steps, s)
			}
		}
		return layoutSteps(steps, names)
	}
	return ""
}

// valueSteps are the steps of a cell's value when the value func gave
// them (a list), not a repr (a pair of its length and its text).
func valueSteps(v *monty.Value) ([]string, bool) {
	if !v.IsList() {
		return nil, false
	}
	items := v.Items()
	steps := make([]string, 0, len(items))
	for _, it := range items {
		if s, ok := it.Str(); ok {
			steps = append(steps, s)
		}
	}
	return steps, true
}
