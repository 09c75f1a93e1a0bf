// Package pysrc scans Python source text without executing it: tokens, the trailing expression of a cell, imports and names.
//
// All offsets are byte offsets into the code; all line numbers are 0-based.
// Lines end at "\n", "\r\n" or a lone "\r".
package pysrc

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kind classifies a Token. There are no INDENT/DEDENT tokens: a logical
// line's indentation is the text between its first token and the line start.
type Kind int

const (
	// Name is an identifier or keyword (hard and soft keywords alike).
	Name Kind = iota + 1
	// Number is a numeric literal: 1_000, 0x1F, 1e-5, 1.5J.
	Number
	// String is a whole string literal including its prefix; an f-string
	// (or t-string) with its replacement fields is one token.
	String
	// Op is an operator or delimiter, including "..." and "\\" out of place.
	// A character Python rejects outside strings (such as '$' or '?') is also
	// an Op token, and Tokenize reports an error for it.
	Op
	// Comment runs from '#' to the end of the physical line, line break excluded.
	Comment
	// Newline ends a logical line that has at least one non-comment token.
	// Text is the line break, or "" at the end of code without a final break.
	// Blank lines, comment-only lines and breaks inside brackets get none.
	Newline
)

var kindNames = [...]string{Name: "Name", Number: "Number", String: "String", Op: "Op", Comment: "Comment", Newline: "Newline"}

// String returns the kind's name.
func (k Kind) String() string {
	if k > 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// Token is one lexical token: Text == code[Start:End] (byte offsets), Line is
// the 0-based line of Start, Depth the bracket nesting depth before the token
// (so an opening bracket at top level has Depth 0, its closer Depth 1).
type Token struct {
	Kind       Kind
	Text       string
	Start, End int
	Line       int
	Depth      int
}

// SyntaxError is a lexical error. Line is 0-based and Offset a byte offset
// into the code; the message shows the line 1-based, as Python does.
type SyntaxError struct {
	Line   int
	Offset int
	Msg    string
}

// Error formats the error as "line N: message" with N 1-based.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d: %s", e.Line+1, e.Msg)
}

// Tokenize scans code; err (a *SyntaxError) is non-nil for an unterminated
// string or an unbalanced bracket at EOF, in which case the tokens scanned so
// far are returned. An unterminated string stops the scan; the other errors
// (unmatched closing bracket, stray character, misplaced backslash) are
// reported after scanning to the end, the first one winning.
func Tokenize(code string) ([]Token, error) {
	return tokenize(code, false)
}

// TokenizeLenient is Tokenize for code being edited: it scans to the end.
// An unterminated string becomes a String token up to its first line break
// and scanning goes on from that break, so a half-typed quote leaves the
// lines below it as they were. err is the first error, as Tokenize reports
// it.
func TokenizeLenient(code string) ([]Token, error) {
	return tokenize(code, true)
}

func tokenize(code string, lenient bool) ([]Token, error) {
	s := scan(code, lenient)
	if s.err != nil {
		return s.toks, s.err
	}
	return s.toks, nil
}

// scan runs a scanner over code: its tokens, error and f-string fields.
func scan(code string, lenient bool) *scanner {
	// Typical code has a token per 4-5 bytes; this saves most regrowth.
	s := &scanner{src: code, toks: make([]Token, 0, len(code)/4+4), lenient: lenient}
	if strings.HasPrefix(code, bom) {
		s.pos = len(bom)
	}
	s.run()
	return s
}

const bom = "\ufeff"

// maxNest bounds f-string nesting so hostile input cannot exhaust the stack.
const maxNest = 200

type scanner struct {
	src     string
	pos     int
	line    int
	toks    []Token
	open    []int // indexes in toks of unclosed brackets
	err     *SyntaxError
	pending bool // the current logical line has a non-comment token
	lenient bool // an unterminated string ends at its line break (TokenizeLenient)
	fields  []Span
}

// Span is a part of the code, from Start up to (not including) End: byte
// offsets.
type Span struct{ Start, End int }

// FStringFields returns the expression of every replacement field of the
// f-strings (and t-strings) in code, nested fields included, in source
// order: in f"{round(x, 2):>{w}}" the spans of `round(x, 2)` and `w`. A
// field's text runs to its format spec or closing brace, so a conversion
// ("!r") or a self-documenting '=' stays in it. Fields of a string that is
// not terminated are left out.
func FStringFields(code string) []Span {
	s := &scanner{src: code, toks: make([]Token, 0, len(code)/4+4)}
	s.run()
	return s.fStringFields()
}

