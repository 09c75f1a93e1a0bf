package cells

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/backyard-ls/backyard-ls/pysrc"
)

// An independent, regexp-based reading of the marker rules: Parse must agree
// with it on every input. Strings come from pysrc.Tokenize, read again from
// the line break after each unterminated one. ws is Python's intra-line
// whitespace plus \r and \v.
const ws = `[ \t\f\v\r]`

var (
	oracleEOL     = regexp.MustCompile(`\r*\n`)
	oracleBlank   = regexp.MustCompile(`^` + ws + `*$`)
	oraclePercent = regexp.MustCompile(`^#` + ws + `*%%(?:` + ws + `(.*))?$`)
	oracleIn      = regexp.MustCompile(`^#` + ws + `*In\[ *[0-9]* *\]:?` + ws + `*$`)
	oracleCode    = regexp.MustCompile(`^#` + ws + `*<codecell>` + ws + `*$`)
	oracleMDCell  = regexp.MustCompile(`^#` + ws + `*<markdowncell>` + ws + `*$`)
	// Jupytext's title: before JSON metadata, or before a key=value key,
	// less trailing blank and ".class" words; its first type tag.
	oracleJSON     = regexp.MustCompile(`^([^{=]*)\{`)
	oracleKey      = regexp.MustCompile(`^(.*?)[^ ]* *$`)
	oracleTrailing = regexp.MustCompile(`(?:^| )(?:[^ \S]*|\.[^ ]*)$`)
	oracleType     = regexp.MustCompile(`\[(markdown|raw|md)\]`)
	oracleActive   = regexp.MustCompile(`"?active"?\s*[=:]\s*"([^"]*)"`)
)

// oracleType finds the cell type of a "# %%" line's text t as Jupytext does.
func oracleTypeOf(t string) (Kind, string) {
	title, meta := t, ""
	if m := oracleJSON.FindStringSubmatch(t); m != nil {
		title, meta = oracleTrim(m[1]), t[len(m[1]):]
	} else {
		if eq := strings.Index(t, "="); eq >= 0 {
			title = oracleKey.FindStringSubmatch(strings.TrimRight(t[:eq], " "))[1]
		}
		for {
			cut := oracleTrailing.ReplaceAllString(title, "")
			if cut == title {
				break
			}
			title = cut
		}
		meta = t[len(title):]
	}
	// The first of markdown, raw and md that the title holds.
	for _, name := range []string{"markdown", "raw", "md"} {
		for _, m := range oracleType.FindAllStringSubmatch(title, -1) {
			if m[1] == name {
				k := Markdown
				if name == "raw" {
					k = Raw
				}
				return k, oracleTrim(strings.ReplaceAll(title, m[0], ""))
			}
		}
	}
	if m := oracleActive.FindStringSubmatch(meta); m != nil && !regexp.MustCompile(`(^|[.,])ipynb([.,]|$)`).MatchString(m[1]) {
		return Raw, t
	}
	return Code, t
}

func oracleLines(text string) []string { return oracleEOL.Split(text, -1) }

func oracleTrim(s string) string { return strings.Trim(s, " \t\f\v\r") }

func oracleMarker(line string) (Kind, string, bool) {
	switch {
	case oracleIn.MatchString(line), oracleCode.MatchString(line):
		return Code, "", true
	case oracleMDCell.MatchString(line):
		return Markdown, "", true
	}
	m := oraclePercent.FindStringSubmatch(line)
	if m == nil {
		return 0, "", false
	}
	k, title := oracleTypeOf(oracleTrim(m[1]))
	return k, title, true
}

func oracleUTF16(s string) int { return len(utf16.Encode([]rune(s))) }

// oracleTokens tokenizes text with Tokenize, which stops at an unterminated
// string (the first text it left unscanned), and tokenizes again from that
// string's line break on.
func oracleTokens(text string) []pysrc.Token {
	var out []pysrc.Token
	for off := 0; ; {
		toks, _ := pysrc.Tokenize(text[off:])
		end := 0
		for _, tk := range toks {
			tk.Start, tk.End = tk.Start+off, tk.End+off
			out = append(out, tk)
			end = tk.End
		}
		if off == 0 && strings.HasPrefix(text, "\ufeff") && end == 0 {
			end = len("\ufeff")
		}
		rest := text[max(end, off):]
		stopped := len(rest) - len(strings.TrimLeft(rest, " \t\f\r\n\\"))
		if stopped == len(rest) {
			return out
		}
		str := len(text) - len(rest) + stopped
		brk := strings.IndexAny(text[str:], "\r\n")
		if brk < 0 {
			return append(out, pysrc.Token{Kind: pysrc.String, Start: str, End: len(text)})
		}
		out = append(out, pysrc.Token{Kind: pysrc.String, Start: str, End: str + brk})
		off = str + brk
	}
}

