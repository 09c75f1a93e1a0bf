package ipysyntax

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/backyard-ls/backyard-ls/pysrc"
)

// splitLine splits a line as IPython's prefilter does, by hand (every
// cell of one line asks): what the expression
// ^(\s*)([,;/%]|!!?|\?\??)?\s*(%{0,2}[\p{L}\p{N}_.*]*)(.*)$ matches, the
// leading space and an escape skipped, as the "function part" (names and
// dots) and the rest.
func splitLine(line string) (ifun, rest string) {
	i := skipSpace(line, 0)
	switch {
	case strings.HasPrefix(line[i:], "!!"), strings.HasPrefix(line[i:], "??"):
		i += 2
	case i < len(line) && strings.IndexByte(",;/%!?", line[i]) >= 0:
		i++
	}
	i = skipSpace(line, i)
	start := i
	for n := 0; n < 2 && i < len(line) && line[i] == '%'; n++ {
		i++
	}
	for i < len(line) {
		r, size := utf8.DecodeRuneInString(line[i:])
		if !unicode.IsLetter(r) && !unicode.IsNumber(r) && r != '_' && r != '.' && r != '*' {
			break
		}
		i += size
	}
	return line[start:i], line[i:]
}

// skipSpace is the index of the first byte from i on that is not \s (RE2's).
func skipSpace(s string, i int) int {
	for i < len(s) && strings.IndexByte(" \t\n\f\r", s[i]) >= 0 {
		i++
	}
	return i
}

// Automagic is IPython's automagic candidate in a cell: a line magic
// written without its %. IPython tries it after its static transformations
// (Transform), on a cell that is then one line only, whose first word is
// the name of a line magic its shell has (magic says which) and whose rest
// does not start with = or , (an assignment: `ls = 1`, `ls, x = 1, 2`).
// Everything after the name is the magic's line (`pwd + 1` is %pwd with
// "+ 1"). A name that is a builtin or a keyword never is one.
//
// IPython also gives way to a name bound in the namespace (`pwd = 3`
// earlier: `pwd` is 3), which only the kernel knows when the cell runs, and
// only while automagic is on (%automagic): both are the caller's checks.
func Automagic(code string, magic func(name string) bool) (name, args string, ok bool) {
	c := code
	// IPython's static transformations drop leading blank lines and the
	// first line's indent.
	for {
		l, rest, found := strings.Cut(c, "\n")
		if !found || strings.TrimSpace(l) != "" {
			break
		}
		c = rest
	}
	// One line, as Python's str.splitlines counts them.
	line := strings.TrimLeft(c, " \t")
	if l, ok := strings.CutSuffix(line, "\r\n"); ok {
		line = l
	} else if l, ok := strings.CutSuffix(line, "\n"); ok {
		line = l
	} else {
		line = strings.TrimSuffix(line, "\r")
	}
	if strings.ContainsAny(line, "\r\n\v\f\x1c\x1d\x1e\u0085\u2028\u2029") || strings.TrimSpace(line) == "" {
		return "", "", false
	}
	ifun, rest := splitLine(line)
	rest = strings.TrimLeft(rest, " \t\f\v")
	if rest != "" && (rest[0] == '=' || rest[0] == ',') {
		return "", "", false
	}
	if !magic(ifun) || pysrc.IsBuiltin(ifun) || keywords[ifun] {
		return "", "", false
	}
	// Asked last, of a candidate only: the other checks are cheaper.
	if Transform(code).Magics() {
		return "", "", false // the cell is IPython's calls now, whose first word no magic has
	}
	return ifun, rest, true
}

// Escaped is the cell of an automagic line (Automagic) with its %: the
// same call IPython's prefilter makes.
func Escaped(name, args string) string {
	if args == "" {
		return "%" + name
	}
	return "%" + name + " " + args
}

// FirstCell is code as IPython's shell reads the first cell of a fresh
// kernel, whose namespace binds nothing: an automagic line (Automagic) is
// the magic it names, then the static transformations apply (Transform).
// A batch snippet is such a cell. Cheap for a cell without IPython syntax.
func FirstCell(code string, magic func(name string) bool) Result {
	if name, args, ok := Automagic(code, magic); ok {
		code = Escaped(name, args)
	}
	return Transform(code)
}