// fStringFields are the fields the scan found, those of unterminated
// strings left out.
func (s *scanner) fStringFields() []Span {
	out := s.fields[:0]
	for _, f := range s.fields {
		if f.End >= f.Start {
			out = append(out, f)
		}
	}
	return out
}

func (s *scanner) fail(line, off int, msg string) {
	if s.err == nil {
		s.err = &SyntaxError{Line: line, Offset: off, Msg: msg}
	}
}

func (s *scanner) emit(k Kind, start, end, line int) {
	s.toks = append(s.toks, Token{Kind: k, Text: s.src[start:end], Start: start, End: end, Line: line, Depth: len(s.open)})
	if k != Comment && k != Newline {
		s.pending = true
	}
}

func (s *scanner) run() {
	src := s.src
	for s.pos < len(src) {
		c := src[s.pos]
		switch {
		case c == ' ' || c == '\t' || c == '\f':
			s.pos++
		case c == '\n' || c == '\r':
			n := nlLen(src, s.pos)
			if s.pending && len(s.open) == 0 {
				s.emit(Newline, s.pos, s.pos+n, s.line)
				s.pending = false
			}
			s.pos += n
			s.line++
		case c == '#':
			end := s.pos
			for end < len(src) && src[end] != '\n' && src[end] != '\r' {
				end++
			}
			s.emit(Comment, s.pos, end, s.line)
			s.pos = end
		case c == '\\':
			switch {
			case s.pos+1 < len(src) && (src[s.pos+1] == '\n' || src[s.pos+1] == '\r'):
				s.pos += 1 + nlLen(src, s.pos+1)
				s.line++
			case s.pos+1 == len(src):
				s.fail(s.line, s.pos, "unexpected EOF after line continuation character")
				s.pos++
			default:
				s.fail(s.line, s.pos, "unexpected character after line continuation character")
				s.emit(Op, s.pos, s.pos+1, s.line)
				s.pos++
			}
		case c == '\'' || c == '"':
			if !s.stringToken(s.pos, s.pos) {
				return
			}
		case isDigit(c) || (c == '.' && s.pos+1 < len(src) && isDigit(src[s.pos+1])):
			end := numberEnd(src, s.pos)
			s.emit(Number, s.pos, end, s.line)
			s.pos = end
		default:
			if end := identEnd(src, s.pos); end > s.pos {
				if end < len(src) && (src[end] == '\'' || src[end] == '"') && isStringPrefix(src[s.pos:end]) {
					if !s.stringToken(s.pos, end) {
						return
					}
					continue
				}
				s.emit(Name, s.pos, end, s.line)
				s.pos = end
				continue
			}
			s.operator()
		}
	}
	if s.pending && len(s.open) == 0 {
		s.emit(Newline, len(src), len(src), s.line)
	}
	if n := len(s.open); n > 0 {
		t := s.toks[s.open[n-1]]
		s.fail(t.Line, t.Start, fmt.Sprintf("'%s' was never closed", t.Text))
	}
}

// stringToken scans the literal whose prefix starts at start and quote is at
// q. It reports false (and records the error) when the string is
// unterminated, unless the scanner is lenient.
func (s *scanner) stringToken(start, q int) bool {
	line := s.line
	raw, tmpl := prefixFlags(s.src[start:q])
	end, msg := s.str(q, raw, tmpl, 0)
	if msg != "" {
		s.fail(line, start, msg)
		if !s.lenient {
			return false
		}
		end = q
		for end < len(s.src) && s.src[end] != '\n' && s.src[end] != '\r' {
			end++
		}
		s.line = line // str counted the lines it crossed
	}
	s.emit(String, start, end, line)
	s.pos = end
	return true
}

