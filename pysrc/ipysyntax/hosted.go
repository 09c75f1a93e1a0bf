package ipysyntax

import (
	"slices"
	"strings"

	"github.com/backyard-ls/backyard-ls/pysrc"
)

// Names a hosted cell (Result.Hosted) calls: the kernel binds the host
// functions and defines the Python ones in its prelude.
const (
	// HostMagic(name, args) is a host function answering a line magic
	// with [stdout, value]; it raises UsageError as IPython does.
	HostMagic = "__backyard_magic__"
	// HostTic() is a host function: %time's clocks start.
	HostTic = "__backyard_tic__"
	// HostTiming() is a host function: the last started clocks stop, and
	// it returns %time's report of them.
	HostTiming = "__backyard_timing__"
	// LineMagicFunc(name, args) prints HostMagic's stdout and returns its
	// value.
	LineMagicFunc = "__backyard_line_magic__"
	// TocFunc(_, value, silent) prints HostTiming's report and returns
	// value (None when silent).
	TocFunc = "__backyard_toc__"
	// WhoFunc(args, getters, long) prints %who's (long: %whos's) listing
	// of the names whose getter does not raise NameError.
	WhoFunc = "__backyard_who__"
	// PprintFunc() is %pprint: pretty printing of values turns off or
	// back on, and it prints which.
	PprintFunc = "__backyard_pprint__"
)

// HostedPrefix starts every name a hosted cell adds.
const HostedPrefix = "__backyard_"

// hostedByCall are the line magics a host answers whole (HostMagic).
// %autoreload asks nothing but that the autoreload extension be loaded,
// which the host knows.
var hostedByCall = map[string]bool{"env": true, "set_env": true, "pwd": true, "lsmagic": true, "autoreload": true}

// extensionMagics are the magics that load, reload and unload an extension:
// the host answers them for autoreload, which registers magics and nothing
// else.
var extensionMagics = map[string]bool{"load_ext": true, "reload_ext": true, "unload_ext": true}

// Hosted is the cell as plain Python for a kernel without IPython's shell
// whose host answers some magics, as IPython's shell would: %time and
// %%time time the code in place (it runs in the cell's namespace, the
// value of a timed expression is the magic's value), %env, %set_env,
// %pwd, %lsmagic, %autoreload, %load_ext, %reload_ext and %unload_ext of
// autoreload, and a magic IPython has not (known says which it has) call
// HostMagic, %who and %whos list names (those of names bound), %precision
// without arguments restores what is already shown, %pprint toggles the
// prelude's pretty printing (PprintFunc), and inert magics are
// None. Lines keep their numbers (%%time adds one line at the end).
//
// ok is false, with the first use it cannot host, for anything else: shell
// escapes, help, other magics, arguments IPython would expand ($x, {x}),
// %time of a compound statement, or of code that asks for a local scope
// (inside a def or class, where IPython's magic runs in a copy of it).
func (r Result) Hosted(known func(name string) bool, names []string) (code string, bad Use, ok bool) {
	if len(r.Uses) == 0 {
		return r.Code, Use{}, true
	}
	if u := r.Uses[0]; u.Kind == CellMagic {
		return r.hostedCell(u, known, names)
	}
	code = r.Code
	for _, u := range r.Uses {
		repl, ok := hostedLine(u, r.Code, known, names)
		if !ok || u.call == "" {
			return "", u, false
		}
		code = strings.Replace(code, u.call, repl, 1)
	}
	return code, Use{}, true
}

// hostedCell is a %%time cell: the clocks start on its first line, and
// stop around its trailing expression or after its last line.
func (r Result) hostedCell(u Use, known func(string) bool, names []string) (string, Use, bool) {
	if u.Name != "time" || strings.TrimSpace(u.Args) != "" || r.src == "" {
		return "", u, false
	}
	ls := lines(r.src)
	body := strings.Join(ls[u.Line+1:], "")
	hb, bad, ok := Transform(body).Hosted(known, names)
	if !ok {
		return "", bad, false
	}
	if start, end, ok := pysrc.TrailingExpr(hb); ok {
		hb = hb[:start] + TocFunc + "(None, (" + hb[start:end] + "), False)" + hb[end:]
	} else {
		if hb != "" && !strings.HasSuffix(hb, "\n") {
			hb += "\n"
		}
		hb += TocFunc + "(None, None, True)"
	}
	return strings.Repeat("\n", u.Line) + HostTic + "()\n" + hb, Use{}, true
}

// hostedLine is the Python that replaces the line magic u of code.
func hostedLine(u Use, code string, known func(string) bool, names []string) (string, bool) {
	if u.Kind != LineMagic {
		return "", false
	}
	if u.Inert() {
		return "None", true
	}
	if strings.ContainsAny(u.Args, "${}") {
		return "", false // IPython expands them in the namespace first
	}
	args := strings.TrimSpace(u.Args)
	switch {
	case u.Name == "time":
		if insideDef(code, u.Line) {
			return "", false
		}
		return hostedTime(u.Args, u.Assigned)
	case u.Name == "who" || u.Name == "whos":
		if insideDef(code, u.Line) {
			return "", false
		}
		long := "False"
		if u.Name == "whos" {
			long = "True"
		}
		return WhoFunc + "(" + PyRepr(args) + ", " + getters(names) + ", " + long + ")", true
	case u.Name == "precision" && args == "":
		// Monty shows floats as repr() does, which is %precision's default.
		return LineMagicFunc + "('precision', '')", true
	case u.Name == "pprint":
		return PprintFunc + "()", true // IPython ignores its arguments
	case hostedByCall[u.Name] || !known(u.Name) || extensionMagics[u.Name] && args == "autoreload":
		return LineMagicFunc + "(" + PyRepr(u.Name) + ", " + PyRepr(u.Args) + ")", true
	}
	return "", false
}

