package montykernel

import (
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
)

// display() of plain values gives text/plain display outputs, in order,
// and is not one of the namespace's variables.
func TestDisplayPlainValues(t *testing.T) {
	k := newMonty(t, kernel.Limits{})
	r := kerneltest.Run(t, k, "x = 1\nprint('a')\ndisplay(x, [1, (2, 'b')], display_id='d')\nprint('b')")
	if r.Status != kernel.StatusOK || r.Stdout != "a\nb\n" {
		t.Fatalf("%s %q %+v", r.Status, r.Stdout, r.Error)
	}
	if len(r.Displays) != 2 || r.Displays[0].Data["text/plain"] != "1" || r.Displays[1].Data["text/plain"] != "[1, (2, 'b')]" || r.Displays[1].DisplayID != "d" {
		t.Fatalf("displays %+v", r.Displays)
	}
	for _, v := range kerneltest.Variables(t, k) {
		if v.Name == "display" {
			t.Errorf("display is listed as a variable: %+v", v)
		}
	}
	if r := kerneltest.Run(t, k, "display"); r.Value == nil || r.Value.Text == "" {
		t.Errorf("display is not defined: %+v", r.Error)
	}
}

// A display's place on Monty: the bytes printed before it.
func TestDisplayPlaceOnMonty(t *testing.T) {
	k := newMonty(t, kernel.Limits{})
	r := kerneltest.Run(t, k, "print('a')\ndisplay(1)\nprint('bb')\ndisplay(2)")
	if len(r.Displays) != 2 || r.Displays[0].StdoutBefore != 2 || r.Displays[1].StdoutBefore != 5 || r.Displays[1].AfterResult {
		t.Fatalf("%+v %+v", r.Displays, r.Error)
	}
}

// Monty alone has no IPython shell: a cell with magics or shell lines says
// so, as IPython's UsageError, without running anything.
func TestMagicsOnMontyAlone(t *testing.T) {
	k := newMonty(t, kernel.Limits{})
	for code, what := range map[string]string{"%time x = 1": "%time", "x = 1\n!ls": "!ls", "%%bash\necho hi": "%%bash"} {
		r := kerneltest.Run(t, k, code)
		if r.Status != kernel.StatusError || r.Error == nil || r.Error.EName != "UsageError" ||
			r.Error.EValue != what+" needs IPython's shell, which Monty does not have: the auto and container backends run it (backyard.backend)" {
			t.Errorf("%q: %s %+v", code, r.Status, r.Error)
		}
	}
	if r := kerneltest.Run(t, k, "x"); r.Error == nil || r.Error.EName != "NameError" {
		t.Errorf("a magic cell ran part of its code: %+v", r)
	}
}

// A cell that is only %pwd, or only a magic IPython's shell has not, is
// answered on Monty as IPython answers it.
func TestMontyAnswersMagics(t *testing.T) {
	k := newMonty(t, kernel.Limits{})
	r := kerneltest.Run(t, k, "%pwd")
	if r.Status != kernel.StatusOK || r.Value == nil || !strings.HasPrefix(r.Value.Text, "'/") || !strings.HasSuffix(r.Value.Text, "'") || r.ExecutionCount != 1 {
		t.Fatalf("%%pwd: %s %+v %+v", r.Status, r.Value, r.Error)
	}
	if r := kerneltest.Run(t, k, "%who"); r.Stdout != "Interactive namespace is empty.\n" {
		t.Fatalf("%%who: %q %+v", r.Stdout, r.Error)
	}
	r = kerneltest.Run(t, k, "%lsmagic")
	if r.Status != kernel.StatusOK || !strings.Contains(r.Stdout, "  %pwd  ") || !strings.Contains(r.Stdout, "%%bash") {
		t.Fatalf("%%lsmagic: %s %q", r.Status, r.Stdout)
	}
	r = kerneltest.Run(t, k, "%foo bar")
	if r.Status != kernel.StatusError || r.Error == nil || r.Error.EName != "UsageError" || r.Error.EValue != "Line magic function `%foo` not found." || len(r.Error.Traceback) != 0 {
		t.Fatalf("%%foo: %s %+v", r.Status, r.Error)
	}
}

// Magics that ask nothing (%matplotlib inline, %load_ext autoreload,
// %autoreload, %config) run on Monty as None.
func TestInertMagicsOnMonty(t *testing.T) {
	k := newMonty(t, kernel.Limits{})
	r := kerneltest.Run(t, k, "%matplotlib inline\n%load_ext autoreload\n%autoreload 2\nx = 3\nx * 2")
	if r.Status != kernel.StatusOK || r.Value == nil || r.Value.Text != "6" {
		t.Fatalf("%s %+v %+v", r.Status, r.Value, r.Error)
	}
	if r := kerneltest.Run(t, k, "%config InlineBackend.figure_format = 'retina'"); r.Status != kernel.StatusOK || r.Value != nil {
		t.Fatalf("%s %+v %+v", r.Status, r.Value, r.Error)
	}
}
