package lsp

import (
	"encoding/json"
	"reflect"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/kernel"
)

// The hand-written encoders must say what encoding/json says.
func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	tricky := "quote \" backslash \\ newline \n tab \t nul \x00 bell \x07 é 😀 \u2028 </script>"
	x := &Execution{
		ID: "e1", Range: protocol.Range{Start: protocol.Position{Line: 1, Character: 2}, End: protocol.Position{Line: 3, Character: 4}},
		ExecutionCount: 7, Status: kernel.StatusError, Stdout: tricky, Stderr: "",
		Result:  &kernel.Value{Text: "42", MIME: map[string]string{"text/plain": "42", "image/png": "iVBOR"}},
		Error:   &ExecutionError{EName: "ZeroDivisionError", EValue: tricky, Traceback: []Frame{{Line: 2, Name: "<module>", Text: "1/0"}, {Line: -1, Name: "f", Text: ""}}},
		Backend: "monty", Runtime: "monty", DurationMs: 0.125,
	}
	bare := &Execution{ID: "e2", Status: kernel.StatusOK, Backend: "monty", Runtime: "monty"}
	for _, v := range []appendJSONer{
		x, bare,
		&runResult{Executions: []*Execution{x, bare}},
		&runResult{Executions: []*Execution{}},
		&executionStateParams{URI: "file:///a b.py", ExecutionID: "e1", State: "done", Execution: x},
		&executionStateParams{URI: "file:///a.py", ExecutionID: "e1", State: "queued"},
		&kernelStateParams{URI: "file:///a.py", Backend: "monty", Runtime: "monty", State: kernel.StateIdle},
		&outputParams{URI: "file:///a.py", ExecutionID: "e1", Stream: kernel.Stderr, Text: tricky},
	} {
		got := v.appendJSON(nil)
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("%T: invalid JSON %s: %v", v, got, err)
		}
		_ = json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%T:\n got %s\nwant %s", v, got, want)
		}
	}
	if got := string(appendString(nil, "a\xffb")); got != `"a\ufffdb"` {
		t.Errorf("invalid UTF-8: %s", got)
	}
}

func TestDecodeCommand(t *testing.T) {
	c, err := decodeCommand([]byte(`{"command":"backyard.runCell","arguments":[{"uri":"file:///a.py","line":3}],"workDoneToken":"t1"}`))
	if err != nil || c.command != "backyard.runCell" || len(c.arguments) != 1 || c.token != protocol.String("t1") {
		t.Fatalf("%+v %v", c, err)
	}
	a, err := parseArgs(c.command, "", c.arguments)
	if err != nil {
		t.Fatal(err)
	}
	if uri, err := a.str("uri"); err != nil || uri != "file:///a.py" {
		t.Errorf("uri %q %v", uri, err)
	}
	if line, err := a.line(); err != nil || line != 3 {
		t.Errorf("line %d %v", line, err)
	}
	if c, err := decodeCommand([]byte(`{"command":"x","workDoneToken":5}`)); err != nil || c.token != protocol.Integer(5) || c.arguments != nil {
		t.Errorf("%+v %v", c, err)
	}
	for _, bad := range []string{`[]`, `{"command":1}`, `{"command":"x","arguments":{}}`, `{"command":`} {
		if _, err := decodeCommand([]byte(bad)); err == nil {
			t.Errorf("%s was accepted", bad)
		}
	}
}
