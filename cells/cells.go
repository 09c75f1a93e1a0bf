// Package cells splits percent-format Python text ("# %%" notebooks) into cells.
//
// Lines are 0-based and only "\n" ends a line; any run of "\r" right before a
// "\n" is dropped (so CRLF files parse like LF files), a "\r" elsewhere is
// line content. Characters are counted in UTF-16 code units, as in LSP.
//
// A marker is a whole line starting at column 0 (trailing whitespace ignored):
//
//	# %%  /  #%%  [title]          code cell
//	# %% [markdown] [title]        markdown cell (also "[md]")
//	# %% [raw] [title]             raw cell, never run
//	# In[ ]:  /  # In[12]:  /  # In[]    code cell (colon optional)
//	# <codecell>  /  # <markdowncell>
//
// A "# %%" line is read as Jupytext reads it: title, cell type and
// metadata (`# %% Title [markdown] key="value"`). The type tag counts
// anywhere in the title, before the metadata; a code cell whose metadata
// says it is not active in notebooks (`active="py"`) is raw too.
//
// A line that starts inside a string literal is no marker: the text is read
// with pysrc.TokenizeLenient, so "# %%" in a triple-quoted string (any
// prefix) stays in its cell, and a string not yet closed hides nothing.
package cells

import (
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/backyard-ls/backyard-ls/pysrc"
)

// Kind is what a cell holds.
type Kind int

const (
	Code     Kind = iota // Python code, runnable
	Markdown             // commented markdown text, never run
	Raw                  // raw text (Jupyter's raw cells), never run
)

// Position is an LSP-style position: 0-based line, character in UTF-16 code units.
type Position struct{ Line, Character int }

// Cell is one cell of a document. All lines are 0-based.
type Cell struct {
	Index      int      // 0-based, in document order, counting all cells (markdown too)
	Kind       Kind     // Code or Markdown
	Title      string   // text after the marker, trimmed, tag removed; "" if none
	HeaderLine int      // line of the marker; -1 for an implicit cell (no marker above it)
	StartLine  int      // first body line: HeaderLine+1, or 0 for an implicit cell
	EndLine    int      // exclusive end: the next marker's line, or the number of lines
	LastLine   int      // last non-blank body line; StartLine-1 if the body is blank
	End        Position // end of line LastLine (UTF-16); end of the header line (or of line 0) for a blank body
	Code       string   // lines StartLine..LastLine joined with "\n", no trailing newline
}

// Parse splits text into cells. Text above the first marker becomes an
// implicit code cell only if it holds code, not just comments and blank
// lines (nbconvert's "#!" and coding lines are no cell, so execution counts
// match Jupyter's); text without any marker is one implicit code cell;
// empty text has no cells.
func Parse(text string) []Cell {
	if text == "" {
		return nil
	}
	lines := splitLines(text)
	starts, inString, firstCode := readPython(text, len(lines))

	type header struct {
		line  int
		kind  Kind
		title string
	}
	var headers []header
	for i, l := range lines {
		if inString[i] {
			continue
		}
		if kind, title, ok := parseMarker(l); ok {
			headers = append(headers, header{i, kind, title})
		}
	}

	var cells []Cell
	firstMarker := len(lines)
	if len(headers) > 0 {
		firstMarker = headers[0].line
	}
	// Without markers the whole file is a cell even if blank, so a run
	// command on any line finds something.
	if len(headers) == 0 || firstCode < starts[firstMarker] {
		cells = append(cells, newCell(lines, Code, "", -1, 0, firstMarker))
	}
	for i, h := range headers {
		end := len(lines)
		if i+1 < len(headers) {
			end = headers[i+1].line
		}
		cells = append(cells, newCell(lines, h.kind, h.title, h.line, h.line+1, end))
	}
	for i := range cells {
		cells[i].Index = i
	}
	return cells
}

