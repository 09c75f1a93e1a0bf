// Package ipysyntax turns a cell written with IPython's additions (line and
// cell magics, shell escapes, help with ?) into plain Python, as IPython's
// input transformations do before it compiles a cell: `%time x` becomes
// get_ipython().run_line_magic('time', 'x'), `!ls` becomes
// get_ipython().system('ls'), a cell starting with `%%bash` becomes one
// get_ipython().run_cell_magic call. The kernel's get_ipython() answers
// the calls. A cell without any of it comes back unchanged.
//
// Unlike IPython, a transformed line keeps the cell's line count (a magic
// continued over several lines, or a cell magic, leaves blank lines after
// its call), so line numbers of diagnostics and tracebacks still point
// into the cell as written.
package ipysyntax

import (
	"regexp"
	"slices"
	"strings"

	"github.com/backyard-ls/backyard-ls/pysrc"
)

// Kind says what a transformed line is.
type Kind int

// Kinds of IPython syntax.
const (
	LineMagic   Kind = iota + 1 // %name args, and var = %name args
	CellMagic                   // %%name on the cell's first line
	Shell                       // !cmd
	ShellOutput                 // !!cmd and var = !cmd
	Help                        // ?x, x?, x??
)

// Use is one piece of IPython syntax found in a cell.
type Use struct {
	Kind Kind
	// Name is the magic's name (without %), "pinfo"/"pinfo2" for help, or
	// the command for a shell escape.
	Name string
	// Args is the rest of a magic's line (a cell magic's first line).
	Args string
	// Line is the 0-based line of the cell it starts on.
	Line int
	// Assigned: the use is the right side of an assignment (var = %name).
	Assigned bool

	call string // the Python that replaced it
}

// Result is a transformed cell.
type Result struct {
	// Code is the cell as plain Python (the cell itself, cleaned up, when
	// Uses is empty).
	Code string
	Uses []Use

	src string // the cell as written
}

// Magics reports whether the cell uses any IPython syntax.
func (r Result) Magics() bool { return len(r.Uses) > 0 }

// maxPasses bounds the transformations of one cell (one per magic line).
const maxPasses = 10000

// Transform transforms code. First it cleans it up as IPython does
// (cleanup: the common indentation and pasted prompts go), then it
// transforms the IPython syntax. It is cheap for a cell without IPython syntax:
// a cell where no line starts with %, ! or ? and none ends with ? (or
// assigns from % or !) is not tokenized.
func Transform(code string) Result {
	code = cleanup(code)
	if !maybe(code) {
		return Result{Code: code}
	}
	if r, ok := cellMagic(code); ok {
		r.src = code
		return r
	}
	src := code
	var uses []Use
	for range maxPasses {
		next, use, ok := transformOne(code)
		if !ok {
			break
		}
		code = next
		uses = append(uses, use)
	}
	return Result{Code: code, Uses: uses, src: src}
}

// maybe is the cheap test: could code hold IPython syntax at all?
func maybe(code string) bool {
	if !strings.ContainsAny(code, "%!?") {
		return false
	}
	for line := range strings.Lines(code) {
		s := strings.TrimLeft(line, " \t\f")
		if s == "" {
			continue
		}
		switch s[0] {
		case '%', '!', '?':
			return true
		}
		e := strings.TrimRight(s, " \t\f\r\n")
		if strings.HasSuffix(e, "?") {
			return true
		}
		if i := strings.IndexByte(e, '='); i >= 0 {
			rest := strings.TrimLeft(e[i+1:], " \t")
			if rest != "" && (rest[0] == '%' || rest[0] == '!') {
				return true
			}
		}
	}
	return false
}

// lines splits code into physical lines, each with its line break.
func lines(code string) []string {
	var out []string
	for l := range strings.Lines(code) {
		out = append(out, l)
	}
	return out
}

