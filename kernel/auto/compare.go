package auto

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/pysrc"
)

// sameOutput reports whether two runs of a cell show the same: status,
// output, value and exception with its notes, chain and group members
// (tracebacks and durations aside).
func sameOutput(a, b kernel.Result) bool {
	return a.Status == b.Status && timed(a.Stdout) == timed(b.Stdout) && a.Stderr == b.Stderr &&
		valueText(a) == valueText(b) && sameError(a.Error, b.Error)
}

// sameError reports whether two exceptions read the same where a traceback
// shows them: type, message, notes, the cause or context before them and
// their members (Monty reports no chain: a chained exception of CPython's
// is not Monty's).
func sameError(a, b *contract.ExecutionError) bool {
	switch {
	case a == nil || b == nil:
		return a == b
	case a.EName != b.EName || a.EValue != b.EValue || !slices.Equal(a.Notes, b.Notes) || a.MoreExceptions != b.MoreExceptions,
		len(a.Exceptions) != len(b.Exceptions) || !sameError(a.Cause, b.Cause) || !sameError(a.Context, b.Context):
		return false
	}
	for i := range a.Exceptions {
		if !sameError(&a.Exceptions[i], &b.Exceptions[i]) {
			return false
		}
	}
	return true
}

// sameException reports whether two runs raised the same exception type at
// the same line of the cell after the same output: then the namespaces
// agree and only the message differs.
func sameException(m, c kernel.Result) bool {
	return m.Status == kernel.StatusError && c.Status == kernel.StatusError && baseName(m.Error.EName) == baseName(c.Error.EName) &&
		timed(m.Stdout) == timed(c.Stdout) && m.Stderr == c.Stderr && cellLine(m) == cellLine(c) && cellLine(m) > 0
}

// timingLine is a line of %time's report, whose durations differ from run
// to run.
var timingLine = regexp.MustCompile(`(?m)^(CPU times|Wall time): .*$`)

// timed is stdout with %time's reports as their first words: two runs
// that timed the same code agree.
func timed(stdout string) string {
	if !strings.Contains(stdout, " time") {
		return stdout
	}
	return timingLine.ReplaceAllString(stdout, "$1")
}

// baseName is an exception's type name without its module: Monty names
// some by module (decimal.InvalidOperation), CPython by class.
func baseName(ename string) string {
	return ename[strings.LastIndexByte(ename, '.')+1:]
}

func valueText(r kernel.Result) string {
	if r.Value == nil {
		return ""
	}
	return r.Value.Text
}

func errorText(r kernel.Result) string {
	if r.Error == nil {
		return ""
	}
	return r.Error.EName + ": " + r.Error.EValue
}

// cellLine is the innermost traceback line in the cell (1-based), 0 when
// none is.
func cellLine(r kernel.Result) int {
	if r.Error == nil {
		return 0
	}
	for i := len(r.Error.Traceback) - 1; i >= 0; i-- {
		if l := r.Error.Traceback[i].Line; l > 0 {
			return l
		}
	}
	return 0
}

// maxCompared bounds the names and the repr length a value check compares.
const (
	maxComparedNames = 64
	maxComparedRepr  = 20000
)

// comparedNames are the names of a cell whose values a check compares: the
// names it mentions, except CPython's built-ins and dunder names.
func comparedNames(c *cell) []string {
	var out []string
	for _, n := range c.Names {
		if pysrc.IsBuiltin(n) || strings.HasPrefix(n, "__") || n == "_" {
			continue
		}
		if out = append(out, n); len(out) == maxComparedNames {
			break
		}
	}
	return out
}

// fingerprint is code that prints, for each name, "-" when it is not
// bound, else its type's name and repr (a module's repr left out: it names
// a file in CPython). It binds no name in CPython (an except clause's name
// is deleted after it), so no later dir() or globals() shows it.
func fingerprint(names []string) string {
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "try:\n    print('=', type(%[1]s).__name__, '' if type(%[1]s).__name__ == 'module' else repr(%[1]s)[:%[2]d])\n", n, maxComparedRepr)
		b.WriteString("except NameError:\n    print('-')\nexcept Exception as __backyard_e__:\n    print('!', type(__backyard_e__).__name__)\n")
	}
	return b.String()
}

// opaqueTypes are the types of values a check does not compare by repr:
// code and modules, which Monty and CPython name differently (a library
// class is <class 'Counter'> in Monty, <class 'collections.Counter'> in
// CPython; a library function is built in in one, Python in the other).
// What they do shows in the values computed with them.
var opaqueTypes = []string{"type", "function", "builtin_function_or_method", "method", "module", "method-wrapper", "builtin_method"}

