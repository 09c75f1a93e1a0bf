package pysrc

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Pretty lays out text as IPython's pretty printer (IPython.lib.pretty)
// does: texts and breakables wait until a line is full, then the outermost
// groups break first, each breakable of a broken group becoming a new line
// at the indentation it was made at. The order in which groups break is
// IPython's, quirks included, so the text is IPython's to the character.
// Widths count code points, as Python's len.
type Pretty struct {
	maxWidth    int
	out         strings.Builder
	outWidth    int // the column the output is at
	bufWidth    int
	indentation int
	buffer      []*ppPiece
	groupStack  []*ppGroup
	groupQueue  [][]*ppGroup // by depth, in the order opened
}

type ppGroup struct {
	depth      int
	breakables []*ppPiece
	wantBreak  bool
}

// ppPiece is a run of text, or a breakable when group is set.
type ppPiece struct {
	text        strings.Builder
	sep         string
	width       int
	indentation int
	group       *ppGroup
}

// NewPretty returns a printer for lines of maxWidth (IPython's is 79).
func NewPretty(maxWidth int) *Pretty {
	root := &ppGroup{}
	return &Pretty{maxWidth: maxWidth, groupStack: []*ppGroup{root}, groupQueue: [][]*ppGroup{{root}}}
}

// Text adds text that never breaks.
func (p *Pretty) Text(s string) {
	w := utf8.RuneCountInString(s)
	if len(p.buffer) == 0 {
		p.out.WriteString(s)
		p.outWidth += w
		return
	}
	last := p.buffer[len(p.buffer)-1]
	if last.group != nil {
		last = &ppPiece{}
		p.buffer = append(p.buffer, last)
	}
	last.text.WriteString(s)
	last.width += w
	p.bufWidth += w
	p.breakOuterGroups()
}

// Breakable adds sep, or a new line if its group breaks.
func (p *Pretty) Breakable(sep string) {
	g := p.groupStack[len(p.groupStack)-1]
	if g.wantBreak {
		p.newline()
		return
	}
	b := &ppPiece{sep: sep, width: utf8.RuneCountInString(sep), indentation: p.indentation, group: g}
	g.breakables = append(g.breakables, b)
	p.buffer = append(p.buffer, b)
	p.bufWidth += b.width
	p.breakOuterGroups()
}

// Break starts a new line now (IPython's break_).
func (p *Pretty) Break() {
	if g := p.deq(); g != nil {
		p.breakOne(g)
	}
	p.newline()
}

// BeginGroup writes open and starts a group whose new lines are indented
// by indent more.
func (p *Pretty) BeginGroup(indent int, open string) {
	if open != "" {
		p.Text(open)
	}
	g := &ppGroup{depth: p.groupStack[len(p.groupStack)-1].depth + 1}
	p.groupStack = append(p.groupStack, g)
	for g.depth >= len(p.groupQueue) {
		p.groupQueue = append(p.groupQueue, nil)
	}
	p.groupQueue[g.depth] = append(p.groupQueue[g.depth], g)
	p.indentation += indent
}

// EndGroup ends the group and writes close.
func (p *Pretty) EndGroup(dedent int, close string) {
	p.indentation -= dedent
	g := p.groupStack[len(p.groupStack)-1]
	if len(p.groupStack) > 1 {
		p.groupStack = p.groupStack[:len(p.groupStack)-1]
	}
	if len(g.breakables) == 0 {
		p.remove(g)
	}
	if close != "" {
		p.Text(close)
	}
}

// Indent changes the indentation of the new lines to come.
func (p *Pretty) Indent(n int) { p.indentation += n }

// Repr adds an object shown by its repr, as IPython shows one (in a group
// of its own, each line of the repr on a line of its own).
func (p *Pretty) Repr(repr string) {
	p.BeginGroup(0, "")
	for i, line := range SplitLines(repr) {
		if i > 0 {
			p.Break()
		}
		p.Text(line)
	}
	p.EndGroup(0, "")
}

// String flushes what waits and returns the text.
func (p *Pretty) String() string {
	p.flush()
	return p.out.String()
}

func (p *Pretty) newline() {
	p.flush()
	p.out.WriteString("\n" + strings.Repeat(" ", max(p.indentation, 0)))
	p.outWidth, p.bufWidth = p.indentation, 0
}

func (p *Pretty) flush() {
	for _, x := range p.buffer {
		p.outWidth += p.put(x, p.outWidth) // sic: IPython adds the new column to the old
	}
	p.buffer = p.buffer[:0]
	p.bufWidth = 0
}

// put writes a piece at column col and returns the column after it.
func (p *Pretty) put(x *ppPiece, col int) int {
	g := x.group
	if g == nil {
		p.out.WriteString(x.text.String())
		return col + x.width
	}
	g.breakables = g.breakables[1:]
	if g.wantBreak {
		p.out.WriteString("\n" + strings.Repeat(" ", max(x.indentation, 0)))
		return x.indentation
	}
	if len(g.breakables) == 0 {
		p.remove(g)
	}
	p.out.WriteString(x.sep)
	return col + x.width
}

func (p *Pretty) breakOuterGroups() {
	for p.maxWidth < p.outWidth+p.bufWidth {
		g := p.deq()
		if g == nil {
			return
		}
		p.breakOne(g)
	}
}

func (p *Pretty) breakOne(g *ppGroup) {
	for len(g.breakables) > 0 && len(p.buffer) > 0 {
		p.take()
	}
	for len(p.buffer) > 0 && p.buffer[0].group == nil {
		p.take()
	}
}

func (p *Pretty) take() {
	x := p.buffer[0]
	p.buffer = p.buffer[1:]
	p.outWidth = p.put(x, p.outWidth)
	p.bufWidth -= x.width
}

// deq picks the next group to break: at the shallowest depth that has one
// with breakables. As IPython, it looks for it from the newest and deletes
// the entry at the same distance from the oldest.
func (p *Pretty) deq() *ppGroup {
	for d, stack := range p.groupQueue {
		for i := len(stack) - 1; i >= 0; i-- {
			if g := stack[i]; len(g.breakables) > 0 {
				p.groupQueue[d] = slices.Delete(stack, len(stack)-1-i, len(stack)-i)
				g.wantBreak = true
				return g
			}
		}
		for _, g := range stack {
			g.wantBreak = true
		}
		p.groupQueue[d] = stack[:0]
	}
	return nil
}

func (p *Pretty) remove(g *ppGroup) {
	if g.depth >= len(p.groupQueue) {
		return
	}
	q := p.groupQueue[g.depth]
	if i := slices.Index(q, g); i >= 0 {
		p.groupQueue[g.depth] = slices.Delete(q, i, i+1)
	}
}

// SplitLines splits s at line boundaries as Python's str.splitlines does,
// without the line ends.
func SplitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			out = append(out, s[start:i])
			if r == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				n++
			}
			start = i + n
		}
		i += n
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}
