package auto

import (
	"slices"
	"strings"

	"github.com/backyard-ls/backyard-ls/pysrc"
)

// A shim makes Monty give CPython's answer for a construct it runs
// differently, so the cell can stay on Monty: the cell's call sites are
// rewritten to call a helper that every Monty session defines (its
// prelude). The rewrite keeps line numbers and passes the original callee
// or receiver to the helper, which falls back to it for anything it does
// not cover (a rebound name, another argument form): then Monty behaves as
// without the shim, and an error it raises is confirmed as any other.
//
// A shim is used only for a construct the pinned worker runs differently
// and only when the worker, running the construct's probe with the shim,
// prints what CPython printed (probeMonty).
type shim struct {
	// construct is the probe's name for what the shim covers.
	construct string
	prelude   string
	// edits finds the call sites in a token list (one region of a cell).
	edits func(sig []pysrc.Token) []edit
}

type edit struct {
	start, end int
	text       string
}

var shims = []shim{
	{construct: "round-ndigits", prelude: roundPrelude, edits: roundEdits},
	{construct: "stdio-write", prelude: stdioPrelude, edits: stdioEdits},
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
func roundEdits(sig []pysrc.Token) []edit {
	var out []edit
	for i := 0; i+1 < len(sig); i++ {
		t := sig[i]
		if t.Kind != pysrc.Name || t.Text != "round" || (i > 0 && isOp(sig[i-1], ".")) || !isOp(sig[i+1], "(") || !twoArgs(sig, i+1) {
			continue
		}
		out = append(out, edit{t.Start, sig[i+1].End, "__backyard_round__(round, "})
	}
	return out
}

// stdioEdits rewrites X.stdout.write(a) as __backyard_stdio_write__(X.stdout, a),
// and so for stderr and for writelines and flush.
func stdioEdits(sig []pysrc.Token) []edit {
	var out []edit
	for i := 0; i+5 < len(sig); i++ {
		x, stream, method := sig[i], sig[i+2], sig[i+4]
		if x.Kind != pysrc.Name || (i > 0 && isOp(sig[i-1], ".")) || !isOp(sig[i+1], ".") || !isOp(sig[i+3], ".") || !isOp(sig[i+5], "(") {
			continue
		}
		if stream.Text != "stdout" && stream.Text != "stderr" || !slices.Contains([]string{"write", "writelines", "flush"}, method.Text) {
			continue
		}
		out = append(out, edit{x.Start, sig[i+5].End, "__backyard_stdio_" + method.Text + "__(" + x.Text + "." + stream.Text + ", "})
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

// applyShims rewrites the cell with the given shims (its regions are where
// they look); it returns the code Monty runs and the constructs that were
// rewritten.
func applyShims(c *cell, use []shim) (string, []string) {
	var edits []edit
	var used []string
	for _, s := range use {
		n := len(edits)
		for _, r := range c.Regions {
			edits = append(edits, s.edits(r)...)
		}
		if len(edits) > n {
			used = append(used, s.construct)
		}
	}
	code := c.code
	if len(edits) == 0 {
		return code, nil
	}
	slices.SortFunc(edits, func(a, b edit) int { return b.start - a.start })
	for _, e := range edits {
		code = code[:e.start] + e.text + code[e.end:]
	}
	return code, used
}

// shimConstructs are the constructs of the cell that only a shim detects.
func shimConstructs(c *cell) []string {
	var out []string
	for _, s := range shims {
		for _, r := range c.Regions {
			if len(s.edits(r)) > 0 {
				out = append(out, s.construct)
				break
			}
		}
	}
	return out
}

// prelude is the Monty prelude of the shims.
func prelude(use []shim) string {
	var b strings.Builder
	for _, s := range use {
		b.WriteString(s.prelude)
	}
	return b.String()
}