// str scans a string body from its opening quote at i and returns the offset
// after the closing quote, or a message. It counts lines it crosses.
func (s *scanner) str(i int, raw, tmpl bool, nest int) (int, string) {
	src := s.src
	q := src[i]
	triple := i+2 < len(src) && src[i+1] == q && src[i+2] == q
	j := i + 1
	if triple {
		j = i + 3
	}
	for j < len(src) {
		c := src[j]
		switch {
		case c == '\\':
			j++
			if j >= len(src) {
				break
			}
			// A backslash escapes the next character even in a raw string
			// (r"\"" is one string), but never a brace of an f-string.
			if tmpl && (src[j] == '{' || src[j] == '}') {
				continue
			}
			if tmpl && !raw && src[j] == 'N' && j+1 < len(src) && src[j+1] == '{' {
				// \N{NAME} is an escape, not a replacement field. Names are
				// letters, digits, spaces and hyphens; stopping at anything
				// else keeps the look-ahead linear.
				k := j + 2
				for k < len(src) && isUnicodeNameByte(src[k]) {
					k++
				}
				if k < len(src) && src[k] == '}' {
					j = k + 1
				} else {
					j++
				}
				continue
			}
			if src[j] == '\n' || src[j] == '\r' {
				j += nlLen(src, j)
				s.line++
			} else {
				j++
			}
		case c == q:
			if !triple {
				return j + 1, ""
			}
			if j+2 < len(src) && src[j+1] == q && src[j+2] == q {
				return j + 3, ""
			}
			j++
		case c == '\n' || c == '\r':
			if !triple {
				return 0, "unterminated string literal"
			}
			j += nlLen(src, j)
			s.line++
		case tmpl && c == '{':
			if j+1 < len(src) && src[j+1] == '{' {
				j += 2
				continue
			}
			var msg string
			if j, msg = s.field(j+1, q, triple, nest+1); msg != "" {
				return 0, msg
			}
		default:
			j++
		}
	}
	if triple {
		return 0, "unterminated triple-quoted string literal"
	}
	return 0, "unterminated string literal"
}

// field scans an f-string replacement field's expression from j (after '{')
// and returns the offset after its closing '}'. Expressions follow Python
// 3.12: nested strings may reuse the enclosing quote, newlines and comments
// are allowed. Valid pre-3.12 code never has the enclosing quote here, so
// both rules agree on it.
func (s *scanner) field(j int, q byte, triple bool, nest int) (int, string) {
	if nest > maxNest {
		return 0, "too many nested f-strings"
	}
	src := s.src
	depth := 0
	at := len(s.fields)
	s.fields = append(s.fields, Span{Start: j, End: -1})
	for j < len(src) {
		c := src[j]
		switch {
		case c == '\'' || c == '"':
			end, msg := s.str(j, false, false, nest)
			if msg != "" {
				return 0, msg
			}
			j = end
		case c == '#':
			for j < len(src) && src[j] != '\n' && src[j] != '\r' {
				j++
			}
		case c == '\n' || c == '\r':
			j += nlLen(src, j)
			s.line++
		case c == '\\':
			j++
			if j < len(src) && (src[j] == '\n' || src[j] == '\r') {
				j += nlLen(src, j)
				s.line++
			}
		case c == '(' || c == '[' || c == '{':
			depth++
			j++
		case c == ')' || c == ']':
			if depth > 0 {
				depth--
			}
			j++
		case c == '}':
			if depth == 0 {
				s.fields[at].End = j
				return j + 1, ""
			}
			depth--
			j++
		case c == ':' && depth == 0:
			// Lambdas and walrus must be parenthesized here, so a top-level
			// ':' always starts the format spec.
			s.fields[at].End = j
			return s.spec(j+1, q, triple, nest)
		default:
			end := identEnd(src, j)
			if end == j {
				j++
				continue
			}
			if end < len(src) && (src[end] == '\'' || src[end] == '"') && isStringPrefix(src[j:end]) {
				raw, tmpl := prefixFlags(src[j:end])
				var msg string
				if j, msg = s.str(end, raw, tmpl, nest); msg != "" {
					return 0, msg
				}
				continue
			}
			j = end
		}
	}
	return 0, "unterminated string literal"
}

// spec scans a format spec from j up to and including the '}' that closes
// its field; the spec is literal text with nested fields.
func (s *scanner) spec(j int, q byte, triple bool, nest int) (int, string) {
	src := s.src
	for j < len(src) {
		c := src[j]
		switch {
		case c == '}':
			return j + 1, ""
		case c == '{':
			var msg string
			if j, msg = s.field(j+1, q, triple, nest+1); msg != "" {
				return 0, msg
			}
		case c == '\n' || c == '\r':
			if !triple {
				return 0, "unterminated string literal"
			}
			j += nlLen(src, j)
			s.line++
		default:
			j++
		}
	}
	return 0, "unterminated string literal"
}