// cellMagic transforms a cell whose first non-blank line starts with %%:
// the rest of that line is the magic's line, the lines below its body.
func cellMagic(code string) (Result, bool) {
	ls := lines(code)
	i := 0
	for i < len(ls) && strings.TrimSpace(ls[i]) == "" {
		i++
	}
	if i == len(ls) || !strings.HasPrefix(ls[i], "%%") {
		return Result{}, false
	}
	first := strings.TrimRight(ls[i][2:], " \t\r\n")
	name, args, _ := strings.Cut(first, " ")
	body := strings.Join(ls[i+1:], "")
	if pythonBody[name] {
		// These run the body as a cell: IPython transforms it first.
		body = Transform(body).Code
	}
	call := "get_ipython().run_cell_magic(" + PyRepr(name) + ", " + PyRepr(args) + ", " + PyRepr(body) + ")\n"
	// Keep the cell's line count: the body's lines become blank.
	pad := strings.Repeat("\n", max(0, len(ls)-i-1))
	if !strings.HasSuffix(code, "\n") && !strings.HasSuffix(code, "\r") && pad != "" {
		pad = pad[1:]
	}
	return Result{Code: strings.Repeat("\n", i) + call + pad, Uses: []Use{{Kind: CellMagic, Name: name, Args: args, Line: i}}}, true
}

// pythonBody are the cell magics whose body is Python code.
var pythonBody = map[string]bool{"time": true, "timeit": true, "capture": true, "prun": true}

// helpName is what `x?` may ask about, as IPython's help-end rule reads
// it: a dotted name, maybe with % and *, and integer subscripts (x[0]).
const helpName = `%{0,2}[\p{L}\p{Nl}\p{No}_*][\p{L}\p{N}_*]*(?:\.[\p{L}\p{Nl}\p{No}_*][\p{L}\p{N}_*]*|\[-?[0-9]+\])*`

var (
	helpTarget = regexp.MustCompile(`^` + helpName + `$`)
	// helpEndName finds, as IPython searches a line ending in ? or ??,
	// the leftmost such name that runs up to them: in Point(1, 2).x? it
	// is x, and the help is on x (the line's call is not run).
	helpEndName = regexp.MustCompile(`(` + helpName + `)(\?\??)$`)
)

// transformOne transforms the first line holding IPython syntax.
func transformOne(code string) (string, Use, bool) {
	toks, _ := pysrc.TokenizeLenient(code)
	prevNewline := true // the next significant token starts a logical line
	startTok := -1      // the first token of the current logical line
	for i, t := range toks {
		if t.Kind == pysrc.Comment {
			continue
		}
		if t.Kind == pysrc.Newline {
			// Help at the end of a logical line: x? or x?? (nothing after
			// it, not even a space, as IPython reads it).
			if startTok >= 0 && i > 0 && isOp(toks[i-1], "?") && toks[i-1].Depth == 0 && strings.Trim(code[toks[i-1].End:t.Start], "\r\n") == "" {
				if out, use, ok := helpEnd(code, toks[startTok].Line, toks[i-1].Line); ok {
					return out, use, true
				}
			}
			prevNewline, startTok = true, -1
			continue
		}
		if prevNewline {
			prevNewline, startTok = false, i
			if t.Kind == pysrc.Op && t.Depth == 0 && (t.Text == "%" || t.Text == "!" || t.Text == "?" || t.Text == "%=" || t.Text == "!=") {
				return escaped(code, t)
			}
			continue
		}
		// var = !cmd and var = %magic: the first = of the logical line.
		if isOp(t, "=") && t.Depth == 0 && i+1 < len(toks) && toks[i+1].Line == t.Line && firstAssign(toks[startTok:i]) {
			n := toks[i+1]
			if n.Kind == pysrc.Op && (n.Text == "!" || (n.Text == "%" && i+2 < len(toks) && toks[i+2].Kind == pysrc.Name && toks[i+2].Start == n.End)) {
				return assign(code, t, n)
			}
		}
	}
	return code, Use{}, false
}

func isOp(t pysrc.Token, op string) bool { return t.Kind == pysrc.Op && t.Text == op }

