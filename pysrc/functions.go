package pysrc

import (
	"math"
	"strconv"
	"strings"
)

// Function is a def or lambda of some code, anywhere in it: Name is the
// name its function objects carry ("<lambda>" for a lambda), Text what
// IPython shows for them ("<function __main__.outer.<locals>.inner(x, y=1)>"),
// "" when the source alone does not say: a decorated def, a default or
// annotation whose value is not a literal (a string, None, a number,
// True, False, ..., a tuple of them), a lambda whose qualified name is not
// plain from its line (in a comprehension, with another lambda, on a def's
// or class's line).
type Function struct {
	Name, Text string
}

// Functions returns every def and lambda of code, with the qualified name
// CPython gives it (outer.<locals>.inner, A.m, A.<lambda>); ok is false
// after a tokenizing error.
func Functions(code string) (fns []Function, ok bool) {
	if !strings.Contains(code, "def") && !strings.Contains(code, "lambda") {
		return nil, true
	}
	toks, err := Tokenize(code)
	if err != nil {
		return nil, false
	}
	// The scopes the lines are in: a def's or class's indent and the
	// prefix it gives the qualified names in its body.
	type scope struct {
		indent int
		prefix string
	}
	var scopes []scope
	lines := logicalLines(toks)
	for li, ln := range lines {
		indent := len(indentOf(code, ln[0].Start))
		for len(scopes) > 0 && scopes[len(scopes)-1].indent >= indent {
			scopes = scopes[:len(scopes)-1]
		}
		prefix := ""
		if len(scopes) > 0 {
			prefix = scopes[len(scopes)-1].prefix
		}
		i := 0
		if ln[0].Kind == Name && ln[0].Text == "async" {
			i = 1
		}
		header := len(ln) > i+1 && ln[i].Kind == Name && (ln[i].Text == "def" || ln[i].Text == "class") && ln[i+1].Kind == Name
		lambdas, comprehension := 0, false
		for _, t := range ln {
			if t.Kind == Name && t.Text == "lambda" {
				lambdas++
			}
			if t.Kind == String && !plainString(t.Text) && strings.Contains(t.Text, "lambda") {
				fns = append(fns, Function{"<lambda>", ""}) // one in an f-string's field, maybe
			}
			comprehension = comprehension || t.Kind == Name && t.Text == "for" && t.Depth > 0
		}
		if lambdas > 0 {
			// One lambda on a line of its scope's: its parameters end at
			// the first colon at its depth.
			s, sure := Signature{}, lambdas == 1 && !comprehension && !header
			for j, t := range ln {
				if sure && t.Kind == Name && t.Text == "lambda" {
					colon := -1
					for k := j + 1; k < len(ln); k++ {
						if isOp(ln[k], ":") && ln[k].Depth == t.Depth {
							colon = k
							break
						}
					}
					s.Parts = append(s.Parts, SigPart{SigText, "("})
					sure = colon > 0 && parameters(&s, ln[j+1:colon], t.Depth, false)
					s.Parts = append(s.Parts, SigPart{SigText, ")"})
				}
			}
			for range lambdas {
				fns = append(fns, Function{"<lambda>", functionText(prefix+"<lambda>", s, sure)})
			}
		}
		if !header {
			continue
		}
		name := ln[i+1].Text
		if ln[i].Text == "class" {
			scopes = append(scopes, scope{indent, prefix + name + "."})
			continue
		}
		decorated := li > 0 && isOp(lines[li-1][0], "@") && len(indentOf(code, lines[li-1][0].Start)) == indent
		s, sure := signature(ln[i+2:])
		fns = append(fns, Function{name, functionText(prefix+name, s, sure && !decorated)})
		scopes = append(scopes, scope{indent, prefix + name + ".<locals>."})
	}
	return fns, true
}

// functionText is IPython's text of a function of qualified name qual and
// signature s, "" when s is not sure or shows a value that is not a
// literal's.
func functionText(qual string, s Signature, sure bool) string {
	if !sure {
		return ""
	}
	var b strings.Builder
	b.WriteString("<function __main__." + qual)
	for _, p := range s.Parts {
		switch p.Kind {
		case SigText:
			b.WriteString(p.Text)
		default:
			r, ok := literalRepr(p.Text, p.Kind == SigAnnotation)
			if !ok {
				return ""
			}
			b.WriteString(r)
		}
	}
	b.WriteString(">")
	return b.String()
}

// literalRepr is the repr of the value of a literal's source, as inspect
// shows a default; an annotation: only a string or None, whose value no
// binding of the code can change.
func literalRepr(src string, annotation bool) (string, bool) {
	toks, err := Tokenize(src)
	if err != nil {
		return "", false
	}
	var ts []Token
	for _, t := range toks {
		if t.Kind != Newline && t.Kind != Comment {
			ts = append(ts, t)
		}
	}
	if annotation {
		if len(ts) == 1 && ts[0].Kind == Name && ts[0].Text == "None" {
			return "None", true
		}
		if s, ok := stringValue(ts); ok {
			return StrRepr(s), true
		}
		return "", false
	}
	return valueRepr(ts)
}

