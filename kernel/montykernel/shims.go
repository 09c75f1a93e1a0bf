package montykernel

import (
	"slices"
	"strings"

	"github.com/backyard-ls/backyard-ls/pysrc"
)

// A Shim makes Monty give CPython's answer for a construct it runs
// differently, or lacks: the cell's call sites are rewritten to call a
// helper that every Monty session defines (its prelude). The rewrite keeps
// line numbers and passes the original callee or receiver to the helper,
// which falls back to it for anything it does not cover (a rebound name,
// another argument form): then Monty behaves as without the shim.
//
// The auto kernel uses ProbedShims, each only when the pinned worker runs
// its construct differently and, with the shim, prints what CPython
// printed for the construct's probe; it confirms Monty's errors in the
// container. A Monty kernel alone (Options.Shims) uses them all, with
// AloneShims, whose helpers build what Monty lacks.
type Shim struct {
	// Construct is the probe's name for what the shim covers.
	Construct string
	Prelude   string
	// Edits finds the call sites in a token list (one region of a cell).
	Edits func(sig []pysrc.Token) []Edit
}

// Edit replaces code[Start:End] with Text.
type Edit struct {
	Start, End int
	Text       string
}

// ProbedShims are the shims whose constructs have a probe (see package
// auto's capabilities).
var ProbedShims = []Shim{
	{Construct: "round-ndigits", Prelude: roundPrelude, Edits: roundEdits},
	{Construct: "stdio-write", Prelude: stdioPrelude, Edits: stdioEdits},
}

// AloneShims build what Monty lacks, for a Monty kernel alone (an auto
// kernel runs such cells in the container instead): sys.exit, and
// exceptions made from other arguments than one string (ValueError(2)).
var AloneShims = []Shim{
	{Construct: "sys-exit", Prelude: exitPrelude, Edits: exitEdits},
	{Construct: "exception-args", Prelude: excPrelude, Edits: excEdits},
}

// roundPrelude rounds a float to n digits as CPython does: correctly
// rounded, ties to even on the exact binary value (Monty's own round
// rounds 2.675 to 2.68). Formatting is exact in Monty, so n >= 0 goes
// through it; n < 0 is integer arithmetic on the truncated value.
const roundPrelude = `__backyard_builtin_round__ = round
def __backyard_round__(f, *a, **k):
    if f is __backyard_builtin_round__ and len(a) == 2 and not k:
        x, n = a
        if type(x) is float and type(n) is int and x - x == 0.0:
            if n > 323:
                return x
            if n >= 0:
                return float(f"{x:.{n}f}")
            if n < -308:
                return -0.0 if x < 0 else 0.0
            m = 10 ** -n
            i = int(x)
            q, r = divmod(abs(i), m)
            h = m // 2
            if r > h or r == h and (x != float(i) or q % 2 == 1):
                q += 1
            v = float(q * m)
            return -v if x < 0 else v
    return f(*a, **k)
`

// stdioPrelude gives sys.stdout and sys.stderr the write, writelines and
// flush methods Monty lacks, with CPython's return values.
const stdioPrelude = `import sys as __backyard_sys__
def __backyard_stdio__(s):
    return s is __backyard_sys__.stdout or s is __backyard_sys__.stderr
def __backyard_stdio_write__(s, *a, **k):
    if __backyard_stdio__(s) and len(a) == 1 and not k and type(a[0]) is str:
        if s is __backyard_sys__.stdout:
            print(a[0], end="")
        else:
            print(a[0], end="", file=__backyard_sys__.stderr)
        return len(a[0])
    return s.write(*a, **k)
def __backyard_stdio_writelines__(s, *a, **k):
    if __backyard_stdio__(s) and len(a) == 1 and not k:
        lines = list(a[0])
        if all(type(x) is str for x in lines):
            for x in lines:
                __backyard_stdio_write__(s, x)
            return None
        return s.writelines(lines)
    return s.writelines(*a, **k)
def __backyard_stdio_flush__(s, *a, **k):
    if __backyard_stdio__(s) and not a and not k:
        return None
    return s.flush(*a, **k)
`

// roundEdits rewrites round(x, n) as __backyard_round__(round, x, n).
func roundEdits(sig []pysrc.Token) []Edit {
	var out []Edit
	for i := 0; i+1 < len(sig); i++ {
		t := sig[i]
		if t.Kind != pysrc.Name || t.Text != "round" || (i > 0 && isOp(sig[i-1], ".")) || !isOp(sig[i+1], "(") || !twoArgs(sig, i+1) {
			continue
		}
		out = append(out, Edit{t.Start, sig[i+1].End, "__backyard_round__(round, "})
	}
	return out
}

