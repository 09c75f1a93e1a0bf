package httpapi

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/notebook"
)

// programFile is the name a program's own frames carry in a traceback.
const programFile = "<snippet>"

// outsideFrame is how a frame outside the program comes from a fork
// server: "path:line: text".
var outsideFrame = regexp.MustCompile(`^(.+):(\d+): ?(.*)$`)

// traceback is what CPython prints for an uncaught exception of a program
// (notebook.Traceback: the chain, the frames, the message and notes). A
// SyntaxError is printed as CPython prints one raised by the parser:
// where, without a "Traceback" header.
func traceback(e *contract.ExecutionError) string {
	if (e.EName == "SyntaxError" || e.EName == "IndentationError" || e.EName == "TabError") && e.Cause == nil && e.Context == nil {
		var b strings.Builder
		for _, f := range e.Traceback {
			if f.Line > 0 {
				fmt.Fprintf(&b, "  File \"%s\", line %d\n", programFile, f.Line)
				if t := strings.TrimSpace(f.Text); t != "" {
					b.WriteString("    " + t + "\n")
				}
			}
		}
		return b.String() + notebook.ExceptionOnly(e)
	}
	return notebook.Traceback(e, programFrame)
}

// programFrame is one frame of a program's traceback, as CPython prints
// it: the program's own frames in programFile.
func programFrame(f contract.Frame) string {
	file, line, text := programFile, f.Line, f.Text
	switch {
	case f.Line > 0:
	case f.File != "":
		file, line = f.File, f.FileLine
	default:
		m := outsideFrame.FindStringSubmatch(f.Text)
		if m == nil {
			return fmt.Sprintf("  In %s: %s\n", f.Name, f.Text)
		}
		file, text = m[1], m[3]
		fmt.Sscan(m[2], &line)
	}
	s := fmt.Sprintf("  File \"%s\", line %d, in %s\n", file, line, f.Name)
	if t := strings.TrimSpace(text); t != "" {
		s += "    " + t + "\n"
	}
	return s
}

// tracebackLines is traceback's lines, as a Jupyter error's traceback
// lists them.
func tracebackLines(e *contract.ExecutionError) []string {
	return strings.Split(strings.TrimSuffix(traceback(e), "\n"), "\n")
}
