package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/container/containertest"
)

// fidelityNotebook has a raw cell, __future__, __file__ and the time zone,
// a chained exception with a note, an exception group and sys.exit.
const fidelityNotebook = `# %% [raw]
print("raw: never")
# %%
from __future__ import annotations
import datetime
print(__file__, datetime.datetime(2024, 1, 15, 12, tzinfo=datetime.timezone.utc).astimezone().utcoffset())
# %%
try:
    1/0
except ZeroDivisionError as e:
    err = ValueError("bad")
    err.add_note("a note")
    raise err from e
# %%
raise ExceptionGroup("grp", [ValueError(1), TypeError("t")])
# %%
import sys
sys.exit(3)
`

// chainRecord is what the fidelity test reads of a JSON record.
type chainRecord struct {
	Error *struct {
		Notes      []string     `json:"notes"`
		Cause      *namedError  `json:"cause"`
		Exceptions []namedError `json:"exceptions"`
	} `json:"error"`
}

type namedError struct {
	EName string `json:"ename"`
}

// backyard-ls run shows every error as CPython prints it, on Monty, a
// container on runc and on runsc, and auto; raw cells never run; the
// server's TZ and the file's path reach the cells.
func TestRunShowsWholeExceptions(t *testing.T) {
	t.Setenv("TZ", "Asia/Kolkata")
	nb := notebookFile(t, fidelityNotebook)
	type backend struct {
		name    string
		args    []string
		cpython bool
	}
	backends := []backend{{"monty", []string{"--backend", "monty"}, false}}
	if !testing.Short() {
		img := containertest.Image()
		backends = append(backends,
			backend{"runc", []string{"--backend", "container", "--image", img, "--runtime", "runc"}, true},
			backend{"runsc", []string{"--backend", "container", "--image", img, "--runtime", "runsc"}, true},
			backend{"auto", []string{"--backend", "auto", "--image", img, "--runtime", "runc"}, true})
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			out, stderr, code := backyard(t, append(append([]string{"run"}, b.args...), nb)...)
			if code != 1 {
				t.Fatalf("exit %d: %s\n%s", code, stderr, out)
			}
			if strings.Contains(out, "raw: never") || strings.Contains(out, "In [5]") {
				t.Errorf("the raw cell ran:\n%s", out)
			}
			if !strings.Contains(out, nb+" 5:30:00\n") {
				t.Errorf("__file__ or TZ:\n%s", out)
			}
			if !strings.Contains(out, "SystemExit: 3\n") || strings.Contains(out, "Internal error") {
				t.Errorf("sys.exit:\n%s", out)
			}
			if !b.cpython {
				if !strings.Contains(out, "NotImplementedError: Monty does not support the built-in ExceptionGroup") {
					t.Errorf("Monty's exception group:\n%s", out)
				}
				return
			}
			for _, want := range []string{
				"ZeroDivisionError: division by zero\n\nThe above exception was the direct cause of the following exception:\n\nTraceback (most recent call last):\n",
				"    raise err from e\nValueError: bad\na note\n",
				"  | ExceptionGroup: grp (2 sub-exceptions)\n  +-+---------------- 1 ----------------\n    | ValueError: 1\n    +---------------- 2 ----------------\n    | TypeError: t\n    +------------------------------------\n",
			} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			// The JSON records carry the same.
			jout, _, _ := backyard(t, append(append([]string{"run", "--json"}, b.args...), nb)...)
			var recs []chainRecord
			for _, line := range strings.Split(strings.TrimSpace(jout), "\n") {
				var r chainRecord
				if err := json.Unmarshal([]byte(line), &r); err != nil {
					t.Fatalf("%q: %v", line, err)
				}
				recs = append(recs, r)
			}
			if len(recs) != 4 || recs[1].Error == nil || recs[1].Error.Cause == nil || recs[1].Error.Cause.EName != "ZeroDivisionError" ||
				len(recs[1].Error.Notes) != 1 || recs[2].Error == nil || len(recs[2].Error.Exceptions) != 2 {
				t.Errorf("records: %s", jout)
			}
		})
	}
}

// The batch's Monty lane answers as the monty backend does: shims where
// they give CPython's answer, what Monty lacks said, never an internal
// error; the other snippets stay in the pipeline.
func TestBatchMontyLaneAnswersAsCPython(t *testing.T) {
	input := strings.Join([]string{
		`{"id": "exit", "code": "import sys\nsys.exit(3)"}`,
		`{"id": "number", "code": "raise ValueError(2)"}`,
		`{"id": "write", "code": "import sys\nsys.stdout.write('hi\\n')"}`,
		`{"id": "plain", "code": "6 * 7"}`,
		`{"id": "module", "code": "import math\nmath.foo = 1"}`,
	}, "\n") + "\n"
	recs, stderr, code := batch(t, input, "--backend", "monty")
	if code != 0 || len(recs) != 5 {
		t.Fatalf("exit %d, %d records: %s", code, len(recs), stderr)
	}
	want := map[string]string{`"exit"`: "SystemExit: 3", `"number"`: "ValueError: 2", `"module"`: "NotImplementedError: Monty does not support setting a module's attributes ('foo'): its modules are read-only"}
	for _, r := range recs {
		id := string(r.ID)
		switch {
		case want[id] != "":
			if r.Error == nil || r.Error.EName+": "+r.Error.EValue != want[id] {
				t.Errorf("%s: %+v", id, r.Error)
			}
		case id == `"write"`:
			if r.Stdout != "hi\n" || r.Result == nil || r.Result.Text != "3" {
				t.Errorf("%s: %+v", id, r)
			}
		case id == `"plain"`:
			if r.Result == nil || r.Result.Text != "42" {
				t.Errorf("%s: %+v", id, r)
			}
		}
	}
}
