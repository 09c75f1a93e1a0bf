package mcp

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/notebook"
)

// What the text content keeps of long output: a model reads the start and
// the end; the structured result has all of it (up to the output limit).
const (
	textHead = 3000
	textTail = 1500
)

// runText renders a run the way a notebook shows it, short: the output,
// "Out[n]: value" or the traceback, and a status line.
func runText(r *contract.RunPythonResult) string {
	var b strings.Builder
	if r.Stdout != "" {
		b.WriteString(clip(r.Stdout))
		if !strings.HasSuffix(r.Stdout, "\n") {
			b.WriteByte('\n')
		}
	}
	if r.Stderr != "" {
		b.WriteString("[stderr]\n")
		b.WriteString(clip(r.Stderr))
		if !strings.HasSuffix(r.Stderr, "\n") {
			b.WriteByte('\n')
		}
	}
	for _, d := range r.Displays {
		if !d.IsPayload() { // a kernel's payload is no output; the structured result keeps it
			b.WriteString(DisplayText(d))
		}
	}
	if r.Result != "" {
		text := clip(r.Result)
		if strings.Contains(text, "\n") {
			text = "\n" + text // as IPython's terminal: a pretty-printed value lines up at the left
		}
		fmt.Fprintf(&b, "Out[%d]: %s\n", r.ExecutionCount, text)
	}
	if e := r.Error; e != nil {
		if e.Formatted != "" {
			b.WriteString(clip(e.Formatted))
		} else {
			x := &contract.ExecutionError{EName: e.EName, EValue: e.EValue, Notes: e.Notes}
			for _, f := range e.Traceback {
				f.Line-- // back to the record's lines: 0-based, -1 outside the code
				x.Traceback = append(x.Traceback, f)
			}
			b.WriteString(clip(notebook.Traceback(x, toolFrame)))
		}
	}
	if len(r.FilesChanged) > 0 {
		b.WriteString("[files:")
		for i, f := range r.FilesChanged {
			if i == 20 {
				fmt.Fprintf(&b, " … %d more", len(r.FilesChanged)-i)
				break
			}
			fmt.Fprintf(&b, " %s %s", f.State, f.Path)
			if i < len(r.FilesChanged)-1 {
				b.WriteByte(',')
			}
		}
		b.WriteString("]\n")
	}
	where := r.Backend
	if r.Runtime != "" && r.Runtime != r.Backend {
		where += "/" + r.Runtime
	}
	fmt.Fprintf(&b, "[%s · %s · %.1f ms]", r.Status, where, r.DurationMs)
	return b.String()
}

// clip cuts s to its head and tail, marking what was left out.
func clip(s string) string {
	if len(s) <= textHead+textTail+200 {
		return s
	}
	head, tail := s[:textHead], s[len(s)-textTail:]
	for len(head) > 0 && !utf8.ValidString(head) {
		head = head[:len(head)-1]
	}
	for len(tail) > 0 && !utf8.ValidString(tail) {
		tail = tail[1:]
	}
	cut := len(s) - len(head) - len(tail)
	return fmt.Sprintf("%s\n[… %d bytes cut; the structured result has them …]\n%s", head, cut, tail)
}

// DisplayText is a display output as text: its text/plain form, and the
// names of its other MIME types.
func DisplayText(d contract.Display) string {
	var b strings.Builder
	if t := d.Data["text/plain"]; t != "" {
		b.WriteString(clip(t))
		if !strings.HasSuffix(t, "\n") {
			b.WriteByte('\n')
		}
	}
	if others := notebook.OtherMIME(d.Data); len(others) > 0 {
		fmt.Fprintf(&b, "[display: %s]\n", strings.Join(others, ", "))
	}
	return b.String()
}

// toolFrame is one frame of a record (0-based lines, -1 outside the code)
// as the text content shows it: 1-based lines of the code that ran.
func toolFrame(f contract.Frame) string {
	switch {
	case f.Line >= 0:
		return fmt.Sprintf("  line %d, in %s\n    %s\n", f.Line+1, f.Name, f.Text)
	case f.Text != "":
		return fmt.Sprintf("  in %s: %s\n", f.Name, f.Text)
	}
	return ""
}
