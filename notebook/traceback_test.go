package notebook

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
)

// testdata/tracebacks.json holds errors and the traceback Traceback prints
// for each, every frame written as canonicalFrame writes it. The editors'
// renderers (editors/vscode/src/render.ts, editors/neovim/lua/backyard/
// output.lua) are tested against it with the same frame lines, so all
// three lay out chains, notes and groups alike.
const tracebacksFile = "testdata/tracebacks.json"

var updateTracebacks = flag.Bool("update-tracebacks", false, "rewrite "+tracebacksFile+" from Traceback")

// canonicalFrame is how the shared vectors write a frame.
func canonicalFrame(f contract.Frame) string {
	return fmt.Sprintf("  line %d, in %s\n    %s\n", f.Line+1, f.Name, f.Text)
}

type tracebackVector struct {
	Name  string                   `json:"name"`
	Error *contract.ExecutionError `json:"error"`
	Text  string                   `json:"text"`
}

func frame(line int, name, text string) contract.Frame {
	return contract.Frame{Line: line, Name: name, Text: text}
}

func group(msg string, tb []contract.Frame, members ...contract.ExecutionError) contract.ExecutionError {
	return contract.ExecutionError{EName: "ExceptionGroup", EValue: fmt.Sprintf("%s (%d sub-exceptions)", msg, len(members)), Traceback: tb, Exceptions: members}
}

func tracebackCases() []tracebackVector {
	zero := contract.ExecutionError{EName: "ZeroDivisionError", EValue: "division by zero", Traceback: []contract.Frame{frame(3, "f", "1/0")}}
	nested := group("outer", []contract.Frame{frame(9, "<module>", "raise ExceptionGroup('outer', [eg, KeyError('k')])")},
		group("inner", nil, contract.ExecutionError{EName: "ValueError", EValue: "1"}, contract.ExecutionError{EName: "TypeError", EValue: "t", Notes: []string{"a note"}}),
		contract.ExecutionError{EName: "KeyError", EValue: "'k'"})
	wide := group("wide", []contract.Frame{frame(0, "<module>", "raise eg")}, contract.ExecutionError{EName: "ValueError", EValue: "0"})
	wide.EValue, wide.MoreExceptions = "wide (17 sub-exceptions)", 16
	return []tracebackVector{
		{Name: "plain", Error: &contract.ExecutionError{EName: "NameError", EValue: "name 'x' is not defined", Traceback: []contract.Frame{frame(0, "<module>", "x")}}},
		{Name: "no frames, no message", Error: &contract.ExecutionError{EName: "KeyboardInterrupt"}},
		{Name: "notes, one with two lines", Error: &contract.ExecutionError{EName: "ValueError", EValue: "bad", Traceback: []contract.Frame{frame(1, "<module>", "raise e")}, Notes: []string{"first", "second\nline"}}},
		{Name: "cause", Error: &contract.ExecutionError{EName: "ValueError", EValue: "bad", Traceback: []contract.Frame{frame(6, "<module>", "f()"), frame(5, "f", "raise ValueError('bad') from e")}, Cause: &zero}},
		{Name: "context, twice", Error: &contract.ExecutionError{EName: "RuntimeError", EValue: "third", Traceback: []contract.Frame{frame(8, "<module>", "raise RuntimeError('third')")},
			Context: &contract.ExecutionError{EName: "KeyError", EValue: "'x'", Traceback: []contract.Frame{frame(6, "<module>", "{}['x']")}, Context: &zero}}},
		{Name: "a message over lines", Error: &contract.ExecutionError{EName: "AssertionError", EValue: "one\ntwo", Traceback: []contract.Frame{frame(0, "<module>", "assert False, 'one\\ntwo'")}}},
		{Name: "nested groups with notes", Error: &nested},
		{Name: "a group wider than CPython prints", Error: &wide},
		{Name: "a group raised from a cause", Error: &contract.ExecutionError{EName: "ExceptionGroup", EValue: "g (1 sub-exception)", Traceback: []contract.Frame{frame(4, "<module>", "raise ExceptionGroup('g', [e]) from e")},
			Exceptions: []contract.ExecutionError{zero}, Cause: &zero}},
		{Name: "a member with its own chain", Error: func() *contract.ExecutionError {
			g := group("g", []contract.Frame{frame(2, "<module>", "raise eg")}, contract.ExecutionError{EName: "ValueError", EValue: "v", Traceback: []contract.Frame{frame(1, "<module>", "raise ValueError('v')")}, Context: &zero})
			return &g
		}()},
	}
}

