package pysrc

import (
	"strings"
)

// Names returns candidate global names the code may bind or use: every
// identifier that is not a hard keyword (match, case, type and _ count as
// names), not preceded by '.', and not a keyword-argument name (an
// identifier followed by '=' with '(' as the innermost open bracket). Order
// of first appearance, no duplicates; nil when there are none. Strings
// (f-string fields too) and comments are not looked into. After a
// tokenizing error the tokens scanned so far are used.
func Names(code string) []string {
	toks, _ := Tokenize(code)
	return namesOf(significant(toks))
}

func namesOf(sig []Token) []string {
	var out []string
	seen := map[string]bool{}
	var brackets []byte
	for i, t := range sig {
		if t.Kind == Op {
			switch t.Text {
			case "(", "[", "{":
				brackets = append(brackets, t.Text[0])
			case ")", "]", "}":
				if len(brackets) > 0 {
					brackets = brackets[:len(brackets)-1]
				}
			}
			continue
		}
		if t.Kind != Name || keywords[t.Text] || seen[t.Text] {
			continue
		}
		if i > 0 && isOp(sig[i-1], ".") {
			continue
		}
		if len(brackets) > 0 && brackets[len(brackets)-1] == '(' && i+1 < len(sig) && isOp(sig[i+1], "=") {
			continue
		}
		seen[t.Text] = true
		out = append(out, t.Text)
	}
	return out
}

// Import is one imported module as written: `import a.b as c` gives Module
// "a.b", `from .x import y` gives ".x", `from . import y` gives ".".
// Top is the first dotted component ("a"), "" for a relative import.
// Line is the 0-based line of the module name.
type Import struct {
	Module, Top string
	Line        int
}

// Imports returns the modules of every import statement at any nesting
// level (in functions, try blocks), in source order, not those in strings or
// comments; `import a, b` gives two. nil when there are none. After a
// tokenizing error the tokens scanned so far are used.
func Imports(code string) []Import {
	toks, _ := Tokenize(code)
	return importsOf(significant(toks))
}

func importsOf(sig []Token) []Import {
	var out []Import
	for i := 0; i < len(sig); i++ {
		t := sig[i]
		if t.Kind != Name {
			continue
		}
		switch t.Text {
		case "from":
			if fi, ok := parseFrom(sig, i); ok {
				out = append(out, fi.imp)
				i = fi.importAt // skip the statement's own 'import'
			}
		case "import":
			for j := i + 1; ; {
				mod, next := dotted(sig, j)
				if mod == "" {
					break
				}
				out = append(out, Import{Module: mod, Top: topOf(mod), Line: sig[j].Line})
				j = next
				if j+1 < len(sig) && sig[j].Kind == Name && sig[j].Text == "as" {
					j += 2
				}
				if j >= len(sig) || !isOp(sig[j], ",") {
					break
				}
				j++
			}
		}
	}
	return out
}

type fromImport struct {
	imp      Import
	importAt int // index of the 'import' keyword in sig
}

// parseFrom parses `from [dots][dotted] import` at sig[i]; ok is false for
// the other uses of 'from' (yield from, raise ... from).
func parseFrom(sig []Token, i int) (fromImport, bool) {
	j := i + 1
	var b strings.Builder
	for j < len(sig) && (isOp(sig[j], ".") || isOp(sig[j], "...")) {
		b.WriteString(sig[j].Text)
		j++
	}
	dots := b.String()
	mod, next := dotted(sig, j)
	if dots == "" && mod == "" {
		return fromImport{}, false
	}
	if next >= len(sig) || sig[next].Kind != Name || sig[next].Text != "import" {
		return fromImport{}, false
	}
	m := dots + mod
	top := ""
	if dots == "" {
		top = topOf(m)
	}
	return fromImport{imp: Import{Module: m, Top: top, Line: sig[i+1].Line}, importAt: next}, true
}

// dotted reads a dotted name at sig[j]; it returns "" when there is none.
func dotted(sig []Token, j int) (string, int) {
	if j >= len(sig) || sig[j].Kind != Name || keywords[sig[j].Text] {
		return "", j
	}
	parts := []string{sig[j].Text}
	j++
	for j+1 < len(sig) && isOp(sig[j], ".") && sig[j+1].Kind == Name && !keywords[sig[j+1].Text] {
		parts = append(parts, sig[j+1].Text)
		j += 2
	}
	return strings.Join(parts, "."), j
}

func topOf(mod string) string {
	if i := strings.IndexByte(mod, '.'); i >= 0 {
		return mod[:i]
	}
	return mod
}

// significant drops comments and keeps Newline tokens.
func significant(toks []Token) []Token {
	out := make([]Token, 0, len(toks))
	for _, t := range toks {
		if t.Kind != Comment {
			out = append(out, t)
		}
	}
	return out
}

