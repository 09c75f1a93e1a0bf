package pysrc

import (
	"maps"
	"regexp"
	"slices"
	"strings"
)

// Uses reports constructs whose observable behaviour may differ between
// Python implementations even when nothing fails; a router sends cells with
// the ones its interpreter runs differently elsewhere. Names:
//
//	"dunder:__lt__"          a special method defined in an indented def (a class body);
//	                         also "dunder:__slots__", assigned in an indented line
//	"generator-expression"   a generator expression that is not the sole argument of a call
//	"round-ndigits"          round() called with two arguments
//	"set"                    a set display or comprehension, or a set()/frozenset() call
//	"asyncio-concurrency"    a call that runs coroutines concurrently: gather, wait,
//	                         as_completed, wait_for, shield, TaskGroup, to_thread (bare or
//	                         on asyncio), create_task or ensure_future (on anything)
//	"except-as"              an except clause that binds the exception (its message may be shown)
//	"type-as-value"          the built-in type used other than as a call: type(type), isinstance(x, type)
//	"dict-bool-key"          True or False as a key of a dict display, or as a subscript
//	"re-ascii"               re.ASCII or re.A, or an inline (?a) flag
//	"re-template"            a string with a group reference (\1, \g<name>) in a cell that calls sub, subn or expand
//	"hasattr"                a hasattr() call (a feature test, e.g. of a module's names)
//	"object-repr"            a string that looks like part of an object's default repr
//	                         ("object at 0x", "<__main__.", "<class '", "<function "):
//	                         the cell inspects such reprs, which interpreters spell differently
//	"is-literal"             `is` or `is not` with a number or string operand (CPython warns
//	                         at compile time: SyntaxWarning: "is" with a literal)
//	"annotations"            __annotations__ or get_type_hints: annotations read as values
//	"surrogate-escape"       a string with a surrogate escape (\ud800 to \udfff): a lone
//	                         surrogate, or a pair an interpreter may not keep apart
//
// Replacement fields of f-strings are scanned too. The result is sorted and
// de-duplicated; nil when there is none. Code that cannot be tokenized is
// scanned as far as it goes.
func Uses(code string) []string {
	toks, _ := Tokenize(code)
	return usesOf(code, significant(toks))
}

func usesOf(code string, sig []Token) []string {
	found := map[string]bool{}
	usesIn(code, sig, found)
	for _, f := range FStringFields(code) {
		toks, _ := Tokenize(code[f.Start:f.End])
		usesIn(code[f.Start:f.End], significant(toks), found)
	}
	return sortedSet(found)
}

// concurrent are the asyncio calls that run coroutines side by side; the
// first group counts bare or on asyncio, the second on any receiver.
var (
	concurrent    = map[string]bool{"gather": true, "wait": true, "as_completed": true, "wait_for": true, "shield": true, "TaskGroup": true, "to_thread": true}
	concurrentAny = map[string]bool{"create_task": true, "ensure_future": true}
)