// valueRepr is the repr of the literal ts, a tuple's items in turn.
func valueRepr(ts []Token) (string, bool) {
	if len(ts) == 0 {
		return "", false
	}
	if isOp(ts[0], "(") && isOp(ts[len(ts)-1], ")") {
		inner, depth := ts[1:len(ts)-1], ts[0].Depth+1
		var items []string
		start, comma := 0, false
		for j := 0; j <= len(inner); j++ {
			if j == len(inner) || isOp(inner[j], ",") && inner[j].Depth == depth {
				if j == len(inner) && start == j {
					break // a trailing comma
				}
				r, ok := valueRepr(inner[start:j])
				if !ok {
					return "", false
				}
				items = append(items, r)
				comma = comma || j < len(inner)
				start = j + 1
			}
		}
		switch {
		case len(items) == 0:
			return "()", true
		case !comma:
			return items[0], true // parentheses around one value
		case len(items) == 1:
			return "(" + items[0] + ",)", true
		}
		return "(" + strings.Join(items, ", ") + ")", true
	}
	if len(ts) == 1 && ts[0].Kind == Name {
		switch ts[0].Text {
		case "None", "True", "False":
			return ts[0].Text, true
		}
		return "", false
	}
	if len(ts) == 1 && isOp(ts[0], "...") {
		return "Ellipsis", true
	}
	if s, ok := stringValue(ts); ok {
		return StrRepr(s), true
	}
	neg := false
	if len(ts) == 2 && isOp(ts[0], "-") {
		neg, ts = true, ts[1:]
	}
	if len(ts) == 1 && ts[0].Kind == Number {
		return numberRepr(ts[0].Text, neg)
	}
	return "", false
}

// numberRepr is the repr of an int or float literal (negated: neg), as
// CPython gives it: an int in decimal, a float in the shortest form that
// reads back, in positional notation from 1e-4 to below 1e16.
func numberRepr(lit string, neg bool) (string, bool) {
	lit = strings.ReplaceAll(lit, "_", "")
	if strings.ContainsAny(lit, "jJ") {
		return "", false
	}
	if n, err := strconv.ParseInt(lit, 0, 64); err == nil && (lit == "0" || lit[0] != '0' || len(lit) > 1 && strings.ContainsAny(lit[1:2], "xXoObB")) {
		if neg {
			n = -n
		}
		return strconv.FormatInt(n, 10), true
	}
	if !strings.ContainsAny(lit, ".eE") || strings.ContainsAny(lit, "xXoObB") {
		return "", false // an int past 64 bits, or a malformed one
	}
	f, err := strconv.ParseFloat(lit, 64)
	if err != nil || math.IsInf(f, 0) {
		return "", false
	}
	if neg {
		f = -f
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // -d.ddde±XX
	mant, exps, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(exps)
	sign := ""
	if mant[0] == '-' {
		sign, mant = "-", mant[1:]
	}
	digits := strings.Replace(mant, ".", "", 1)
	if exp < -4 || exp >= 16 {
		m := digits[:1]
		if len(digits) > 1 {
			m += "." + digits[1:]
		}
		es := "+"
		if exp < 0 {
			es, exp = "-", -exp
		}
		return sign + m + "e" + es + strconv.Itoa(exp/10) + strconv.Itoa(exp%10), true
	}
	if exp < 0 {
		return sign + "0." + strings.Repeat("0", -exp-1) + digits, true
	}
	for len(digits) < exp+2 {
		digits += "0"
	}
	return sign + digits[:exp+1] + "." + digits[exp+1:], true
}

// stringValue is the value of ts when they are string literals (str, not
// bytes or f-strings) whose escapes are only \\, \', \", \n, \t and \r.
func stringValue(ts []Token) (string, bool) {
	var b strings.Builder
	for _, t := range ts {
		if t.Kind != String {
			return "", false
		}
		q := strings.IndexAny(t.Text, `'"`)
		prefix, body := strings.ToLower(t.Text[:q]), t.Text[q:]
		if prefix != "" && prefix != "r" && prefix != "u" {
			return "", false
		}
		n := 1
		if strings.HasPrefix(body, `"""`) || strings.HasPrefix(body, `'''`) {
			n = 3
		}
		body = body[n : len(body)-n]
		if strings.ContainsRune(body, '\r') {
			return "", false
		}
		if prefix == "r" {
			b.WriteString(body)
			continue
		}
		for i := 0; i < len(body); i++ {
			if body[i] != '\\' {
				b.WriteByte(body[i])
				continue
			}
			if i+1 == len(body) {
				return "", false
			}
			i++
			switch body[i] {
			case '\\', '\'', '"':
				b.WriteByte(body[i])
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			default:
				return "", false
			}
		}
	}
	return b.String(), len(ts) > 0
}
