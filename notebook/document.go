package notebook

import (
	"fmt"
	"strings"
	"sync"

	"github.com/backyard-ls/backyard-ls/contract"

	"github.com/backyard-ls/backyard-ls/cells"
	"github.com/backyard-ls/backyard-ls/pypkg"
)

// Document is one open document: its text at the latest version, and what
// the notebook knows about it (the kernel session, the results of past
// runs). Text is replaced, never mutated, so a snapshot stays valid.
type Document struct {
	uri  string
	nb   *Notebook
	sess *session

	mu      sync.Mutex // guards the fields below
	version int32
	text    string
	snap    *snapshot // cached snapshot of (version, text); nil when stale
	closed  bool
	results results // last run of each cell and selection
	diagKey string  // identifies the diagnostics last published, "" for none

	pubMu sync.Mutex // orders diagnostics publications
}

// snapshot is an immutable view of one version of a document. Cells and the
// line index are computed on first use.
type snapshot struct {
	uri     string
	version int32
	text    string

	once  sync.Once
	cells []cells.Cell

	linesOnce sync.Once
	lines     []int // byte offset of the start of each line

	reqOnce sync.Once
	reqs    []string // PEP 723 script dependencies
}

// Requirements are the dependencies the document's PEP 723 `# /// script`
// block declares; nil when it has none or the block is malformed.
func (s *snapshot) Requirements() []string {
	s.reqOnce.Do(func() {
		if !strings.Contains(s.text, "# /// script") {
			return
		}
		if sc, err := pypkg.ParseScript(s.text); err == nil && sc != nil {
			s.reqs = sc.Dependencies
		}
	})
	return s.reqs
}

// snapshot returns the current version's snapshot.
func (d *Document) snapshot() *snapshot {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.snapshotLocked()
}

func (d *Document) snapshotLocked() *snapshot {
	if d.snap == nil {
		d.snap = &snapshot{uri: d.uri, version: d.version, text: d.text}
	}
	return d.snap
}

// Cells returns the document's cells (markdown ones too), in order.
func (s *snapshot) Cells() []cells.Cell {
	s.once.Do(func() { s.cells = cells.Parse(s.text) })
	return s.cells
}

func (s *snapshot) lineStarts() []int {
	s.linesOnce.Do(func() {
		starts := make([]int, 1, strings.Count(s.text, "\n")+1)
		for i := 0; ; {
			j := strings.IndexByte(s.text[i:], '\n')
			if j < 0 {
				break
			}
			i += j + 1
			starts = append(starts, i)
		}
		s.lines = starts
	})
	return s.lines
}

// LineCount is the number of lines as LSP counts them ("a\n" has two).
func (s *snapshot) LineCount() int { return len(s.lineStarts()) }

// Line returns line i without its line break ("\n" or "\r\n").
func (s *snapshot) Line(i int) string {
	starts := s.lineStarts()
	if i < 0 || i >= len(starts) {
		return ""
	}
	if i+1 == len(starts) {
		return s.text[starts[i]:] // a lone "\r" at the very end is content
	}
	return strings.TrimRight(s.text[starts[i]:starts[i+1]-1], "\r")
}

// Offset converts an LSP position (UTF-16 character) to a byte offset in
// the text. Positions past the end of a line clamp to its end (before the
// line break), lines past the end clamp to the end of the text, as LSP asks.
func (s *snapshot) Offset(p contract.Position) int {
	return offsetOf(s.text, s.lineStarts(), p)
}

func offsetOf(text string, starts []int, p contract.Position) int {
	line := int(p.Line)
	if line >= len(starts) {
		return len(text)
	}
	start := starts[line]
	end := len(text)
	if line+1 < len(starts) {
		end = starts[line+1] - 1 // the "\n"
		for end > start && text[end-1] == '\r' {
			end-- // "\r"s before "\n" belong to the line break, as in package cells
		}
	}
	return start + utf16Offset(text[start:end], int(p.Character))
}

// utf16Offset returns the byte offset in line of the UTF-16 code unit
// offset char, clamped to the line; a position inside a surrogate pair
// rounds down to the character's start.
func utf16Offset(line string, char int) int {
	units := 0
	for i, r := range line {
		if units >= char {
			return i
		}
		n := 1
		if r >= 0x10000 {
			n = 2
		}
		if units+n > char {
			return i
		}
		units += n
	}
	return len(line)
}

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// Text returns the text in r.
func (s *snapshot) Text(r contract.Range) string {
	a, b := s.Offset(r.Start), s.Offset(r.End)
	if b < a {
		return ""
	}
	return s.text[a:b]
}

// Change is one edit of a document's text, as LSP sends them: Range nil
// replaces the whole text; positions are UTF-16.
type Change struct {
	Range *contract.Range
	Text  string
}

// applyChanges applies changes in order and returns the new text.
func applyChanges(text string, changes []Change) (string, error) {
	for _, c := range changes {
		if c.Range == nil {
			text = c.Text
			continue
		}
		s := &snapshot{text: text}
		a, b := s.Offset(c.Range.Start), s.Offset(c.Range.End)
		if b < a {
			return "", fmt.Errorf("change range ends before it starts: %v", *c.Range)
		}
		text = text[:a] + c.Text + text[b:]
	}
	return text, nil
}

// lineRange is the range of line i from its first non-blank character to
// its end, the span a diagnostic underlines.
func (s *snapshot) lineRange(i int) contract.Range {
	l := s.Line(i)
	indent := len(l) - len(strings.TrimLeft(l, " \t"))
	if indent == len(l) {
		indent = 0
	}
	return contract.Range{
		Start: contract.Position{Line: uint32(i), Character: uint32(utf16Len(l[:indent]))},
		End:   contract.Position{Line: uint32(i), Character: uint32(utf16Len(l))},
	}
}
