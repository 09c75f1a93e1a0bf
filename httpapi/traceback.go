package httpapi

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/backyard-ls/backyard-ls/contract"
)

// programFile is the name a program's own frames carry in a traceback.
const programFile = "<snippet>"

// outsideFrame is how a frame outside the program comes from a fork
// server: "path:line: text".
var outsideFrame = regexp.MustCompile(`^(.+):(\d+): ?(.*)$`)

// tracebackLines are the lines CPython prints for an uncaught exception,
// outermost frame first, the last one "EName: evalue". A SyntaxError is
// printed as CPython prints one raised by the parser: where, without a
// "Traceback" header.
func tracebackLines(e *contract.ExecutionError) []string {
	var lines []string
	last := e.EName
	if e.EValue != "" {
		last += ": " + e.EValue
	}
	if e.EName == "SyntaxError" || e.EName == "IndentationError" || e.EName == "TabError" {
		for _, f := range e.Traceback {
			if f.Line > 0 {
				lines = append(lines, fmt.Sprintf(`  File "%s", line %d`, programFile, f.Line))
				if t := strings.TrimSpace(f.Text); t != "" {
					lines = append(lines, "    "+t)
				}
			}
		}
		return append(lines, last)
	}
	if len(e.Traceback) > 0 {
		lines = append(lines, "Traceback (most recent call last):")
	}
	for _, f := range e.Traceback {
		file, line, text := programFile, f.Line, f.Text
		switch {
		case f.Line > 0:
		case f.File != "":
			file, line = f.File, f.FileLine
		default:
			m := outsideFrame.FindStringSubmatch(f.Text)
			if m == nil {
				lines = append(lines, fmt.Sprintf("  in %s: %s", f.Name, f.Text))
				continue
			}
			file, text = m[1], m[3]
			fmt.Sscan(m[2], &line)
		}
		lines = append(lines, fmt.Sprintf(`  File "%s", line %d, in %s`, file, line, f.Name))
		if t := strings.TrimSpace(text); t != "" {
			lines = append(lines, "    "+t)
		}
	}
	return append(lines, last)
}

// traceback is tracebackLines as printed: one line each, ending in a
// newline.
func traceback(e *contract.ExecutionError) string {
	return strings.Join(tracebackLines(e), "\n") + "\n"
}