// getters is a dict literal of a lambda per name (those %who shows), for
// WhoFunc to read the bound ones, each with whether it names a builtin.
func getters(names []string) string {
	var shown []string
	for _, n := range names {
		if !strings.HasPrefix(n, "_") && !hiddenNames[n] && isIdent(n) {
			shown = append(shown, n)
		}
	}
	slices.Sort(shown)
	shown = slices.Compact(shown)
	var b strings.Builder
	b.WriteString("{")
	for i, n := range shown {
		if i > 0 {
			b.WriteString(", ")
		}
		builtin := "False"
		if pysrc.IsBuiltin(n) {
			builtin = "True" // not listed while it is the builtin
		}
		b.WriteString(PyRepr(n) + ": ((lambda: " + n + "), " + builtin + ")")
	}
	b.WriteString("}")
	return b.String()
}

func isIdent(s string) bool {
	toks, err := pysrc.Tokenize(s)
	return err == nil && len(toks) > 0 && toks[0].Kind == pysrc.Name && toks[0].Text == s && !keywords[s]
}

// keywords are Python's keywords (not soft ones).
var keywords = map[string]bool{"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true, "async": true,
	"await": true, "break": true, "class": true, "continue": true, "def": true, "del": true, "elif": true, "else": true,
	"except": true, "finally": true, "for": true, "from": true, "global": true, "if": true, "import": true, "in": true,
	"is": true, "lambda": true, "nonlocal": true, "not": true, "or": true, "pass": true, "raise": true, "return": true,
	"try": true, "while": true, "with": true, "yield": true}

// compound are the keywords that start a compound statement (or a part of
// one), which %time's statement-in-place form cannot hold.
var compound = map[string]bool{"if": true, "elif": true, "else": true, "for": true, "while": true, "with": true, "def": true,
	"class": true, "try": true, "except": true, "finally": true, "async": true}

// hostedTime is %time stmt in place: the clocks start, the statement runs
// in the namespace, the report prints and a trailing expression's value
// is the magic's value (IPython's eval of it), None when the magic line
// ends with ';'.
func hostedTime(args string, assigned bool) (string, bool) {
	s := strings.TrimSpace(args)
	if toks, err := pysrc.Tokenize(s); err == nil {
		for _, t := range toks {
			if t.Kind == pysrc.Comment {
				s = strings.TrimSpace(s[:t.Start]) // the calls after it must not be commented out
				break
			}
		}
	}
	silent := "False"
	if t, ok := strings.CutSuffix(s, ";"); ok {
		s, silent = strings.TrimSpace(t), "True"
	}
	if s == "" {
		return TocFunc + "(" + HostTic + "(), None, True)", true
	}
	if strings.HasPrefix(s, "-") || maybe(s) {
		return "", false // options, or IPython syntax to transform first
	}
	toks, err := pysrc.Tokenize(s)
	if err != nil || len(toks) == 0 {
		return "", false
	}
	for _, t := range toks {
		if t.Kind == pysrc.Newline && t.End < len(s) {
			return "", false
		}
	}
	if f := toks[0]; f.Kind == pysrc.Name && compound[f.Text] || isOp(f, "@") {
		return "", false
	}
	start, end, isExpr := pysrc.TrailingExpr(s)
	switch {
	case isExpr && start == 0 && strings.TrimSpace(s[end:]) == "":
		return TocFunc + "(" + HostTic + "(), (" + s + "), " + silent + ")", true
	case assigned:
		return "", false // statements cannot stand on an assignment's right
	case isExpr:
		return HostTic + "(); " + s[:start] + TocFunc + "(None, (" + s[start:end] + "), " + silent + ")" + s[end:], true
	}
	return HostTic + "(); " + s + "; " + TocFunc + "(None, None, True)", true
}

// insideDef reports whether line (0-based) of code lies in the body of a
// def or a class: a magic there gets the function's locals from IPython.
func insideDef(code string, line int) bool {
	ls := strings.Split(code, "\n")
	if line >= len(ls) {
		return false
	}
	cur := indentWidth(ls[line])
	for j := line - 1; j >= 0 && cur > 0; j-- {
		s := strings.TrimSpace(ls[j])
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		if w := indentWidth(ls[j]); w < cur {
			cur = w
			f := strings.Fields(s)
			if f[0] == "def" || f[0] == "class" || f[0] == "async" || strings.HasPrefix(f[0], "def(") {
				return true
			}
		}
	}
	return false
}

func indentWidth(l string) int { return len(l) - len(strings.TrimLeft(l, " \t")) }