// firstAssign reports whether no = precedes at depth 0 in the line's tokens.
func firstAssign(toks []pysrc.Token) bool {
	for _, t := range toks {
		if isOp(t, "=") && t.Depth == 0 {
			return false
		}
	}
	return true
}

// span is a logical line made of physical lines joined by backslashes.
type span struct {
	first, last int // physical lines
	start, end  int // byte offsets: the line's start, after its line break
}

// continued finds the physical lines from line first on that backslashes
// join, as IPython does for an escaped line (quotes in a shell command do
// not matter).
func continued(code string, first int) span {
	starts := lineStarts(code)
	s := span{first: first, last: first, start: starts[first]}
	for {
		end := len(code)
		if s.last+1 < len(starts) {
			end = starts[s.last+1]
		}
		s.end = end
		text := strings.TrimRight(code[starts[s.last]:end], "\r\n")
		if !strings.HasSuffix(text, "\\") || s.last+1 >= len(starts) {
			return s
		}
		s.last++
	}
}

func lineStarts(code string) []int {
	starts := []int{0}
	for i := 0; i < len(code); i++ {
		switch code[i] {
		case '\n':
			starts = append(starts, i+1)
		case '\r':
			if i+1 < len(code) && code[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		}
	}
	if starts[len(starts)-1] == len(code) && len(starts) > 1 {
		starts = starts[:len(starts)-1]
	}
	return starts
}

// assemble joins the span's lines from byte offset from on: each
// continued line loses its backslash, and the parts are joined by a space.
func assemble(code string, s span, from int) string {
	text := code[from:s.end]
	parts := strings.SplitAfter(text, "\n")
	if len(parts) > 1 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	var b strings.Builder
	for i, p := range parts {
		p = strings.TrimRight(p, " \t\r\n")
		if i < len(parts)-1 {
			p = strings.TrimSuffix(p, "\\")
			b.WriteString(p)
			b.WriteByte(' ')
			continue
		}
		b.WriteString(p)
	}
	return b.String()
}

// replace puts call (indented as the line was) in place of the span,
// keeping the span's line count.
func replace(code string, s span, indent, call string) string {
	return code[:s.start] + indent + call + strings.Repeat("\n", s.last-s.first+1) + code[s.end:]
}

func lineBreak(code string, s span) bool {
	return s.end > 0 && (code[s.end-1] == '\n' || code[s.end-1] == '\r')
}

// escaped transforms a logical line starting with %, !, !!, ? or ??.
func escaped(code string, t pysrc.Token) (string, Use, bool) {
	s := continued(code, t.Line)
	indent := code[s.start:t.Start]
	line := assemble(code, s, t.Start)
	var call string
	var use Use
	switch {
	case strings.HasPrefix(line, "!!"):
		call = "get_ipython().getoutput(" + PyRepr(line[2:]) + ")"
		use = Use{Kind: ShellOutput, Name: line[2:]}
	case strings.HasPrefix(line, "!"):
		call = "get_ipython().system(" + PyRepr(line[1:]) + ")"
		use = Use{Kind: Shell, Name: line[1:]}
	case strings.HasPrefix(line, "??"), strings.HasPrefix(line, "?"):
		esc := "?"
		if strings.HasPrefix(line, "??") {
			esc = "??"
		}
		target := strings.TrimSpace(line[len(esc):])
		if target == "" {
			call, use = "get_ipython().show_usage()", Use{Kind: Help, Name: "usage"}
		} else {
			call, use = helpCall(target, esc)
		}
	case strings.HasSuffix(line, "?") && helpTarget.MatchString(strings.TrimRight(line, "?")):
		// %magic? asks about the magic (IPython's help-end rule wins).
		esc := "?"
		if strings.HasSuffix(line, "??") {
			esc = "??"
		}
		call, use = helpCall(strings.TrimRight(line, "?"), esc)
	default: // %
		name, args, _ := strings.Cut(line[1:], " ")
		call = "get_ipython().run_line_magic(" + PyRepr(name) + ", " + PyRepr(args) + ")"
		use = Use{Kind: LineMagic, Name: name, Args: args}
	}
	use.Line, use.call = t.Line, call
	out := replace(code, s, indent, call)
	if !lineBreak(code, s) {
		out = strings.TrimSuffix(out, "\n")
	}
	return out, use, true
}

// helpCall is IPython's help call for target?, target?? or target* (a
// search).
func helpCall(target, esc string) (string, Use) {
	method := "pinfo"
	switch {
	case esc == "??":
		method = "pinfo2"
	case strings.Contains(target, "*"):
		method = "psearch"
	}
	return "get_ipython().run_line_magic(" + PyRepr(method) + ", " + PyRepr(target) + ")", Use{Kind: Help, Name: method}
}

// helpEnd transforms a logical line (physical lines first..last) ending in
// ? or ??, when what precedes is a name IPython would look up.
func helpEnd(code string, first, last int) (string, Use, bool) {
	starts := lineStarts(code)
	s := continued(code, first)
	if s.last < last {
		s.last = last
		s.end = len(code)
		if last+1 < len(starts) {
			s.end = starts[last+1]
		}
	}
	line := assemble(code, s, s.start)
	trimmed := strings.TrimLeft(line, " \t\f")
	indent := line[:len(line)-len(trimmed)]
	m := helpEndName.FindStringSubmatch(strings.TrimRight(trimmed, "\r\n"))
	if m == nil {
		return code, Use{}, false
	}
	call, use := helpCall(m[1], m[2])
	use.Line, use.call = first, call
	out := replace(code, s, indent, call)
	if !lineBreak(code, s) {
		out = strings.TrimSuffix(out, "\n")
	}
	return out, use, true
}

// assign transforms `targets = !cmd` and `targets = %magic args`.
func assign(code string, eq, esc pysrc.Token) (string, Use, bool) {
	starts := lineStarts(code)
	first := eq.Line
	for first > 0 && strings.HasSuffix(strings.TrimRight(code[starts[first-1]:starts[first]], "\r\n"), "\\") {
		first--
	}
	s := continued(code, eq.Line)
	s.first, s.start = first, starts[first]
	lhs := code[s.start:eq.Start]
	rest := strings.TrimLeft(assemble(code, span{first: eq.Line, last: s.last, start: esc.Start, end: s.end}, esc.Start), " ")
	var call string
	var use Use
	if strings.HasPrefix(rest, "!") {
		cmd := strings.TrimPrefix(strings.TrimPrefix(rest, "!"), "!")
		call, use = "get_ipython().getoutput("+PyRepr(cmd)+")", Use{Kind: ShellOutput, Name: cmd}
	} else {
		name, args, _ := strings.Cut(rest[1:], " ")
		call, use = "get_ipython().run_line_magic("+PyRepr(name)+", "+PyRepr(args)+")", Use{Kind: LineMagic, Name: name, Args: args, Assigned: true}
	}
	use.Line, use.call = first, call
	out := replace(code, s, strings.TrimRight(lhs, " \t")+" = ", call)
	if !lineBreak(code, s) {
		out = strings.TrimSuffix(out, "\n")
	}
	return out, use, true
}

// PyRepr is Python's repr of the str s.
func PyRepr(s string) string { return pysrc.StrRepr(s) }

// Inert reports whether the use asks nothing of a kernel but to accept
// it: %matplotlib inline (figures are drawn inline anyway) and %config.
// A kernel without IPython's shell runs such a line as None.
func (u Use) Inert() bool {
	if u.Kind != LineMagic {
		return false
	}
	args := strings.TrimSpace(u.Args)
	switch u.Name {
	case "matplotlib":
		return args == "inline" || args == ""
	case "config":
		return args != ""
	}
	return false
}

// Plain is the cell as plain Python for a kernel without IPython's shell:
// its inert magics (Use.Inert) become None. ok is false when the cell has
// other IPython syntax.
func (r Result) Plain() (code string, ok bool) {
	code = r.Code
	for _, u := range r.Uses {
		if !u.Inert() || u.call == "" {
			return "", false
		}
		code = strings.Replace(code, u.call, "None", 1)
	}
	return code, true
}

// Single is the cell's one line magic when the cell is that line and
// nothing else (a kernel without IPython's shell may answer it whole).
func (r Result) Single() (Use, bool) {
	if len(r.Uses) != 1 || r.Uses[0].Kind != LineMagic || strings.TrimSpace(r.Code) != r.Uses[0].call {
		return Use{}, false
	}
	return r.Uses[0], true
}

// MontyAnswers reports whether a kernel without IPython's shell answers u,
// a cell's Single magic, as IPython does: %pwd (the kernel's folder),
// %lsmagic (the shell's magics), %who (the namespace's names), and a magic
// IPython's shell does not have (known says which it has), whose answer is
// IPython's UsageError.
func (u Use) MontyAnswers(known func(name string) bool) bool {
	if u.Kind != LineMagic {
		return false
	}
	switch u.Name {
	case "pwd", "lsmagic", "who":
		return strings.TrimSpace(u.Args) == ""
	}
	return !known(u.Name)
}

// Who is what IPython's %who prints for the names of a namespace (those
// starting with _ left out): sorted, nine to a line, each followed by a
// tab and a space.
func Who(names []string) string {
	var shown []string
	for _, n := range names {
		if !strings.HasPrefix(n, "_") && !hiddenNames[n] {
			shown = append(shown, n)
		}
	}
	if len(shown) == 0 {
		return "Interactive namespace is empty.\n"
	}
	slices.Sort(shown)
	var b strings.Builder
	for i, n := range shown {
		b.WriteString(n + "\t ")
		if i%9 == 8 {
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
	return b.String()
}

// hiddenNames are the names IPython's shell keeps out of %who.
var hiddenNames = map[string]bool{"In": true, "Out": true, "get_ipython": true, "exit": true, "quit": true, "display": true}

// historyName matches the names of IPython's input and output history
// besides In and Out: _, __, ___, _N, _i, _ii, _iii, _iN, _ih, _oh, _dh.
var historyName = regexp.MustCompile(`^(_{1,3}|_\d+|_i{1,3}|_i\d+|_ih|_oh|_dh)$`)

// IsHistoryName says whether IPython's shell defines name for its history
// (In, Out, _, _1, _i…), which a kernel without its shell has not.
func IsHistoryName(name string) bool {
	return name == "In" || name == "Out" || historyName.MatchString(name)
}

// UnknownMagic is IPython's message for a line magic it does not have.
func UnknownMagic(name string) string {
	return "Line magic function `%" + name + "` not found."
}

// PipInstalls are the packages the cell's %pip install and %uv pip install
// lines name (options left out), in order.
func (r Result) PipInstalls() []string {
	var out []string
	for _, u := range r.Uses {
		if u.Kind != LineMagic {
			continue
		}
		f := strings.Fields(u.Args)
		switch {
		case u.Name == "pip" && len(f) > 0 && f[0] == "install":
			f = f[1:]
		case u.Name == "uv" && len(f) > 1 && f[0] == "pip" && f[1] == "install":
			f = f[2:]
		default:
			continue
		}
		for _, a := range f {
			if !strings.HasPrefix(a, "-") {
				out = append(out, strings.Trim(a, `'"`))
			}
		}
	}
	return out
}

// String is the syntax as the cell wrote it, shortly: %time, %%bash, !ls,
// ?len.
func (u Use) String() string {
	switch u.Kind {
	case LineMagic:
		return "%" + u.Name
	case CellMagic:
		return "%%" + u.Name
	case Shell, ShellOutput:
		cmd, _, _ := strings.Cut(strings.TrimSpace(u.Name), " ")
		return "!" + cmd
	default:
		return "?"
	}
}
