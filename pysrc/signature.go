package pysrc

import "strings"

// Signature is a function's signature as inspect.signature prints it
// ("(x, y=1, *, z: int = 2) -> str"), in parts: text as it is, and the
// source of the defaults and annotations, whose values the printed text
// shows (a default by its repr, an annotation as inspect.formatannotation
// gives it). Name is the function's name ("<lambda>" for a lambda), Qual
// its qualified name ("A.m" for a method) and Ref the expression that
// gives the function once the code ran ("A.m", a lambda's variable).
type Signature struct {
	Name, Qual, Ref string
	Parts           []SigPart
}

// SigPart is text of a Signature, or the source of a value it shows.
type SigPart struct {
	Kind SigKind
	Text string
}

// SigKind says what a SigPart's Text is.
type SigKind int

const (
	// SigText is printed as it is.
	SigText SigKind = iota
	// SigDefault is a default's source, printed as its value's repr.
	SigDefault
	// SigAnnotation is an annotation's source, printed as inspect
	// formats its value.
	SigAnnotation
)

// Signatures returns the signatures of the code's top-level, undecorated
// def statements, of the undecorated methods of its top-level, undecorated
// classes, and of the lambdas assigned to a name at the top level, whose
// defaults and annotations are such that evaluating them again, after the
// code, gives the values the def gave them: defaults that are immutable
// literals (numbers, strings, bytes, None, True, False, ..., and tuples of
// them), annotations that are names, strings or a built-in generic of
// built-in types (list[int]). The last definition of a Ref counts; a name
// also defined by a nested def has none. Nil after a tokenizing error.
func Signatures(code string) []Signature {
	if !strings.Contains(code, "def") && !strings.Contains(code, "lambda") {
		return nil
	}
	toks, err := Tokenize(code)
	if err != nil {
		return nil
	}
	lines := logicalLines(toks)
	last := map[string]int{}
	nested := map[string]bool{}
	var out []Signature
	add := func(s Signature, ok bool) {
		if !ok {
			last[s.Ref] = -1
			return
		}
		last[s.Ref] = len(out)
		out = append(out, s)
	}
	// The class whose body the lines are in: its name and body's indent
	// ("" none, or a decorated class, whose methods have none).
	class, body := "", ""
	for li, ln := range lines {
		indent := indentOf(code, ln[0].Start)
		decorated := li > 0 && isOp(lines[li-1][0], "@") && indentOf(code, lines[li-1][0].Start) == indent
		if indent == "" {
			class, body = "", ""
			if len(ln) >= 3 && ln[0].Kind == Name && ln[0].Text == "class" && ln[1].Kind == Name {
				for ref := range last {
					if strings.HasPrefix(ref, ln[1].Text+".") {
						last[ref] = -1 // a method of the class this one replaces
					}
				}
				if !decorated {
					class = ln[1].Text
				}
			}
		} else if class != "" && body == "" {
			body = indent
		}
		if indent == "" && len(ln) >= 4 && ln[0].Kind == Name && isOp(ln[1], "=") && ln[2].Kind == Name && ln[2].Text == "lambda" {
			s, ok := lambdaSignature(ln[3:], ln[0].Depth)
			s.Name, s.Qual, s.Ref = "<lambda>", "<lambda>", ln[0].Text
			add(s, ok)
			continue
		}
		i := 0
		if len(ln) > 0 && ln[0].Kind == Name && ln[0].Text == "async" {
			i = 1
		}
		if len(ln) < i+3 || ln[i].Kind != Name || ln[i].Text != "def" || ln[i+1].Kind != Name {
			continue
		}
		name := ln[i+1].Text
		qual := name
		switch {
		case indent == "":
		case class != "" && indent == body:
			qual = class + "." + name
		default:
			nested[name] = true
			continue
		}
		s, ok := signature(ln[i+2:])
		s.Name, s.Qual, s.Ref = name, qual, qual
		add(s, ok && !decorated)
	}
	var kept []Signature
	for i, s := range out {
		if last[s.Ref] == i && !nested[s.Name] {
			kept = append(kept, s)
		}
	}
	return kept
}

