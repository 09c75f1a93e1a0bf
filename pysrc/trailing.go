package pysrc

import "strings"

// keywords are Python's hard keywords; soft keywords (match, case, type, _)
// are names.
var keywords = map[string]bool{
	"False": true, "None": true, "True": true, "and": true, "as": true, "assert": true,
	"async": true, "await": true, "break": true, "class": true, "continue": true,
	"def": true, "del": true, "elif": true, "else": true, "except": true,
	"finally": true, "for": true, "from": true, "global": true, "if": true,
	"import": true, "in": true, "is": true, "lambda": true, "nonlocal": true,
	"not": true, "or": true, "pass": true, "raise": true, "return": true,
	"try": true, "while": true, "with": true, "yield": true,
}

// exprKeywords are the keywords that can start an expression statement.
var exprKeywords = map[string]bool{"await": true, "lambda": true, "not": true, "None": true, "True": true, "False": true}

// compoundKeywords start a compound statement; what follows a ';' on such a
// line belongs to its suite.
var compoundKeywords = map[string]bool{
	"if": true, "elif": true, "else": true, "for": true, "while": true, "with": true,
	"def": true, "class": true, "try": true, "except": true, "finally": true, "async": true,
}

// exprOps are the operators an expression statement can start with.
var exprOps = map[string]bool{"(": true, "[": true, "{": true, "-": true, "+": true, "~": true, "*": true, "...": true}

var augAssign = map[string]bool{
	"+=": true, "-=": true, "*=": true, "/=": true, "//=": true, "%=": true, "@=": true,
	"&=": true, "|=": true, "^=": true, ">>=": true, "<<=": true, "**=": true,
}

// TrailingExpr reports the byte range [start, end) in code of the last
// top-level statement if it is an expression statement, as IPython would
// display it. The statement is the last one of the last logical line, after
// any top-level ';' (`a = 1; a` gives `a`); it must start at column 0 and not
// be the suite of a compound statement (`if x: y`). It is not an expression
// when it starts with a keyword other than await, lambda, not, None, True,
// False, or has at bracket depth 0 an '=' (outside a lambda's parameters),
// an augmented assignment, ':=' or a ':' that no lambda owns (annotation).
// ok is false for those, for empty or comment-only code, for a trailing ';'
// (IPython's "no display") and when Tokenize fails. The range excludes
// comments, whitespace and ';'. It may be a bare tuple (`a, b`), so a caller
// wrapping it should write `repr((` ... `))`.
func TrailingExpr(code string) (start, end int, ok bool) {
	toks, err := Tokenize(code)
	if err != nil {
		return 0, 0, false
	}
	line := lastLogicalLine(toks)
	if len(line) == 0 {
		return 0, 0, false
	}
	first := line[0]
	// An indented last line belongs to a block.
	if indentOf(code, first.Start) != "" {
		return 0, 0, false
	}
	if (first.Kind == Name && compoundKeywords[first.Text]) || isOp(first, "@") {
		return 0, 0, false
	}
	// The last simple statement; after a trailing ';' it is empty, which
	// is IPython's "no display".
	seg := line
	for i := len(line) - 1; i >= 0; i-- {
		if isOp(line[i], ";") && line[i].Depth == 0 {
			seg = line[i+1:]
			break
		}
	}
	if !isExprStmt(seg) {
		return 0, 0, false
	}
	return seg[0].Start, seg[len(seg)-1].End, true
}

// isExprStmt reports whether the tokens of one simple statement form an
// expression statement rather than an assignment, annotation or keyword
// statement.
func isExprStmt(seg []Token) bool {
	if len(seg) == 0 {
		return false
	}
	switch f := seg[0]; f.Kind {
	case Name:
		if keywords[f.Text] && !exprKeywords[f.Text] {
			return false
		}
	case Number, String:
	case Op:
		if !exprOps[f.Text] {
			return false
		}
	default:
		return false
	}
	lambdas := 0 // top-level lambdas still waiting for their ':'
	for _, t := range seg {
		if t.Depth != 0 {
			continue
		}
		switch {
		case t.Kind == Name && t.Text == "lambda":
			lambdas++
		case t.Kind != Op:
		case t.Text == "=":
			if lambdas == 0 { // else a lambda parameter's default
				return false
			}
		case t.Text == ":":
			if lambdas == 0 { // an annotation or a block header
				return false
			}
			lambdas--
		case t.Text == ":=" || augAssign[t.Text]:
			return false
		}
	}
	return true
}

func isOp(t Token, text string) bool { return t.Kind == Op && t.Text == text }

// logicalLines splits tokens into logical lines of significant tokens
// (no comments, no Newline tokens); a line cut short by an error is kept.
func logicalLines(toks []Token) [][]Token {
	var lines [][]Token
	var cur []Token
	for _, t := range toks {
		switch t.Kind {
		case Comment:
		case Newline:
			if len(cur) > 0 {
				lines = append(lines, cur)
			}
			cur = nil
		default:
			cur = append(cur, t)
		}
	}
	if len(cur) > 0 {
		lines = append(lines, cur)
	}
	return lines
}

// lastLogicalLine is logicalLines(toks)'s last line (nil when there is
// none), found from the end: it copies tokens only when comments sit
// between them.
func lastLogicalLine(toks []Token) []Token {
	end := len(toks)
	for end > 0 {
		start := end
		comments := 0
		for start > 0 && toks[start-1].Kind != Newline {
			start--
			if toks[start].Kind == Comment {
				comments++
			}
		}
		if n := end - start - comments; n > 0 {
			if comments == 0 {
				return toks[start:end:end]
			}
			line := make([]Token, 0, n)
			for _, t := range toks[start:end] {
				if t.Kind != Comment {
					line = append(line, t)
				}
			}
			return line
		}
		end = start - 1 // before the Newline
	}
	return nil
}

// indentOf returns the text between the start of off's physical line and
// off (a leading byte-order mark is not indentation).
func indentOf(code string, off int) string {
	i := off
	for i > 0 && code[i-1] != '\n' && code[i-1] != '\r' {
		i--
	}
	if i == 0 && strings.HasPrefix(code, bom) {
		i = len(bom)
	}
	if i > off {
		return ""
	}
	return code[i:off]
}

// indentWidth measures indentation as Python does: tabs advance to the next
// multiple of 8, a form feed resets the column.
func indentWidth(indent string) int {
	w := 0
	for i := 0; i < len(indent); i++ {
		switch indent[i] {
		case '\t':
			w = (w/8 + 1) * 8
		case '\f':
			w = 0
		default:
			w++
		}
	}
	return w
}