// wire gives e's tracebacks as the server sends them: a list, never null.
func wire(e *contract.ExecutionError) {
	if e == nil {
		return
	}
	if e.Traceback == nil {
		e.Traceback = []contract.Frame{}
	}
	wire(e.Cause)
	wire(e.Context)
	for i := range e.Exceptions {
		wire(&e.Exceptions[i])
	}
}

func TestTracebackVectors(t *testing.T) {
	vs := tracebackCases()
	for i := range vs {
		wire(vs[i].Error)
		vs[i].Text = Traceback(vs[i].Error, canonicalFrame)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(vs); err != nil {
		t.Fatal(err)
	}
	if *updateTracebacks {
		if err := os.WriteFile(tracebacksFile, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile(tracebacksFile)
	if err != nil || !bytes.Equal(have, b.Bytes()) {
		t.Fatalf("%s is not what Traceback prints now (go test ./notebook -run TestTracebackVectors -update-tracebacks): %v", tracebacksFile, err)
	}
}

// What CPython 3.11's traceback module prints for these, frames aside.
func TestTracebackLayoutIsCPythons(t *testing.T) {
	byName := map[string]string{}
	for _, v := range tracebackCases() {
		byName[v.Name] = Traceback(v.Error, canonicalFrame)
	}
	want := map[string]string{
		"cause": "Traceback (most recent call last):\n  line 4, in f\n    1/0\nZeroDivisionError: division by zero\n" +
			"\nThe above exception was the direct cause of the following exception:\n\n" +
			"Traceback (most recent call last):\n  line 7, in <module>\n    f()\n  line 6, in f\n    raise ValueError('bad') from e\nValueError: bad\n",
		"nested groups with notes": "  + Exception Group Traceback (most recent call last):\n" +
			"  |   line 10, in <module>\n  |     raise ExceptionGroup('outer', [eg, KeyError('k')])\n" +
			"  | ExceptionGroup: outer (2 sub-exceptions)\n" +
			"  +-+---------------- 1 ----------------\n" +
			"    | ExceptionGroup: inner (2 sub-exceptions)\n" +
			"    +-+---------------- 1 ----------------\n" +
			"      | ValueError: 1\n" +
			"      +---------------- 2 ----------------\n" +
			"      | TypeError: t\n" +
			"      | a note\n" +
			"      +------------------------------------\n" +
			"    +---------------- 2 ----------------\n" +
			"    | KeyError: 'k'\n" +
			"    +------------------------------------\n",
		"a group wider than CPython prints": "  + Exception Group Traceback (most recent call last):\n  |   line 1, in <module>\n  |     raise eg\n" +
			"  | ExceptionGroup: wide (17 sub-exceptions)\n  +-+---------------- 1 ----------------\n    | ValueError: 0\n" +
			"    +---------------- ... ----------------\n    | and 16 more exceptions\n    +------------------------------------\n",
		"notes, one with two lines": "Traceback (most recent call last):\n  line 2, in <module>\n    raise e\nValueError: bad\nfirst\nsecond\nline\n",
	}
	for name, w := range want {
		if got := byName[name]; got != w {
			t.Errorf("%s:\n%s\nwant\n%s", name, got, w)
		}
	}
	if got := strings.Count(byName["context, twice"], ContextMessage); got != 2 {
		t.Errorf("context, twice: %d separators\n%s", got, byName["context, twice"])
	}
}
