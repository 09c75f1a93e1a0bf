package notebook

import (
	"strconv"
	"strings"

	"github.com/backyard-ls/backyard-ls/contract"
)

// What CPython's traceback module prints between chained exceptions.
const (
	CauseMessage   = "\nThe above exception was the direct cause of the following exception:\n\n"
	ContextMessage = "\nDuring handling of the above exception, another exception occurred:\n\n"
)

// maxGroupDepth is how deep CPython's traceback prints nested exception
// groups.
const maxGroupDepth = 10

// Traceback is e as CPython's traceback module prints it, and IPython,
// which prints exception groups through it: the chain first (the cause or
// context of each exception, then the line that says which), each
// exception's frames under "Traceback (most recent call last):", its
// "ENAME: message" line and its notes; an exception group's members boxed
// as CPython boxes them. frame gives one frame's lines, each ending in
// "\n" (the frames are the caller's to name: a document line, a file).
func Traceback(e *contract.ExecutionError, frame func(contract.Frame) string) string {
	p := &tbPrinter{frame: frame}
	p.format(e)
	return p.b.String()
}

type tbPrinter struct {
	b     strings.Builder
	frame func(contract.Frame) string
	depth int // how deep in exception groups
	close bool
}

func (p *tbPrinter) indent() string { return strings.Repeat(" ", 2*p.depth) }

// emit writes text's lines, inside a group's box after its margin.
func (p *tbPrinter) emit(text string, margin string) {
	prefix := p.indent()
	if p.depth > 0 {
		prefix += margin + " "
	}
	for _, l := range strings.SplitAfter(text, "\n") {
		if l != "" {
			p.b.WriteString(prefix + l)
		}
	}
}

func (p *tbPrinter) frames(e *contract.ExecutionError) string {
	var b strings.Builder
	for _, f := range e.Traceback {
		b.WriteString(p.frame(f))
	}
	return b.String()
}

func (p *tbPrinter) format(e *contract.ExecutionError) {
	type link struct {
		msg string
		e   *contract.ExecutionError
	}
	var chain []link
	for x := e; x != nil; {
		next, msg := x.Cause, CauseMessage
		if next == nil {
			next, msg = x.Context, ContextMessage
		}
		if next == nil {
			msg = ""
		}
		chain = append(chain, link{msg, x})
		x = next
	}
	for i := len(chain) - 1; i >= 0; i-- {
		if msg := chain[i].msg; msg != "" {
			p.emit(msg, "|")
		}
		x := chain[i].e
		switch {
		case len(x.Exceptions) == 0 && x.MoreExceptions == 0:
			if len(x.Traceback) > 0 {
				p.emit("Traceback (most recent call last):\n", "|")
				p.emit(p.frames(x), "|")
			}
			p.emit(ExceptionOnly(x), "|")
		case p.depth > maxGroupDepth:
			p.emit("... (max_group_depth is "+strconv.Itoa(maxGroupDepth)+")\n", "|")
		default:
			p.group(x)
		}
	}
}

// group prints an exception group and its members.
func (p *tbPrinter) group(x *contract.ExecutionError) {
	top := p.depth == 0
	if top {
		p.depth++
	}
	if len(x.Traceback) > 0 {
		margin := "|"
		if top {
			margin = "+"
		}
		p.emit("Exception Group Traceback (most recent call last):\n", margin)
		p.emit(p.frames(x), "|")
	}
	p.emit(ExceptionOnly(x), "|")
	n := len(x.Exceptions)
	shown := n
	if x.MoreExceptions > 0 {
		shown++
	}
	p.close = false
	for i := 0; i < shown; i++ {
		last := i == shown-1
		if last {
			p.close = true // a member that is a group may close the box itself
		}
		title, lead := strconv.Itoa(i+1), "  "
		if i >= n {
			title = "..."
		}
		if i == 0 {
			lead = "+-"
		}
		p.b.WriteString(p.indent() + lead + "+---------------- " + title + " ----------------\n")
		p.depth++
		if i < n {
			p.format(&x.Exceptions[i])
		} else {
			s := "s"
			if x.MoreExceptions == 1 {
				s = ""
			}
			p.emit("and "+strconv.Itoa(x.MoreExceptions)+" more exception"+s+"\n", "|")
		}
		if last && p.close {
			p.b.WriteString(p.indent() + "+------------------------------------\n")
			p.close = false
		}
		p.depth--
	}
	if top {
		p.depth = 0
	}
}

// ExceptionOnly is an exception's own lines: "ENAME: message" (the name
// alone for an empty message), then each of its notes.
func ExceptionOnly(e *contract.ExecutionError) string {
	var b strings.Builder
	b.WriteString(e.EName)
	if e.EValue != "" {
		b.WriteString(": " + e.EValue)
	}
	b.WriteByte('\n')
	for _, n := range e.Notes {
		b.WriteString(n)
		b.WriteByte('\n')
	}
	return b.String()
}