// opaque reports a fingerprint line ("= TYPE REPR") of an opaque value.
func opaque(line string) bool {
	f := strings.Fields(line)
	return len(f) >= 2 && f[0] == "=" && slices.Contains(opaqueTypes, f[1])
}

// Reprs that name an object's identity or its module differ between Monty
// and CPython for the same value: `<__main__.P object at 0x7f…>` is Monty's
// `<P object at 0x90>`, `<function f at 0x7f…>` its `<function 'f' at 0x2c>`.
var (
	address    = regexp.MustCompile(` at 0x[0-9a-fA-F]+`)
	mainPrefix = regexp.MustCompile(`(<|<class ')__main__\.`)
	quotedFunc = regexp.MustCompile(`<function '([^']*)'`)
)

func normalizeRepr(s string) string {
	s = address.ReplaceAllString(s, "")
	s = mainPrefix.ReplaceAllString(s, "$1")
	return quotedFunc.ReplaceAllString(s, "<function $1")
}

// setOrderFree rewrites the sets in a repr with their items sorted (and
// all spacing canonical): Monty keeps a set's insertion order, CPython
// its hash order, so the same set reads differently. Dict displays keep
// their order, which both keep alike.
func setOrderFree(repr string) string {
	toks, err := pysrc.Tokenize(repr)
	if err != nil {
		return repr
	}
	sig := toks[:0:0]
	for _, t := range toks {
		if t.Kind != pysrc.Comment && t.Kind != pysrc.Newline {
			sig = append(sig, t)
		}
	}
	c := canon{sig: sig}
	var b strings.Builder
	for c.i < len(c.sig) {
		text, _ := c.item()
		b.WriteString(text)
		if c.i < len(c.sig) { // a separator or a stray closer at top level
			b.WriteString(c.sig[c.i].Text + " ")
			c.i++
		}
	}
	return b.String()
}

type canon struct {
	sig []pysrc.Token
	i   int
}

func closes(t pysrc.Token) bool {
	return t.Kind == pysrc.Op && (t.Text == "," || t.Text == ")" || t.Text == "]" || t.Text == "}")
}

// item reads one comma-separated item, up to a top-level ',' or a closer;
// colon says it has a top-level ':' (a dict entry).
func (c *canon) item() (text string, colon bool) {
	var b strings.Builder
	for c.i < len(c.sig) && !closes(c.sig[c.i]) {
		t := c.sig[c.i]
		if t.Kind == pysrc.Op && (t.Text == "(" || t.Text == "[" || t.Text == "{") {
			b.WriteString(c.group())
			continue
		}
		colon = colon || t.Kind == pysrc.Op && t.Text == ":"
		b.WriteString(t.Text + " ")
		c.i++
	}
	return b.String(), colon
}

// group reads the bracket pair opening at the current token.
func (c *canon) group() string {
	open := c.sig[c.i].Text
	c.i++
	var items []string
	dict := false
	for c.i < len(c.sig) {
		text, colon := c.item()
		dict = dict || colon
		items = append(items, text)
		if c.i < len(c.sig) && c.sig[c.i].Text == "," {
			c.i++
			continue
		}
		break
	}
	if c.i < len(c.sig) {
		c.i++ // the closer
	}
	if open == "{" && !dict {
		slices.Sort(items)
	}
	return open + strings.Join(items, ", ") + map[string]string{"(": ")", "[": "]", "{": "}"}[open] + " "
}

// echo remembers what Monty streamed of a cell, so that the container's run
// of the same cell streams only what comes after it; when the container's
// output departs from what was shown, streaming stops and the result
// carries the whole output.
type echo struct {
	mu   sync.Mutex
	sent [2]strings.Builder
}

func streamIndex(s kernel.Stream) int {
	if s == kernel.Stderr {
		return 1
	}
	return 0
}

func (e *echo) tee(out func(kernel.Stream, string)) func(kernel.Stream, string) {
	return func(s kernel.Stream, text string) {
		e.mu.Lock()
		e.sent[streamIndex(s)].WriteString(text)
		e.mu.Unlock()
		if out != nil {
			out(s, text)
		}
	}
}

func (e *echo) resume(out func(kernel.Stream, string)) func(kernel.Stream, string) {
	if out == nil {
		return nil
	}
	e.mu.Lock()
	seen := [2]string{e.sent[0].String(), e.sent[1].String()}
	e.mu.Unlock()
	var pos [2]int
	var diverged [2]bool
	return func(s kernel.Stream, text string) {
		i := streamIndex(s)
		if diverged[i] {
			return
		}
		if rest := seen[i][pos[i]:]; rest != "" {
			n := commonPrefix(text, rest)
			if n < len(text) && n < len(rest) {
				diverged[i] = true
				return
			}
			pos[i] += n
			text = text[n:]
		}
		if text != "" {
			out(s, text)
		}
	}
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}