func usesIn(code string, sig []Token, found map[string]bool) {
	match := matchBrackets(sig)
	templates, subs := false, false
	for i, t := range sig {
		switch {
		case t.Kind == Name && t.Text == "def" && i+1 < len(sig) && isDunder(sig[i+1].Text) && indented(code, t, sig, i):
			found["dunder:"+sig[i+1].Text] = true
		case t.Kind == Name && t.Text == "__slots__" && next(sig, i, "=") && indented(code, t, sig, i):
			found["dunder:__slots__"] = true
		case t.Kind == Name && t.Text == "round" && next(sig, i, "(") && hasTopComma(sig, i+1, match[i+1]):
			found["round-ndigits"] = true
		case t.Kind == Name && (concurrentAny[t.Text] || concurrent[t.Text] && (!after(sig, i, ".") || i >= 2 && sig[i-2].Text == "asyncio")) && next(sig, i, "("):
			found["asyncio-concurrency"] = true
		case t.Kind == Name && t.Text == "except" && exceptBinds(sig, i):
			found["except-as"] = true
		case t.Kind == Name && t.Text == "type" && !after(sig, i, ".") && !next(sig, i, "(") && !next(sig, i, "=") && !(i+1 < len(sig) && sig[i+1].Kind == Name):
			found["type-as-value"] = true
		case t.Kind == Name && (t.Text == "True" || t.Text == "False") && (next(sig, i, ":") && i > 0 && (isOp(sig[i-1], "{") || isOp(sig[i-1], ",")) && inBraces(sig, match, i) || after(sig, i, "[") && next(sig, i, "]")):
			found["dict-bool-key"] = true
		case t.Kind == Name && (t.Text == "ASCII" || t.Text == "A") && i >= 2 && isOp(sig[i-1], ".") && sig[i-2].Text == "re":
			found["re-ascii"] = true
		case t.Kind == String && strings.Contains(t.Text, "(?a"):
			found["re-ascii"] = true
		case t.Kind == String && looksLikeRepr(t.Text):
			found["object-repr"] = true
		case t.Kind == String && surrogateEscape.MatchString(t.Text):
			found["surrogate-escape"] = true
		case t.Kind == String && hasGroupReference(t.Text):
			templates = true
		case t.Kind == Name && (t.Text == "sub" || t.Text == "subn" || t.Text == "expand") && next(sig, i, "("):
			subs = true
		case t.Kind == Name && t.Text == "hasattr" && next(sig, i, "(") && !after(sig, i, "."):
			found["hasattr"] = true
		case t.Kind == Name && t.Text == "is" && literalIs(sig, i):
			found["is-literal"] = true
		case t.Kind == Name && (t.Text == "__annotations__" || t.Text == "get_type_hints"):
			found["annotations"] = true
		case t.Kind == Name && (t.Text == "set" || t.Text == "frozenset") && next(sig, i, "(") && !after(sig, i, "."):
			found["set"] = true
		case isOp(t, "(") && match[i] > i:
			// f(x for x in y) hands the generator straight to the callee:
			// only the sole argument of a call is exempt.
			if k := topKeyword(sig, i, match[i], "for"); k > 0 && !(isCallParen(sig, i) && !hasTopComma(sig, i, k)) {
				found["generator-expression"] = true
			}
		case isOp(t, "{") && match[i] > i+1:
			if !hasTopOp(sig, i, match[i], ":") && !hasTopOp(sig, i, match[i], "**") {
				found["set"] = true
			}
		}
	}
	if templates && subs {
		found["re-template"] = true
	}
}

// literalIs reports whether the `is` (or `is not`) at sig[i] has a literal
// operand: a number or a string, maybe signed or in parentheses. An
// operand that only starts or ends with one (`x is 1 + y`) counts too.
func literalIs(sig []Token, i int) bool {
	literal := func(t Token) bool { return t.Kind == Number || t.Kind == String }
	j := i + 1
	if j < len(sig) && sig[j].Kind == Name && sig[j].Text == "not" {
		j++
	}
	for j < len(sig) && (isOp(sig[j], "(") || isOp(sig[j], "-") || isOp(sig[j], "+")) {
		j++
	}
	if j < len(sig) && literal(sig[j]) {
		return true
	}
	k := i - 1
	for k >= 0 && isOp(sig[k], ")") {
		k--
	}
	return k >= 0 && literal(sig[k])
}

// exceptBinds reports whether the except clause at sig[i] names its
// exception (`except E as e:`).
func exceptBinds(sig []Token, i int) bool {
	d := sig[i].Depth
	for j := i + 1; j < len(sig) && sig[j].Kind != Newline; j++ {
		if sig[j].Depth == d && isOp(sig[j], ":") {
			return false
		}
		if sig[j].Depth == d && sig[j].Kind == Name && sig[j].Text == "as" {
			return true
		}
	}
	return false
}

// inBraces reports whether sig[i] is directly inside a brace pair.
func inBraces(sig []Token, match []int, i int) bool {
	for j := i - 1; j >= 0; j-- {
		if sig[j].Depth == sig[i].Depth-1 && isOp(sig[j], "{") {
			return match[j] > i
		}
		if sig[j].Depth < sig[i].Depth-1 {
			return false
		}
	}
	return false
}

// surrogateEscape matches a \u escape of a UTF-16 surrogate.
var surrogateEscape = regexp.MustCompile(`\\u[dD][89a-fA-F][0-9a-fA-F]{2}`)

func looksLikeRepr(lit string) bool {
	for _, m := range []string{"object at 0x", "<__main__.", "<class '", "<function "} {
		if strings.Contains(lit, m) {
			return true
		}
	}
	return false
}

// hasGroupReference reports whether a string literal holds a regular
// expression group reference: a backslash and a digit, or \g<.
func hasGroupReference(lit string) bool {
	for i := 0; i+1 < len(lit); i++ {
		if lit[i] != '\\' {
			continue
		}
		if c := lit[i+1]; c >= '1' && c <= '9' || c == 'g' && i+2 < len(lit) && lit[i+2] == '<' {
			return true
		}
		i++ // an escaped backslash
	}
	return false
}

