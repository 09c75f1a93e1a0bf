package ipysyntax

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/backyard-ls/backyard-ls/pysrc"
)

// cleanup is IPython's clean-up of a cell before its other transforms: the
// cell's common indentation goes, and so do the prompts of a session
// pasted into it (Python's >>> and ..., IPython's In [1]: and ...:).
// Unlike IPython, blank lines before the code stay (as empty lines), so
// the cell keeps its line count.
func cleanup(code string) string {
	if indented(code) {
		code = pysrc.Dedent(code)
	}
	if strings.Contains(code, ">>>") {
		code = classicPrompt(code)
	}
	if strings.Contains(code, "In [") || strings.Contains(code, "...:") {
		code = ipythonPrompt(code)
	}
	return code
}

// indented reports whether the first line that is not blank starts with
// a space or a tab (else there is no common indentation to remove).
func indented(code string) bool {
	for l := range strings.Lines(code) {
		if strings.TrimLeft(l, " \t\r\n") == "" {
			continue
		}
		return l[0] == ' ' || l[0] == '\t'
	}
	return false
}

// firstCode is the index of the first line with more than whitespace.
func firstCode(ls []string) int {
	for i, l := range ls {
		if strings.TrimSpace(l) != "" {
			return i
		}
	}
	return len(ls)
}

var (
	// IPython's prompts: "In [N]: " (maybe after a vi mode's [nav] or
	// [ins]) and the continuation's "...: ", with any dots from three.
	ipythonPromptRe = regexp.MustCompile(`^(((\[nav\]|\[ins\])? )?In \[[0-9]+\]: |\s*\.{3,}: ?)`)
	doctestPS1      = regexp.MustCompile(`^\s*>>>[ \t]?`)
	doctestPS2      = regexp.MustCompile(`^\s*\.\.\.[ \t]?`)
	doctestFirst    = regexp.MustCompile(`^\s*>>>`)
	stringPrefix    = regexp.MustCompile(`(?i)^[rubf]*$`)
)

// ipythonPrompt removes IPython's prompts from every line when the
// cell's first line, or the one after it, starts with one.
func ipythonPrompt(code string) string {
	ls := lines(code)
	i := firstCode(ls)
	if i == len(ls) || !ipythonPromptRe.MatchString(ls[i]) && (i+1 >= len(ls) || !ipythonPromptRe.MatchString(ls[i+1])) {
		return code
	}
	for j := i; j < len(ls); j++ {
		ls[j] = ipythonPromptRe.ReplaceAllString(ls[j], "")
	}
	return strings.Join(ls, "")
}

// classicPrompt removes Python's prompts (>>> and ..., maybe indented,
// as in a doctest) when a line outside a triple-quoted string starts with
// >>>. Lines inside such a string keep theirs; each run of other lines
// that lost a prompt is then dedented.
func classicPrompt(code string) string {
	ls := lines(code)
	inString := tripleQuoteMask(ls)
	found := false
	for j, l := range ls {
		if !inString[j] && doctestFirst.MatchString(l) {
			found = true
			break
		}
	}
	if !found {
		return code
	}
	stripped := make([]bool, len(ls))
	for j, l := range ls {
		if inString[j] {
			continue
		}
		switch {
		case doctestPS1.MatchString(l):
			ls[j] = doctestPS1.ReplaceAllString(l, "")
		case doctestPS2.MatchString(l):
			ls[j] = doctestPS2.ReplaceAllString(l, "")
		}
		stripped[j] = ls[j] != l
	}
	var b strings.Builder
	for i := 0; i < len(ls); {
		j, any := i, false
		for j < len(ls) && inString[j] == inString[i] {
			any = any || stripped[j]
			j++
		}
		seg := strings.Join(ls[i:j], "")
		if !inString[i] && any {
			seg = pysrc.Dedent(seg)
		}
		b.WriteString(seg)
		i = j
	}
	return b.String()
}

// tripleQuotes finds the triple quotes of a line not preceded by a
// backslash, left to right, as IPython's prompt stripper does.
func tripleQuotes(l string) []int {
	var at []int
	for i := 0; i+3 <= len(l); {
		if (l[i:i+3] == `"""` || l[i:i+3] == `'''`) && (i == 0 || l[i-1] != '\\') {
			at = append(at, i)
			i += 3
			continue
		}
		i++
	}
	return at
}

// tripleQuoteMask says, line by line, whether a line is taken as inside a
// triple-quoted string whose prompts stay (a string opened by a line
// without a prompt, before any prompt was seen). It is IPython's heuristic,
// not a tokenizer.
func tripleQuoteMask(ls []string) []bool {
	mask := make([]bool, len(ls))
	open := "" // the quote of the string the line is in
	preserve, seen := false, false
	for j, l := range ls {
		mask[j] = open != "" && preserve
		for _, at := range tripleQuotes(l) {
			q := l[at : at+3]
			switch {
			case open == "":
				open = q
				before := l[:at]
				s := doctestPS1.ReplaceAllString(before, "")
				s = doctestPS2.ReplaceAllString(s, "")
				prompted := s != before && seen
				preserve = !prompted && stringPrefix.MatchString(strings.TrimSpace(s))
				mask[j] = preserve
			case open == q:
				open, preserve = "", false
			}
		}
		seen = seen || doctestFirst.MatchString(l)
	}
	return mask
}

// Clean is code as IPython's clean-up leaves it (see Transform): what an
// IPython traceback shows of the cell's lines.
func Clean(code string) string { return cleanup(code) }

// Removed is how many code points the clean-up takes from the start of
// each line of code (it only ever takes a prefix: indentation, prompts);
// nil when it takes nothing. A column of the clean line plus Removed is
// the column of the line as written.
func Removed(code string) []int {
	clean := cleanup(code)
	if clean == code {
		return nil
	}
	in, out := strings.Split(code, "\n"), strings.Split(clean, "\n")
	if len(in) != len(out) {
		return nil
	}
	n := make([]int, len(in))
	for i, l := range in {
		if strings.HasSuffix(l, out[i]) {
			n[i] = utf8.RuneCountInString(l) - utf8.RuneCountInString(out[i])
		}
	}
	return n
}