// oracleRead says which lines start inside a string and whether code (a
// token other than a comment, and not blank) comes before line upTo.
func oracleRead(text string, lines []string, upTo int) (inString []bool, code bool) {
	inString = make([]bool, len(lines))
	starts := make([]int, len(lines)+1)
	for i, l := range oracleEOL.FindAllStringIndex(text, -1) {
		starts[i+1] = l[1]
	}
	starts[len(lines)] = len(text)
	for _, tk := range oracleTokens(text) {
		if tk.Kind == pysrc.String {
			for i := range lines {
				if tk.Start < starts[i] && starts[i] < tk.End {
					inString[i] = true
				}
			}
		}
		if tk.Kind != pysrc.Comment && tk.Kind != pysrc.Newline && tk.Start < starts[upTo] && !oracleBlank.MatchString(text[tk.Start:tk.End]) {
			code = true
		}
	}
	return inString, code
}

// checkInvariants checks cells against text using only the oracle above.
func checkInvariants(t *testing.T, text string, cells []Cell) {
	t.Helper()
	if text == "" {
		if len(cells) != 0 {
			t.Fatalf("empty text gave %d cells", len(cells))
		}
		return
	}
	lines := oracleLines(text)
	n := len(lines)
	if n != strings.Count(text, "\n")+1 {
		t.Fatalf("oracle split %d lines, text has %d newlines", n, strings.Count(text, "\n"))
	}

	type hdr struct {
		line  int
		kind  Kind
		title string
	}
	inString, _ := oracleRead(text, lines, 0)
	var headers []hdr
	for i, l := range lines {
		if k, title, ok := oracleMarker(l); ok && !inString[i] {
			headers = append(headers, hdr{i, k, title})
		}
	}
	implicit := len(headers) == 0
	if !implicit {
		_, implicit = oracleRead(text, lines, headers[0].line)
	}
	want := len(headers)
	if implicit {
		want++
	}
	if len(cells) != want {
		t.Fatalf("got %d cells, want %d (implicit=%v, markers=%v)%s", len(cells), want, implicit, headers, fmtCells(cells))
	}

	var gotHeaders []hdr
	owner := make([]int, n)
	for i := range owner {
		owner[i] = -1
	}
	for i, c := range cells {
		if c.Index != i {
			t.Errorf("cell %d: Index %d", i, c.Index)
		}
		if c.Kind != Code && c.Kind != Markdown && c.Kind != Raw {
			t.Errorf("cell %d: bad Kind %d", i, c.Kind)
		}
		if !(c.HeaderLine < c.StartLine && c.StartLine <= c.EndLine && c.EndLine <= n) {
			t.Fatalf("cell %d: bad lines header %d start %d end %d (n=%d)", i, c.HeaderLine, c.StartLine, c.EndLine, n)
		}
		first := c.HeaderLine
		if c.HeaderLine == -1 {
			first = 0
			if i != 0 || c.StartLine != 0 || c.Kind != Code || c.Title != "" {
				t.Errorf("cell %d: bad implicit cell %+v", i, c)
			}
		} else {
			if c.StartLine != c.HeaderLine+1 {
				t.Errorf("cell %d: StartLine %d, header %d", i, c.StartLine, c.HeaderLine)
			}
			gotHeaders = append(gotHeaders, hdr{c.HeaderLine, c.Kind, c.Title})
		}
		// Cells tile the document from their first line on: each ends where the next begins.
		wantEnd := n
		if i+1 < len(cells) {
			wantEnd = cells[i+1].HeaderLine
		}
		if c.EndLine != wantEnd {
			t.Errorf("cell %d: EndLine %d, want %d", i, c.EndLine, wantEnd)
		}
		for l := first; l < c.EndLine; l++ {
			if owner[l] != -1 {
				t.Fatalf("line %d in cells %d and %d", l, owner[l], i)
			}
			owner[l] = i
		}

		if c.LastLine < c.StartLine-1 || c.LastLine >= c.EndLine {
			t.Fatalf("cell %d: LastLine %d outside body [%d,%d)", i, c.LastLine, c.StartLine, c.EndLine)
		}
		for l := c.LastLine + 1; l < c.EndLine; l++ {
			if l >= c.StartLine && !oracleBlank.MatchString(lines[l]) {
				t.Errorf("cell %d: line %d after LastLine %d is not blank: %q", i, l, c.LastLine, lines[l])
			}
		}
		endLine := c.LastLine
		if c.LastLine >= c.StartLine {
			if oracleBlank.MatchString(lines[c.LastLine]) {
				t.Errorf("cell %d: LastLine %d is blank", i, c.LastLine)
			}
		} else if c.HeaderLine >= 0 {
			endLine = c.HeaderLine
		} else {
			endLine = 0
		}
		if c.End.Line != endLine || c.End.Character != oracleUTF16(lines[endLine]) {
			t.Errorf("cell %d: End %+v, want {%d %d}", i, c.End, endLine, oracleUTF16(lines[endLine]))
		}

		if strings.Contains(c.Code, "\r\n") {
			t.Errorf("cell %d: Code contains CRLF: %q", i, c.Code)
		}
		if c.LastLine < c.StartLine {
			if c.Code != "" {
				t.Errorf("cell %d: blank body but Code %q", i, c.Code)
			}
		} else if got, want := strings.Split(c.Code, "\n"), lines[c.StartLine:c.LastLine+1]; !reflect.DeepEqual(got, want) {
			t.Errorf("cell %d: Code lines %q, want document lines %q", i, got, want)
		}
	}
	if !reflect.DeepEqual(gotHeaders, headers) {
		t.Errorf("markers %+v, oracle says %+v", gotHeaders, headers)
	}

	for l := -2; l <= n+1; l++ {
		want := -1
		if l >= 0 && l < n {
			want = owner[l]
		}
		if got := At(cells, l); got != want {
			t.Errorf("At(%d) = %d, want %d", l, got, want)
		}
	}

	var wantCode []Cell
	for _, c := range cells {
		if c.Kind == Code {
			wantCode = append(wantCode, c)
		}
	}
	if got := CodeCells(cells); !reflect.DeepEqual(got, wantCode) {
		t.Errorf("CodeCells = %s, want %s", fmtCells(got), fmtCells(wantCode))
	}
}