// TrailingLambda is the signature of the lambda that is code's trailing
// expression (TrailingExpr), whose source is code[start:end] (its Ref is
// empty: the function is the value); ok is false
// when the trailing expression is no lambda or its signature has values
// Signatures would not evaluate again.
func TrailingLambda(code string) (s Signature, start, end int, ok bool) {
	start, end, ok = TrailingExpr(code)
	if !ok || !strings.HasPrefix(code[start:end], "lambda") {
		return s, 0, 0, false
	}
	toks, err := Tokenize(code[start:end])
	if err != nil || len(toks) < 2 || toks[0].Kind != Name || toks[0].Text != "lambda" {
		return s, 0, 0, false
	}
	var ts []Token
	for _, t := range toks[1:] {
		if t.Kind != Comment && t.Kind != Newline {
			ts = append(ts, t)
		}
	}
	s, ok = lambdaSignature(ts, toks[0].Depth)
	s.Name, s.Qual = "<lambda>", "<lambda>"
	return s, start, end, ok
}

// lambdaSignature parses "params: body" after a lambda keyword at depth,
// the whole of an assignment's value.
func lambdaSignature(ts []Token, depth int) (Signature, bool) {
	var s Signature
	colon := -1
	for j, t := range ts {
		if t.Depth != depth {
			continue
		}
		if isOp(t, ":") && colon < 0 {
			colon = j
		} else if colon >= 0 && (isOp(t, ",") || isOp(t, ":=") || t.Kind == Name && t.Text == "lambda") {
			return s, false // a tuple, or another lambda: not one function's value
		}
	}
	if colon < 0 || colon == len(ts)-1 {
		return s, false
	}
	s.Parts = append(s.Parts, SigPart{SigText, "("})
	if !parameters(&s, ts[:colon], depth, false) {
		return s, false
	}
	s.Parts = append(s.Parts, SigPart{SigText, ")"})
	return s, true
}

// signature parses "(params) [-> annotation]:" from a def's tokens.
func signature(ts []Token) (Signature, bool) {
	var s Signature
	if len(ts) == 0 || !isOp(ts[0], "(") {
		return s, false
	}
	depth := ts[0].Depth + 1
	end := -1
	for j := 1; j < len(ts); j++ {
		if isOp(ts[j], ")") && ts[j].Depth == depth {
			end = j
			break
		}
	}
	if end < 0 {
		return s, false
	}
	text := func(t string) { s.Parts = append(s.Parts, SigPart{SigText, t}) }
	text("(")
	if !parameters(&s, ts[1:end], depth, true) {
		return s, false
	}
	text(")")
	rest := ts[end+1:]
	colon := -1
	for j, t := range rest {
		if isOp(t, ":") && t.Depth == ts[0].Depth {
			colon = j
			break
		}
	}
	if colon < 0 {
		return s, false
	}
	if ret := rest[:colon]; len(ret) > 0 {
		if !isOp(ret[0], "->") || !annotationSource(ret[1:]) {
			return s, false
		}
		text(" -> ")
		s.Parts = append(s.Parts, SigPart{SigAnnotation, joinTokens(ret[1:])})
	}
	return s, true
}