// At returns the index in cells of the cell containing the 0-based line
// (header or body), or -1. cells must be in document order, as Parse and
// CodeCells return them.
func At(cells []Cell, line int) int {
	i := sort.Search(len(cells), func(i int) bool { return cells[i].EndLine > line })
	if i < len(cells) && firstLine(cells[i]) <= line {
		return i
	}
	return -1
}

// CodeCells returns only the cells of Kind Code, in order. Index keeps the
// position among all cells.
func CodeCells(cells []Cell) []Cell {
	var out []Cell
	for _, c := range cells {
		if c.Kind == Code {
			out = append(out, c)
		}
	}
	return out
}

func firstLine(c Cell) int {
	if c.HeaderLine >= 0 {
		return c.HeaderLine
	}
	return c.StartLine
}

func newCell(lines []string, kind Kind, title string, header, start, end int) Cell {
	c := Cell{Kind: kind, Title: title, HeaderLine: header, StartLine: start, EndLine: end}
	c.LastLine = lastNonBlank(lines, start, end)
	switch {
	case c.LastLine >= 0:
		c.End = Position{c.LastLine, utf16Len(lines[c.LastLine])}
		// Leading blank lines stay so Code line i is document line StartLine+i
		// (traceback lines map back by adding StartLine).
		c.Code = strings.Join(lines[start:c.LastLine+1], "\n")
	case header >= 0:
		c.LastLine = start - 1
		c.End = Position{header, utf16Len(lines[header])}
	default:
		// Implicit blank cell (a marker-less blank file): no header to point at.
		c.LastLine = start - 1
		c.End = Position{0, utf16Len(lines[0])}
	}
	return c
}

// splitLines splits on "\n" and drops the "\r"s right before each "\n".
// "a\n" gives two lines, "a" and "", as LSP counts them.
func splitLines(text string) []string {
	lines := strings.Split(text, "\n")
	for i := 0; i < len(lines)-1; i++ {
		// All of a "\r\r\n" run goes, so no Code line can end in "\r" before a "\n".
		lines[i] = strings.TrimRight(lines[i], "\r")
	}
	return lines
}

