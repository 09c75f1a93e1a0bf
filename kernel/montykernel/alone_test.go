package montykernel

import (
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
)

// On Monty alone the shims give CPython's answers (sys.exit, an exception
// made from a number, sys.stdout.write) with frames on the cell's own
// lines and text, and what Monty lacks is said, never an internal error.
func TestMontyAloneShimsAndHonestErrors(t *testing.T) {
	k, err := New(Options{Shims: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	cases := []struct {
		code, ename, evalue, stdout, value string
		line                               int
		text                               string
	}{
		{code: "import sys\nsys.exit(3)", ename: "SystemExit", evalue: "3", line: 2, text: "sys.exit(3)"},
		{code: "import sys\nsys.exit()", ename: "SystemExit", evalue: "", line: 2, text: "sys.exit()"},
		{code: "x = 1\nraise ValueError(2)", ename: "ValueError", evalue: "2", line: 2, text: "raise ValueError(2)"},
		{code: "raise TypeError('a', 3)", ename: "TypeError", evalue: "('a', 3)", line: 1, text: "raise TypeError('a', 3)"},
		{code: "import sys\nsys.stdout.write('hi\\n')", stdout: "hi\n", value: "3"},
		{code: "round(2.675, 2)", value: "2.67"},
		{code: "import math\nmath.foo = 1", ename: "NotImplementedError", evalue: "Monty does not support setting a module's attributes ('foo'): its modules are read-only", line: 2},
		{code: "raise ExceptionGroup('g', [ValueError('v')])", ename: "NotImplementedError", evalue: "Monty does not support the built-in ExceptionGroup", line: 1},
	}
	for _, c := range cases {
		r := kerneltest.Run(t, k, c.code)
		if c.ename == "" {
			if r.Status != kernel.StatusOK || r.Stdout != c.stdout || r.Value == nil || r.Value.Text != c.value {
				t.Errorf("%q: %+v %+v", c.code, r, r.Error)
			}
			continue
		}
		if r.Error == nil || r.Error.EName != c.ename || r.Error.EValue != c.evalue || strings.Contains(r.Error.EValue, "Internal error") {
			t.Errorf("%q: %+v", c.code, r.Error)
			continue
		}
		tb := r.Error.Traceback
		if len(tb) == 0 || tb[len(tb)-1].Line != c.line || c.text != "" && tb[len(tb)-1].Text != c.text {
			t.Errorf("%q: frames %+v", c.code, tb)
		}
		for _, f := range tb {
			if strings.Contains(f.Name+f.Text, "__backyard_") {
				t.Errorf("%q: a shim's frame shows: %+v", c.code, f)
			}
		}
	}
}

// Monty's spans become the record's code point columns from 0, kept only
// where the line fed is the cell's line.
func TestMontyFramesKeepTheirSpans(t *testing.T) {
	k := newMonty(t, kernel.Limits{})
	r := kerneltest.Run(t, k, "def f(a):\n    return a + 'é'\nf(1)")
	tb := r.Error.Traceback
	// f(1) is the trailing expression, rewritten to show its value: its
	// span maps back through the rewrite.
	if len(tb) != 2 || tb[0].Col != 0 || tb[0].EndCol != 4 || tb[0].EndLine != 3 || tb[1].Col != 11 || tb[1].EndCol != 18 || tb[1].EndLine != 2 {
		t.Fatalf("%+v", tb)
	}
	r = kerneltest.Run(t, k, "x = 0\ny = 'é' + str(1 / x)")
	if tb := r.Error.Traceback; len(tb) != 1 || tb[0].Line != 2 || tb[0].Col != 14 || tb[0].EndCol != 19 {
		t.Fatalf("%+v", tb)
	}
	r = kerneltest.Run(t, k, "x = 0\n'é' + str(\n  1 / x)")
	if tb := r.Error.Traceback; len(tb) != 1 || tb[0].Line != 3 || tb[0].Col != 2 || tb[0].EndCol != 7 {
		t.Fatalf("a multi-line trailing expression: %+v", tb)
	}
}
