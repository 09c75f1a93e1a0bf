package pysrc

import "strings"

// Dedent removes the longest common leading whitespace from every non-blank
// line, like Python's textwrap.dedent: lines of only spaces and tabs become
// empty and do not count, and a tab does not match a space. Lines split at
// "\n"; a "\r" before it is kept as part of the line break, so CRLF text
// dedents like LF text (Python would count "\r" as content). The trailing
// newline, if any, is kept.
func Dedent(code string) string {
	lines := strings.SplitAfter(code, "\n")
	margin := margin(lines)
	var b strings.Builder
	b.Grow(len(code))
	for _, l := range lines {
		body, brk := splitBreak(l)
		if !isBlankLine(body) {
			b.WriteString(body[len(margin):])
		}
		b.WriteString(brk)
	}
	return b.String()
}

// DedentMargin is the leading whitespace Dedent removes from every
// non-blank line of code.
func DedentMargin(code string) string { return margin(strings.SplitAfter(code, "\n")) }

// margin is the longest leading whitespace common to the non-blank lines.
func margin(lines []string) string {
	margin, have := "", false
	for _, l := range lines {
		body, _ := splitBreak(l)
		if isBlankLine(body) {
			continue
		}
		ind := body[:len(body)-len(strings.TrimLeft(body, " \t"))]
		if !have {
			margin, have = ind, true
			continue
		}
		n := 0
		for n < len(margin) && n < len(ind) && margin[n] == ind[n] {
			n++
		}
		margin = margin[:n]
	}
	return margin
}

// splitBreak splits a line from SplitAfter into its text and its break.
func splitBreak(l string) (body, brk string) {
	switch {
	case strings.HasSuffix(l, "\r\n"):
		return l[:len(l)-2], "\r\n"
	case strings.HasSuffix(l, "\n"):
		return l[:len(l)-1], "\n"
	}
	return l, ""
}

func isBlankLine(s string) bool { return strings.Trim(s, " \t") == "" }