// readPython tokenizes text, split into n lines, and returns each line's
// byte offset (plus len(text) for the end), whether the line starts inside
// a string literal, and the offset of the first token that is code: not a
// comment, and not a stray "\v", which Parse counts as blank.
func readPython(text string, n int) (starts []int, inString []bool, firstCode int) {
	starts = make([]int, 0, n+1)
	starts = append(starts, 0)
	for i := 0; i < len(text); i++ {
		if text[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	starts = append(starts, len(text))
	inString = make([]bool, n)
	firstCode = len(text)
	toks, _ := pysrc.TokenizeLenient(text) // errors are Python's to report
	l := 1
	for _, t := range toks {
		if t.Kind == pysrc.Comment || t.Kind == pysrc.Newline {
			continue
		}
		if firstCode == len(text) && trimSpace(t.Text) != "" {
			firstCode = t.Start
		}
		if t.Kind != pysrc.String {
			continue
		}
		for l < n && starts[l] <= t.Start {
			l++
		}
		for ; l < n && starts[l] < t.End; l++ {
			inString[l] = true
		}
	}
	return starts, inString, firstCode
}

// lastNonBlank returns the last line in [start, end) that is not blank, or -1.
func lastNonBlank(lines []string, start, end int) int {
	for i := end - 1; i >= start; i-- {
		if trimSpace(lines[i]) != "" {
			return i
		}
	}
	return -1
}

// isSpace is Python's idea of intra-line whitespace (plus "\r" and "\v"):
// a line holding only U+00A0 is a syntax error in Python, not blank.
func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\f' || b == '\v' || b == '\r'
}

func trimLeftSpace(s string) string {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	return s
}

func trimRightSpace(s string) string {
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func trimSpace(s string) string { return trimRightSpace(trimLeftSpace(s)) }

// parseMarker reports whether line is a cell marker, and its kind and title.
func parseMarker(line string) (Kind, string, bool) {
	s := trimRightSpace(line)
	if !strings.HasPrefix(s, "#") {
		return 0, "", false
	}
	rest := trimLeftSpace(s[1:])
	switch {
	case strings.HasPrefix(rest, "%%"):
		after := rest[2:]
		// "# %%%" and "# %%x" are ordinary comments.
		if after != "" && !isSpace(after[0]) {
			return 0, "", false
		}
		kind, title := splitTag(trimSpace(after))
		return kind, title, true
	case strings.HasPrefix(rest, "In["):
		if isInPrompt(rest[len("In["):]) {
			return Code, "", true
		}
	case rest == "<codecell>":
		return Code, "", true
	case rest == "<markdowncell>":
		return Markdown, "", true
	}
	return 0, "", false
}

// isInPrompt reports whether s (the text after "In[") is "]" or "]:" after
// an optional execution count with optional spaces: " ]", "12]:".
func isInPrompt(s string) bool {
	end := strings.IndexByte(s, ']')
	if end < 0 {
		return false
	}
	if tail := s[end+1:]; tail != "" && tail != ":" {
		return false
	}
	for _, r := range strings.Trim(s[:end], " ") {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// cellTypes are the type tags of a "# %%" cell in the order Jupytext looks
// for them (lowercase only, like Jupytext).
var cellTypes = []struct {
	tag  string
	kind Kind
}{{"[markdown]", Markdown}, {"[raw]", Raw}, {"[md]", Markdown}}

// splitTag reads t, the trimmed text after "%%", as Jupytext does: the
// first type tag found in its title makes the cell of that type, titled
// without it; a code cell inactive in notebooks is raw.
func splitTag(t string) (Kind, string) {
	title, meta := jupytextTitle(t)
	for _, c := range cellTypes {
		if strings.Contains(title, c.tag) {
			return c.kind, trimSpace(strings.ReplaceAll(title, c.tag, ""))
		}
	}
	if inactive(meta) {
		return Raw, t
	}
	return Code, t
}

// jupytextTitle splits a "# %%" line's text into its title and its
// metadata, as Jupytext's text_to_metadata does: JSON metadata from the
// first "{" (unless an "=" comes first); else key=value pairs from the
// word before the first "=", and trailing ".class" words go too.
func jupytextTitle(t string) (title, meta string) {
	curly, eq := strings.IndexByte(t, '{'), strings.IndexByte(t, '=')
	if curly >= 0 && (eq < 0 || curly < eq) {
		return trimSpace(t[:curly]), t[curly:]
	}
	var words []string
	if eq >= 0 {
		words = strings.Split(t[:eq], " ")
		for len(words) > 0 && words[len(words)-1] == "" {
			words = words[:len(words)-1]
		}
		if len(words) > 0 {
			words = words[:len(words)-1] // the key
		}
	} else {
		words = strings.Split(t, " ")
	}
	for len(words) > 0 && (strings.TrimSpace(words[len(words)-1]) == "" || strings.HasPrefix(words[len(words)-1], ".")) {
		words = words[:len(words)-1]
	}
	title = strings.Join(words, " ")
	return title, t[len(title):]
}

// activeValue finds the "active" metadata: key=value or JSON.
var activeValue = regexp.MustCompile(`(?:^|[\s,{])"?active"?\s*[=:]\s*"([^"]*)"`)

// inactive reports metadata whose "active" value leaves notebooks out
// (Jupytext's is_active for ".ipynb"): the cell is then raw in Jupyter.
func inactive(meta string) bool {
	m := activeValue.FindStringSubmatch(meta)
	if m == nil {
		return false
	}
	for _, ext := range strings.FieldsFunc(m[1], func(r rune) bool { return r == '.' || r == ',' }) {
		if ext == "ipynb" {
			return false
		}
	}
	return true
}

// utf16Len is the length of s in UTF-16 code units; an invalid byte counts
// as one unit (it becomes U+FFFD).
func utf16Len(s string) int {
	n := 0
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
		s = s[size:]
	}
	return n
}