// opLen returns the length of the operator or delimiter at the start of s
// (longest match), or 0 if s does not start with one.
func opLen(s string) int {
	at := func(i int) byte {
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	switch c := s[0]; c {
	case '*', '/', '<', '>': // ** // << >> and their '=' forms, <= >=
		if at(1) == c {
			if at(2) == '=' {
				return 3
			}
			return 2
		}
		if at(1) == '=' {
			return 2
		}
		return 1
	case '.':
		if at(1) == '.' && at(2) == '.' {
			return 3
		}
		return 1
	case '-':
		if at(1) == '=' || at(1) == '>' {
			return 2
		}
		return 1
	case ':', '+', '%', '&', '|', '^', '@', '=', '!':
		if at(1) == '=' {
			return 2
		}
		return 1
	case '~', '(', ')', '[', ']', '{', '}', ',', ';':
		return 1
	}
	return 0
}

// operator scans an operator or delimiter at s.pos, tracking brackets.
func (s *scanner) operator() {
	src, p := s.src, s.pos
	n := opLen(src[p:])
	if n == 0 {
		_, size := utf8.DecodeRuneInString(src[p:])
		s.fail(s.line, p, fmt.Sprintf("invalid character %q", src[p:p+size]))
		s.emit(Op, p, p+size, s.line)
		s.pos += size
		return
	}
	switch c := src[p]; {
	case n == 1 && (c == '(' || c == '[' || c == '{'):
		s.emit(Op, p, p+1, s.line)
		s.open = append(s.open, len(s.toks)-1)
	case n == 1 && (c == ')' || c == ']' || c == '}'):
		s.emit(Op, p, p+1, s.line)
		if len(s.open) == 0 {
			s.fail(s.line, p, fmt.Sprintf("unmatched '%c'", c))
			break
		}
		opener := s.toks[s.open[len(s.open)-1]].Text[0]
		if closerOf(opener) != c {
			s.fail(s.line, p, fmt.Sprintf("closing parenthesis '%c' does not match opening parenthesis '%c'", c, opener))
		}
		s.open = s.open[:len(s.open)-1]
	default:
		s.emit(Op, p, p+n, s.line)
	}
	s.pos += n
}

func closerOf(c byte) byte {
	switch c {
	case '(':
		return ')'
	case '[':
		return ']'
	}
	return '}'
}

// nlLen is the length of the line break at i: 2 for "\r\n", else 1.
func nlLen(src string, i int) int {
	if src[i] == '\r' && i+1 < len(src) && src[i+1] == '\n' {
		return 2
	}
	return 1
}

func isUnicodeNameByte(c byte) bool {
	return c == ' ' || c == '-' || isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHexDigit(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func digitsEnd(src string, j int) int {
	for j < len(src) && (isDigit(src[j]) || src[j] == '_') {
		j++
	}
	return j
}

// numberEnd returns the end of the number at i. It is lenient: malformed
// literals (0x without digits) still end somewhere and Python reports them.
func numberEnd(src string, i int) int {
	j := i
	if src[j] == '0' && j+1 < len(src) && strings.IndexByte("xXoObB", src[j+1]) >= 0 {
		j += 2
		for j < len(src) && (isHexDigit(src[j]) || src[j] == '_') {
			j++
		}
		return j
	}
	j = digitsEnd(src, j)
	if j < len(src) && src[j] == '.' {
		j = digitsEnd(src, j+1)
	}
	if j < len(src) && (src[j] == 'e' || src[j] == 'E') {
		k := j + 1
		if k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		if k < len(src) && isDigit(src[k]) {
			j = digitsEnd(src, k)
		}
	}
	if j < len(src) && (src[j] == 'j' || src[j] == 'J') {
		j++
	}
	return j
}

// identEnd returns the end of the identifier starting at i, or i if none does.
func identEnd(src string, i int) int {
	j := i
	for j < len(src) {
		c := src[j]
		if c < utf8.RuneSelf {
			if c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (j > i && isDigit(c)) {
				j++
				continue
			}
			break
		}
		r, size := utf8.DecodeRuneInString(src[j:])
		if r == utf8.RuneError || !(isIDStart(r) || (j > i && isIDContinue(r))) {
			break
		}
		j += size
	}
	return j
}

// isIDStart and isIDContinue approximate Unicode XID_Start/XID_Continue.
func isIDStart(r rune) bool {
	return unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Other_ID_Start, r)
}

func isIDContinue(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Mc, unicode.Nd, unicode.Pc) || unicode.Is(unicode.Other_ID_Continue, r)
}

// isStringPrefix reports whether p is a string prefix: r, u, b, f, t and the
// two-letter raw combinations, in any case.
func isStringPrefix(p string) bool {
	switch strings.ToLower(p) {
	case "r", "u", "b", "f", "t", "br", "rb", "fr", "rf", "tr", "rt":
		return true
	}
	return false
}

// prefixFlags reports whether prefix p makes a raw string and a templated
// (f- or t-) string.
func prefixFlags(p string) (raw, tmpl bool) {
	p = strings.ToLower(p)
	return strings.ContainsRune(p, 'r'), strings.ContainsAny(p, "ft")
}
