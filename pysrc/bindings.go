package pysrc

import (
	"slices"
	"strings"
)

// Bindings returns the global names code binds outside def and class
// bodies: def and class names, import targets (`import a.b` binds a),
// assignment, annotated and augmented-assignment targets (names, also in
// tuple and list targets; not subscripts or attributes), for targets, with
// ... as targets and walrus targets. Order of first appearance, no
// duplicates; nil when there are none. A star import binds names it cannot
// know: star is then true. After a tokenizing error the tokens scanned so
// far are used.
func Bindings(code string) (names []string, star bool) {
	toks, _ := Tokenize(code)
	seen := map[string]bool{}
	add := func(n string) {
		if n != "" && !keywords[n] && !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	var body []int // indentation of the def and class bodies the line is in
	for _, ln := range logicalLines(toks) {
		indent := indentWidth(indentOf(code, ln[0].Start))
		for len(body) > 0 && indent <= body[len(body)-1] {
			body = body[:len(body)-1]
		}
		if len(body) > 0 {
			continue
		}
		star = bindingsOf(ln, add) || star
		if first := ln[0]; first.Kind == Name && (first.Text == "def" || first.Text == "class" || first.Text == "async") && isOp(ln[len(ln)-1], ":") {
			body = append(body, indent)
		}
	}
	return names, star
}

// bindingsOf adds the names one module-level logical line binds; it
// reports a star import.
func bindingsOf(ln []Token, add func(string)) bool {
	first := ln[0]
	if first.Kind == Name {
		switch first.Text {
		case "def", "class":
			if len(ln) > 1 {
				add(ln[1].Text)
			}
			return false
		case "async":
			if len(ln) > 2 && ln[1].Text == "def" {
				add(ln[2].Text)
			}
			return false
		case "import":
			for j := 1; j < len(ln); {
				mod, next := dotted(ln, j)
				if mod == "" {
					break
				}
				if next+1 < len(ln) && ln[next].Text == "as" {
					add(ln[next+1].Text)
					next += 2
				} else {
					add(topOf(mod))
				}
				if next >= len(ln) || !isOp(ln[next], ",") {
					break
				}
				j = next + 1
			}
			return false
		case "from":
			fi, ok := parseFrom(ln, 0)
			if !ok {
				break
			}
			for j := fi.importAt + 1; j < len(ln); j++ {
				t := ln[j]
				switch {
				case isOp(t, "*"):
					return true
				case t.Kind == Name && t.Text != "as" && j+2 < len(ln) && ln[j+1].Text == "as":
					add(ln[j+2].Text)
					j += 2
				case t.Kind == Name:
					add(t.Text)
				}
			}
			return false
		case "for":
			targets(ln[1:], "in", add)
		case "with":
			for j := 1; j+1 < len(ln); j++ {
				if ln[j].Kind == Name && ln[j].Text == "as" && ln[j].Depth == ln[0].Depth {
					targets(ln[j+1:], "", add)
				}
			}
		}
	}
	// Walrus targets, anywhere in the line.
	for j := 1; j < len(ln); j++ {
		if isOp(ln[j], ":=") && ln[j-1].Kind == Name {
			add(ln[j-1].Text)
		}
	}
	// Assignment statements: everything before the last top-level '=' (or
	// before an augmented operator, or a top-level annotation).
	end := -1
	for j, t := range ln {
		if t.Depth != 0 || t.Kind != Op {
			continue
		}
		switch {
		case t.Text == "=":
			end = j
		case augmented[t.Text] && end < 0:
			end = j
		case t.Text == ":" && end < 0 && j > 0 && !(first.Kind == Name && compound[first.Text]):
			end = j // an annotation: `x: int = 1`, `x: int`
		}
		if augmented[t.Text] || t.Text == ":" && end == j {
			break
		}
	}
	if end > 0 && !(first.Kind == Name && compound[first.Text]) {
		targets(ln[:end], "", add)
	}
	return false
}

// targets adds the plain names of an assignment target list (up to the
// keyword stop, or the whole of ts): names not followed by '.', '[' or
// '(' and not preceded by '.' (attributes and subscripts bind nothing).
func targets(ts []Token, stop string, add func(string)) {
	for j, t := range ts {
		if t.Kind == Name && t.Text == stop && stop != "" && t.Depth == ts[0].Depth {
			return
		}
		if t.Kind != Name || keywords[t.Text] || j > 0 && isOp(ts[j-1], ".") {
			continue
		}
		if j+1 < len(ts) && (isOp(ts[j+1], ".") || isOp(ts[j+1], "[") || isOp(ts[j+1], "(")) {
			continue
		}
		if inSubscript(ts, j) {
			continue
		}
		add(t.Text)
	}
}

// inSubscript reports whether ts[j] is inside a subscript's brackets
// (x[i] = …: i binds nothing).
func inSubscript(ts []Token, j int) bool {
	depth := 0
	for k := j - 1; k >= 0; k-- {
		switch {
		case isOp(ts[k], "]") || isOp(ts[k], ")"):
			depth++
		case isOp(ts[k], "["):
			if depth == 0 {
				return k > 0 && (ts[k-1].Kind == Name || isOp(ts[k-1], "]") || isOp(ts[k-1], ")"))
			}
			depth--
		case isOp(ts[k], "("):
			if depth == 0 {
				return k > 0 && ts[k-1].Kind == Name && !keywords[ts[k-1].Text]
			}
			depth--
		}
	}
	return false
}

var (
	augmented = map[string]bool{"+=": true, "-=": true, "*=": true, "/=": true, "//=": true, "%=": true, "**=": true,
		">>=": true, "<<=": true, "&=": true, "^=": true, "|=": true, "@=": true}
	// compound statements whose header's ':' is no annotation.
	compound = map[string]bool{"if": true, "elif": true, "else": true, "while": true, "for": true, "try": true, "except": true,
		"finally": true, "with": true, "def": true, "class": true, "async": true, "match": true, "case": true, "lambda": true}
)

// Draw kinds: what a cell reads that differs from one run to the next.
const (
	DrawsRandom = "random values"
	DrawsClock  = "the clock"
)

var (
	// randomModules draw random values whatever is used of them.
	randomModules = map[string]bool{"random": true, "secrets": true, "uuid": true}
	// clockFuncs are the time module's readers of the clock.
	clockFuncs = map[string]bool{"time": true, "time_ns": true, "monotonic": true, "monotonic_ns": true, "perf_counter": true,
		"perf_counter_ns": true, "process_time": true, "process_time_ns": true, "localtime": true, "gmtime": true, "ctime": true,
		"asctime": true, "thread_time": true, "thread_time_ns": true}
)

// drawWords hold every name Draws looks for: random, secrets, uuid; os's
// urandom and getrandom; time; hash and id; now, today and utcnow.
var drawWords = []string{"random", "secrets", "uuid", "time", "hash", "id", "now", "today"}

// mayDraw reports whether code holds a drawWord or a drawer's name: code
// with none draws nothing, and Draws need not tokenize it.
func mayDraw(code string, drawers map[string]string) bool {
	for _, w := range drawWords {
		if strings.Contains(code, w) {
			return true
		}
	}
	for n := range drawers {
		if strings.Contains(code, n) {
			return true
		}
	}
	return false
}

// Draws reports what code reads that differs from one run to the next:
// DrawsRandom (the random, secrets and uuid modules, os.urandom, hash()
// and id(), which a process salts) and
// DrawsClock (the time module's clocks; now(), today() and utcnow(), as
// datetime has them). drawers maps names bound by earlier code to what
// they draw when used (functions defined beside a draw, names imported
// from random); Draws adds those that code binds so. Sorted, no
// duplicates; nil when code draws nothing.
func Draws(code string, drawers map[string]string) []string {
	if !mayDraw(code, drawers) {
		return nil // every cell asks: most have none of the names
	}
	toks, _ := Tokenize(code)
	sig := significant(toks)
	found := map[string]bool{}
	for i, t := range sig {
		if t.Kind != Name || i > 0 && isOp(sig[i-1], ".") {
			if t.Kind == Name && i > 0 && isOp(sig[i-1], ".") && (t.Text == "now" || t.Text == "today" || t.Text == "utcnow") && next(sig, i, "(") {
				found[DrawsClock] = true
			}
			continue
		}
		attr := ""
		if i+2 < len(sig) && isOp(sig[i+1], ".") {
			attr = sig[i+2].Text
		}
		switch {
		case randomModules[t.Text]:
			found[DrawsRandom] = true
		case t.Text == "os" && (attr == "urandom" || attr == "getrandom"):
			found[DrawsRandom] = true
		case t.Text == "time" && clockFuncs[attr]:
			found[DrawsClock] = true
		case (t.Text == "hash" || t.Text == "id") && next(sig, i, "("):
			// Salted per process: str and bytes hashes, addresses.
			found[DrawsRandom] = true
		case drawers[t.Text] != "":
			found[drawers[t.Text]] = true
		}
	}
	if len(found) == 0 {
		return nil
	}
	kinds := sortedSet(found)
	if drawers != nil {
		// Functions defined beside a draw draw when called; names imported
		// from random draw, those from time read the clock.
		for _, ln := range logicalLines(toks) {
			switch first := ln[0]; {
			case first.Kind == Name && first.Text == "def" && len(ln) > 1:
				drawers[ln[1].Text] = kinds[0]
			case first.Kind == Name && first.Text == "async" && len(ln) > 2 && ln[1].Text == "def":
				drawers[ln[2].Text] = kinds[0]
			case first.Kind == Name && first.Text == "from":
				fi, ok := parseFrom(ln, 0)
				if !ok {
					continue
				}
				var names []string
				bindingsOf(ln, func(n string) { names = append(names, n) })
				for k, n := range names {
					switch {
					case randomModules[fi.imp.Top]:
						drawers[n] = DrawsRandom
					case fi.imp.Top == "time" && clockFuncs[importedName(ln, fi.importAt, k)]:
						drawers[n] = DrawsClock
					}
				}
			}
		}
	}
	return slices.Clip(kinds)
}

// importedName is the k-th name imported by the from-import line ln (whose
// 'import' is at importAt), as the module names it (before any 'as').
func importedName(ln []Token, importAt, k int) string {
	for j := importAt + 1; j < len(ln); j++ {
		t := ln[j]
		if t.Kind != Name || t.Text == "as" || j > 0 && ln[j-1].Text == "as" {
			continue
		}
		if k == 0 {
			return t.Text
		}
		k--
	}
	return ""
}