func FuzzParse(f *testing.F) {
	for _, tc := range parseCases {
		f.Add(tc.text)
	}
	for _, s := range []string{
		"\n", "\r\n", "\r", "\r\r\n", "#", "# %", "# %%\r", "#%%\r\r\n\r",
		"# %% [markdown]\n# %% [md] x\n# %% y [markdown]\n",
		"# In[ 1 ]:\n# In[ ]:  \n#\tIn[]\n", "# <codecell>\n# <markdowncell>\n",
		"x\n\n\n# %%\n", "\xff\xfe# %%\n\xed\xa0\x80\n", "# %% 😀\n😀\n",
		"\"\"\"\n# %%\n\"\"\"\n", "'''\n# %%\r\n'''", "f\"\"\"{\"\"\"\n# %%\n\"\"\"}\"\"\"\n# %%\n",
		"s = 'a\\\n# %% b'\n", "x = \"\n# %%\n\"", "\ufeff# c\n# %%\n", "\\\n# %%\n", "\v\n# %%\nx", "\u00a0\n# %%\n",
		"#!/usr/bin/env python\n# coding: utf-8\n\n# In[1]:\n", "x = f'{\n# %%\n}'\n# %%\n", "a\r# %%\n'\r# %%\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		cells := Parse(text)
		checkInvariants(t, text, cells)
		// Line endings must not matter: CRLF text parses to the same cells.
		if crlf := Parse(strings.ReplaceAll(text, "\n", "\r\n")); !reflect.DeepEqual(crlf, cells) {
			t.Errorf("CRLF variant differs:\n got %s\nwant %s", fmtCells(crlf), fmtCells(cells))
		}
	})
}