// stdioEdits rewrites X.stdout.write(a) as __backyard_stdio_write__(X.stdout, a),
// and so for stderr and for writelines and flush.
func stdioEdits(sig []pysrc.Token) []Edit {
	var out []Edit
	for i := 0; i+5 < len(sig); i++ {
		x, stream, method := sig[i], sig[i+2], sig[i+4]
		if x.Kind != pysrc.Name || (i > 0 && isOp(sig[i-1], ".")) || !isOp(sig[i+1], ".") || !isOp(sig[i+3], ".") || !isOp(sig[i+5], "(") {
			continue
		}
		if stream.Text != "stdout" && stream.Text != "stderr" || !slices.Contains([]string{"write", "writelines", "flush"}, method.Text) {
			continue
		}
		out = append(out, Edit{x.Start, sig[i+5].End, "__backyard_stdio_" + method.Text + "__(" + x.Text + "." + stream.Text + ", "})
	}
	return out
}

func isOp(t pysrc.Token, op string) bool { return t.Kind == pysrc.Op && t.Text == op }

// twoArgs reports whether the call whose "(" is at sig[open] has a comma
// directly inside its parentheses.
func twoArgs(sig []pysrc.Token, open int) bool {
	d := sig[open].Depth + 1
	for j := open + 1; j < len(sig) && sig[j].Depth >= d; j++ {
		if sig[j].Depth == d && isOp(sig[j], ",") {
			return true
		}
	}
	return false
}

// ApplyShims rewrites code with the given shims, looking for their call
// sites in regions (pysrc.Analysis.Regions of code); it returns the code
// Monty runs and the constructs that were rewritten.
func ApplyShims(code string, regions [][]pysrc.Token, use []Shim) (string, []string) {
	var edits []Edit
	var used []string
	for _, s := range use {
		n := len(edits)
		for _, r := range regions {
			edits = append(edits, s.Edits(r)...)
		}
		if len(edits) > n {
			used = append(used, s.Construct)
		}
	}
	if len(edits) == 0 {
		return code, nil
	}
	slices.SortFunc(edits, func(a, b Edit) int { return b.Start - a.Start })
	for _, e := range edits {
		code = code[:e.Start] + e.Text + code[e.End:]
	}
	return code, used
}

// ShimPrelude is the Monty prelude of the shims.
func ShimPrelude(use []Shim) string {
	var b strings.Builder
	for _, s := range use {
		b.WriteString(s.Prelude)
	}
	return b.String()
}

// exitPrelude gives sys.exit, as the exit() Monty has: SystemExit with
// the code. (A module Monty imports twice is not the same object; its
// stdout is.)
const exitPrelude = `import sys as __backyard_sys__
def __backyard_is_sys__(m):
    try:
        return m.stdout is __backyard_sys__.stdout
    except AttributeError:
        return False
def __backyard_sys_exit__(m, *a, **k):
    if not k and len(a) <= 1 and __backyard_is_sys__(m):
        exit(*a)
    return m.exit(*a, **k)
`

// exitEdits rewrites sys.exit(a) as __backyard_sys_exit__(sys, a).
func exitEdits(sig []pysrc.Token) []Edit {
	var out []Edit
	for i := 0; i+3 < len(sig); i++ {
		x, name := sig[i], sig[i+2]
		if x.Kind != pysrc.Name || x.Text != "sys" || (i > 0 && isOp(sig[i-1], ".")) || !isOp(sig[i+1], ".") || name.Text != "exit" || !isOp(sig[i+3], "(") {
			continue
		}
		out = append(out, Edit{x.Start, sig[i+3].End, "__backyard_sys_exit__(sys, "})
	}
	return out
}

// excPrelude builds a built-in exception from other arguments than one
// string, which Monty refuses, with the str() CPython gives it: one
// argument's str(), several arguments' tuple. Its args are then that
// string.
const excPrelude = `def __backyard_exc__(c, *a, **k):
    if k or not a or len(a) == 1 and type(a[0]) is str:
        return c(*a, **k)
    if len(a) == 1:
        return c(str(a[0]))
    return c(str(a))
`

// excEdits rewrites E(args) as __backyard_exc__(E, args) for a built-in
// exception class E (not the exception groups, which take a message and a
// list).
func excEdits(sig []pysrc.Token) []Edit {
	var out []Edit
	for i := 0; i+1 < len(sig); i++ {
		t := sig[i]
		if t.Kind != pysrc.Name || !builtinException(t.Text) || (i > 0 && isOp(sig[i-1], ".")) || !isOp(sig[i+1], "(") {
			continue
		}
		if i+2 < len(sig) && isOp(sig[i+2], ")") {
			continue // no argument: nothing to build
		}
		out = append(out, Edit{t.Start, sig[i+1].End, "__backyard_exc__(" + t.Text + ", "})
	}
	return out
}

// builtinException reports a built-in exception class that takes any
// arguments.
func builtinException(name string) bool {
	if !pysrc.IsBuiltin(name) || strings.HasSuffix(name, "ExceptionGroup") {
		return false
	}
	switch {
	case strings.HasSuffix(name, "Error"), strings.HasSuffix(name, "Exception"), strings.HasSuffix(name, "Warning"):
		return true
	}
	return slices.Contains([]string{"KeyboardInterrupt", "SystemExit", "GeneratorExit", "StopIteration", "StopAsyncIteration"}, name)
}
