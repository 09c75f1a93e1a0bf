package mcp

import (
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
)

func TestRunText(t *testing.T) {
	r := &contract.RunPythonResult{Status: contract.StatusError, Stdout: "a\nb", Stderr: "warn\n", Backend: "container", Runtime: "runsc", DurationMs: 12.34,
		Error: &contract.ToolError{EName: "KeyError", EValue: "'k'", Traceback: []contract.Frame{{Line: 2, Name: "<module>", Text: "d['k']"}, {Name: "get", Text: "cell 3:1: x"}}}}
	want := "a\nb\n[stderr]\nwarn\nTraceback (most recent call last):\n  line 2, in <module>\n    d['k']\n  in get: cell 3:1: x\nKeyError: 'k'\n[error · container/runsc · 12.3 ms]"
	if got := runText(r); got != want {
		t.Fatalf("%q", got)
	}
	r = &contract.RunPythonResult{Status: contract.StatusOK, Result: "42", ExecutionCount: 3, Backend: "monty", Runtime: "monty"}
	if got := runText(r); got != "Out[3]: 42\n[ok · monty · 0.0 ms]" {
		t.Fatalf("%q", got)
	}
	// A value on lines of its own starts on a new line, as in IPython's terminal.
	r.Result = "[1,\n 2]"
	if got := runText(r); got != "Out[3]: \n[1,\n 2]\n[ok · monty · 0.0 ms]" {
		t.Fatalf("%q", got)
	}
}

func TestClipKeepsHeadAndTail(t *testing.T) {
	s := strings.Repeat("é", 5000) // two bytes each: cuts must not split one
	got := clip(s)
	head, tail, ok := strings.Cut(got, "\n[… ")
	if !ok || !strings.HasPrefix(s, head) || !strings.Contains(tail, "bytes cut") || !strings.HasSuffix(s, tail[strings.Index(tail, "\n")+1:]) {
		t.Fatalf("%d %q", len(got), got[:80])
	}
	if short := "fine"; clip(short) != short {
		t.Fatal("short text is kept")
	}
}

func TestRunTextDisplays(t *testing.T) {
	r := &contract.RunPythonResult{Status: contract.StatusOK, Backend: "container", Runtime: "runc", Displays: []contract.Display{
		{Data: map[string]string{"text/plain": "1"}},
		{Data: map[string]string{"text/plain": "<IPython.core.display.HTML object>", "text/html": "<b>x</b>", "image/png": "AA=="}},
	}}
	want := "1\n<IPython.core.display.HTML object>\n[display: image/png, text/html]\n[ok · container/runc · 0.0 ms]"
	if got := runText(r); got != want {
		t.Fatalf("%q", got)
	}
}

// A kernel's payload (%load, %edit) is no output: the text leaves it out,
// the structured result keeps it.
func TestRunTextLeavesPayloadsOut(t *testing.T) {
	r := &contract.RunPythonResult{Status: contract.StatusOK, Backend: "container", Runtime: "runc", Displays: []contract.Display{
		{Data: map[string]string{"text/plain": "# %load f.py\nx = 1"}, Metadata: []byte(`{"payload":{"source":"set_next_input","replace":true}}`)},
		{Data: map[string]string{"text/plain": "/w/f.py"}, Metadata: []byte(`{"payload":{"source":"edit_magic","filename":"/w/f.py","line_number":null}}`)},
		{Data: map[string]string{"text/plain": "1"}},
	}}
	if got := runText(r); got != "1\n[ok · container/runc · 0.0 ms]" {
		t.Fatalf("%q", got)
	}
}