// sortedSet returns the keys of set sorted; nil when it is empty.
func sortedSet(set map[string]bool) []string {
	if len(set) == 0 {
		return nil
	}
	return slices.Sorted(maps.Keys(set))
}

func isDunder(s string) bool {
	return len(s) > 4 && strings.HasPrefix(s, "__") && strings.HasSuffix(s, "__")
}

// indented reports whether the statement starting at sig[i] is indented:
// a def inside a class (or a function) body.
func indented(code string, t Token, sig []Token, i int) bool {
	if i > 0 && sig[i-1].Kind == Name && sig[i-1].Text == "async" {
		t = sig[i-1]
	}
	lineStart := strings.LastIndexAny(code[:t.Start], "\r\n") + 1
	return t.Start > lineStart && strings.TrimLeft(code[lineStart:t.Start], " \t") == ""
}

func next(sig []Token, i int, op string) bool { return i+1 < len(sig) && isOp(sig[i+1], op) }

func after(sig []Token, i int, op string) bool { return i > 0 && isOp(sig[i-1], op) }

// matchBrackets maps each opening bracket's index to its closer's (-1 when
// unclosed).
func matchBrackets(sig []Token) []int {
	match := make([]int, len(sig))
	var stack []int
	for i, t := range sig {
		match[i] = -1
		if t.Kind != Op {
			continue
		}
		switch t.Text {
		case "(", "[", "{":
			stack = append(stack, i)
		case ")", "]", "}":
			if n := len(stack); n > 0 {
				match[stack[n-1]] = i
				stack = stack[:n-1]
			}
		}
	}
	return match
}

// hasTopComma and hasTopOp look for a token directly inside the brackets
// open..close (close exclusive).
func hasTopComma(sig []Token, open, close int) bool { return hasTopOp(sig, open, close, ",") }

func hasTopOp(sig []Token, open, close int, op string) bool {
	if open < 0 || close <= open {
		return false
	}
	d := sig[open].Depth + 1
	for j := open + 1; j < close; j++ {
		if sig[j].Depth == d && isOp(sig[j], op) {
			return true
		}
	}
	return false
}

// topKeyword returns the index of the first kw directly inside the brackets
// open..close, or -1.
func topKeyword(sig []Token, open, close int, kw string) int {
	d := sig[open].Depth + 1
	for j := open + 1; j < close; j++ {
		if sig[j].Depth == d && sig[j].Kind == Name && sig[j].Text == kw {
			return j
		}
	}
	return -1
}

// isCallParen reports whether the "(" at i opens a call's arguments.
func isCallParen(sig []Token, i int) bool {
	if i == 0 {
		return false
	}
	p := sig[i-1]
	switch {
	case p.Kind == Name:
		return !keywords[p.Text]
	case p.Kind == String:
		return true
	case p.Kind == Op:
		return p.Text == ")" || p.Text == "]"
	}
	return false
}

// Analysis is what a router needs to know of a cell, from one scan.
type Analysis struct {
	Imports  []Import
	Features []string // as Features reports them
	Uses     []string // as Uses reports them
	Names    []string // as Names reports them
	// Regions are the parts of the code read as code: the code, then the
	// expression of each f-string replacement field (FStringFields), each
	// as its tokens without comments and line breaks, with offsets into
	// the code (what a rewrite of call sites scans).
	Regions [][]Token
}

// Analyze scans code once for its imports, features, uses, names and
// regions.
func Analyze(code string) Analysis {
	s := scan(code, false)
	sig := significant(s.toks)
	found := map[string]bool{}
	usesIn(code, sig, found)
	regions := [][]Token{codeTokens(sig, 0)}
	for _, f := range s.fStringFields() {
		field := code[f.Start:f.End]
		ft, _ := Tokenize(field)
		fsig := significant(ft)
		usesIn(field, fsig, found)
		regions = append(regions, codeTokens(fsig, f.Start))
	}
	return Analysis{Imports: importsOf(sig), Features: featuresOf(code, s.toks, sig), Uses: sortedSet(found), Names: namesOf(sig), Regions: regions}
}

// codeTokens are sig without line breaks, their offsets moved by off.
func codeTokens(sig []Token, off int) []Token {
	out := make([]Token, 0, len(sig))
	for _, t := range sig {
		if t.Kind != Newline {
			t.Start += off
			t.End += off
			out = append(out, t)
		}
	}
	return out
}