// Features reports constructs found at token level, for routing cells away
// from an interpreter that lacks them: "match", "yield", "del",
// "class-inheritance", "decorator-in-class" (a decorator whose innermost
// enclosing block is a class body), "async-with", "async-for" (also in
// comprehensions), "star-except", "type-alias", "global", "nonlocal",
// "percent-format", "complex-literal", "star-import". The result is sorted
// and de-duplicated; nil when none is found. After a tokenizing error the
// tokens scanned so far are used.
func Features(code string) []string {
	toks, _ := Tokenize(code)
	return featuresOf(code, toks, significant(toks))
}

func featuresOf(code string, toks, sig []Token) []string {
	found := map[string]bool{}
	next := func(i int) Token {
		if i+1 < len(sig) {
			return sig[i+1]
		}
		return Token{}
	}
	for i, t := range sig {
		switch t.Kind {
		case Number:
			if strings.HasSuffix(t.Text, "j") || strings.HasSuffix(t.Text, "J") {
				found["complex-literal"] = true
			}
		case String:
			if isOp(next(i), "%") {
				found["percent-format"] = true
			}
		case Name:
			n := next(i)
			switch t.Text {
			case "yield", "del", "global", "nonlocal":
				found[t.Text] = true
			case "async":
				if n.Kind == Name && (n.Text == "with" || n.Text == "for") {
					found["async-"+n.Text] = true
				}
			case "except":
				if isOp(n, "*") {
					found["star-except"] = true
				}
			case "class":
				if hasBases(sig, i) {
					found["class-inheritance"] = true
				}
			case "from":
				if fi, ok := parseFrom(sig, i); ok && isOp(next(fi.importAt), "*") {
					found["star-import"] = true
				}
			}
		}
	}
	lineFeatures(code, logicalLines(toks), found)
	return sortedSet(found)
}

// hasBases reports whether `class X[...](...)` at sig[i] has a non-empty
// argument list (bases or keywords such as metaclass=).
func hasBases(sig []Token, i int) bool {
	j := i + 2
	// A class statement is never inside brackets; skipping those also
	// keeps skipBracket from rescanning on input like "class A[class A[".
	if sig[i].Depth != 0 || i+1 >= len(sig) || sig[i+1].Kind != Name {
		return false
	}
	if j < len(sig) && isOp(sig[j], "[") {
		j = skipBracket(sig, j)
	}
	return j+1 < len(sig) && isOp(sig[j], "(") && !isOp(sig[j+1], ")")
}

// skipBracket returns the index after the bracket closing the one at sig[j].
func skipBracket(sig []Token, j int) int {
	d := sig[j].Depth
	for k := j + 1; k < len(sig); k++ {
		if sig[k].Depth == d+1 && sig[k].Kind == Op && (sig[k].Text == ")" || sig[k].Text == "]" || sig[k].Text == "}") {
			return k + 1
		}
	}
	return len(sig)
}

// lineFeatures finds the features that depend on a logical line's start
// and on block structure: match statements, type aliases, decorators in
// class bodies.
func lineFeatures(code string, lines [][]Token, found map[string]bool) {
	type block struct {
		indent int
		class  bool
	}
	var blocks []block
	for _, ln := range lines {
		first, last := ln[0], ln[len(ln)-1]
		indent := indentWidth(indentOf(code, first.Start))
		for len(blocks) > 0 && blocks[len(blocks)-1].indent >= indent {
			blocks = blocks[:len(blocks)-1]
		}
		if isOp(first, "@") && len(blocks) > 0 && blocks[len(blocks)-1].class {
			found["decorator-in-class"] = true
		}
		header := isOp(last, ":") && last.Depth == 0
		if first.Kind == Name && first.Text == "match" && header && len(ln) >= 3 && startsSubject(ln[1]) {
			found["match"] = true
		}
		if first.Kind == Name && first.Text == "type" && len(ln) >= 3 && ln[1].Kind == Name && !keywords[ln[1].Text] {
			j := 2
			if isOp(ln[j], "[") {
				j = skipBracket(ln, j)
			}
			if j < len(ln) && isOp(ln[j], "=") {
				found["type-alias"] = true
			}
		}
		if header {
			blocks = append(blocks, block{indent: indent, class: first.Kind == Name && first.Text == "class"})
		}
	}
}

// startsSubject reports whether t, right after a line-leading 'match', can
// start a match subject (rather than make 'match' a name in an assignment,
// annotation or attribute access).
func startsSubject(t Token) bool {
	switch t.Kind {
	case Name:
		return !keywords[t.Text] || exprKeywords[t.Text]
	case Number, String:
		return true
	case Op:
		return exprOps[t.Text]
	}
	return false
}
