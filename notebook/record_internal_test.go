package notebook

import (
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// A record puts spans in document terms: code point columns of the code
// become UTF-16 columns of the document's lines, past what a dedent took
// and, on a selection's first line, what precedes it; chains and members
// are placed too.
func TestRecordPlacesErrorsInTheDocument(t *testing.T) {
	code := "x = 'é😀' + f(\n    1)\ny = 1/0"
	span := contract.Frame{Line: 1, Name: "<module>", Col: 8, EndLine: 2, EndCol: 6}
	err := &contract.ExecutionError{EName: "TypeError", Traceback: []contract.Frame{span, {Line: 0, Name: "f", Text: "elsewhere"}},
		Cause:      &contract.ExecutionError{EName: "ZeroDivisionError", Traceback: []contract.Frame{{Line: 3, Col: 4, EndLine: 3, EndCol: 7}}},
		Exceptions: []contract.ExecutionError{{EName: "KeyError", Traceback: []contract.Frame{{Line: 3, Col: 0, EndLine: 3, EndCol: 1}}}}}
	x := Record("e1", contract.Range{}, Placement{Code: code, StartLine: 10, FirstCol: 2, Margin: 4}, kernel.Result{Status: kernel.StatusError, Error: err})
	f := x.Error.Traceback[0]
	// Line 1: 'é' is one unit, '😀' two; the selection starts 2 units in
	// and the dedent took 4.
	if f.Line != 10 || f.Col != 2+4+9 || f.EndLine != 11 || f.EndCol != 4+6 {
		t.Errorf("span %+v", f)
	}
	if o := x.Error.Traceback[1]; o.Line != -1 || o.EndCol != 0 || o.Text != "elsewhere" {
		t.Errorf("a frame outside the code: %+v", o)
	}
	if c := x.Error.Cause.Traceback[0]; c.Line != 12 || c.Col != 8 || c.EndCol != 11 || c.EndLine != 0 {
		t.Errorf("the cause's frame: %+v", c)
	}
	if m := x.Error.Exceptions[0].Traceback[0]; m.Line != 12 || m.Col != 4 || m.EndCol != 5 {
		t.Errorf("a member's frame: %+v", m)
	}
	if d := errorSpot(code, 10, x.Error.Traceback); d != (diagSpot{line: 0, col: 15, endLine: 1, endCol: 10}) {
		t.Errorf("diagnostic spot %+v", d)
	}
}

func TestDiagnosticMessagesHaveNoControlSequences(t *testing.T) {
	e := &contract.ExecutionError{EName: "RuntimeError", EValue: "\x1b[31mbad\x1b[0m \x1b]8;;http://x\x07link\x1b]8;;\x07 value", Notes: []string{"\x1b[1mnote\x1b[22m"}}
	if got := diagnosticMessage(e); got != "RuntimeError: bad link value\nnote" {
		t.Errorf("%q", got)
	}
	if got := StripANSI("plain ünïcode"); got != "plain ünïcode" {
		t.Errorf("%q", got)
	}
}