// parameters adds the parameters in ts, split at the commas at depth, to
// s; annotations: they may have them (a def's, not a lambda's).
func parameters(s *Signature, ts []Token, depth int, annotations bool) bool {
	text := func(t string) { s.Parts = append(s.Parts, SigPart{SigText, t}) }
	var params [][]Token
	start := 0
	for j := 0; j <= len(ts); j++ {
		if j == len(ts) || isOp(ts[j], ",") && ts[j].Depth == depth {
			if j > start {
				params = append(params, ts[start:j])
			}
			start = j + 1
		}
	}
	for k, p := range params {
		if k > 0 {
			text(", ")
		}
		n := 0
		if isOp(p[0], "*") || isOp(p[0], "**") || isOp(p[0], "/") {
			n = 1
		}
		if n < len(p) && p[n].Kind == Name {
			n++
		}
		if n == 0 {
			return false
		}
		head := ""
		for _, t := range p[:n] {
			head += t.Text // "*args", "**kw", "/"
		}
		text(head)
		rest := p[n:]
		eq := len(rest)
		for j, t := range rest {
			if isOp(t, "=") && t.Depth == depth {
				eq = j
				break
			}
		}
		ann, def := rest[:eq], []Token(nil)
		if eq < len(rest) {
			def = rest[eq+1:]
			if len(def) == 0 {
				return false
			}
		}
		if len(ann) > 0 {
			if !annotations || !isOp(ann[0], ":") || !annotationSource(ann[1:]) {
				return false
			}
			text(": ")
			s.Parts = append(s.Parts, SigPart{SigAnnotation, joinTokens(ann[1:])})
		}
		if def != nil {
			if !literalSource(def) {
				return false
			}
			if len(ann) > 0 {
				text(" = ")
			} else {
				text("=")
			}
			s.Parts = append(s.Parts, SigPart{SigDefault, joinTokens(def)})
		}
	}
	return true
}

// joinTokens is the tokens' text on one line (a default's or annotation's
// source, without its comments and line breaks).
func joinTokens(ts []Token) string {
	parts := make([]string, len(ts))
	for i, t := range ts {
		parts[i] = t.Text
	}
	return strings.Join(parts, " ")
}

// literalSource reports a default whose value is an immutable literal:
// evaluated again, it is the value the def gave the parameter.
func literalSource(ts []Token) bool {
	for _, t := range ts {
		switch t.Kind {
		case Number:
			if strings.ContainsAny(t.Text, "jJ") {
				return false
			}
		case String:
			if !plainString(t.Text) {
				return false
			}
		case Name:
			if t.Text != "None" && t.Text != "True" && t.Text != "False" {
				return false
			}
		case Op:
			switch t.Text {
			case "-", "+", "(", ")", ",", "...":
			default:
				return false
			}
		default:
			return false
		}
	}
	return true
}

// builtinGenerics are the built-in classes that take type arguments
// (list[int]), whose repr CPython and Monty spell alike.
var builtinGenerics = map[string]bool{"list": true, "dict": true, "set": true, "frozenset": true, "tuple": true, "type": true}

// builtinTypes are the built-in classes an argument of a built-in generic
// may be.
var builtinTypes = map[string]bool{"int": true, "float": true, "str": true, "bytes": true, "bool": true, "object": true,
	"list": true, "dict": true, "set": true, "frozenset": true, "tuple": true, "type": true}

// annotationSource reports an annotation whose value inspect formats as
// the same text on Monty as on CPython: a name (a class: its name, with
// __main__. for the cells' own), a string, None, or a built-in generic of
// built-in classes.
func annotationSource(ts []Token) bool {
	switch {
	case len(ts) == 1 && ts[0].Kind == Name:
		return !keywords[ts[0].Text] || ts[0].Text == "None"
	case len(ts) == 1 && ts[0].Kind == String:
		return plainString(ts[0].Text)
	case len(ts) >= 3 && ts[0].Kind == Name && builtinGenerics[ts[0].Text] && isOp(ts[1], "[") && isOp(ts[len(ts)-1], "]"):
		for _, t := range ts[2 : len(ts)-1] {
			if !(t.Kind == Name && (builtinTypes[t.Text] || t.Text == "None") || isOp(t, ",") || isOp(t, "[") || isOp(t, "]")) {
				return false
			}
		}
		return true
	}
	return false
}

// plainString reports a string literal without replacement fields (not an
// f-string or t-string).
func plainString(lit string) bool {
	prefix := lit[:strings.IndexAny(lit, `'"`)]
	return !strings.ContainsAny(prefix, "fFtT")
}
