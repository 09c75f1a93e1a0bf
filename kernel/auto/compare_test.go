package auto

import (
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

func TestSetOrderFree(t *testing.T) {
	same := [][2]string{
		{"{3, 1, 2}", "{1, 2, 3}"},
		{"[{'b', 'a'}, (1, {(2, 1), (1, 0)})]", "[{'a', 'b'}, (1, {(1, 0), (2, 1)})]"},
		{"frozenset({'x', 'y'})", "frozenset({'y', 'x'})"},
		{"{'k': {2, 1}}", "{'k': {1, 2}}"},
		{"set()", "set()"},
	}
	for _, c := range same {
		if a, b := setOrderFree(c[0]), setOrderFree(c[1]); a != b {
			t.Errorf("%q and %q: %q != %q", c[0], c[1], a, b)
		}
	}
	differ := [][2]string{
		{"{'a': 1, 'b': 2}", "{'b': 2, 'a': 1}"}, // dicts keep their order
		{"[1, 2]", "[2, 1]"},
		{"(1, 2)", "(2, 1)"},
		{"{'a:b', 'c'}", "{'a:b', 'd'}"},
		{"{1, 2}", "{1, 3}"},
	}
	for _, c := range differ {
		if setOrderFree(c[0]) == setOrderFree(c[1]) {
			t.Errorf("%q and %q must differ", c[0], c[1])
		}
	}
}

func TestNormalizeRepr(t *testing.T) {
	for monty, cpython := range map[string]string{
		"<P object at 0x90>":                "<__main__.P object at 0x7f3a2c1d9e50>",
		"<function 'f' at 0x2c>":            "<function f at 0x7f3a2c1d9e50>",
		"<class 'P'>":                       "<class '__main__.P'>",
		"[<P object at 0x90>, <class 'P'>]": "[<__main__.P object at 0x7f00>, <class '__main__.P'>]",
	} {
		if a, b := normalizeRepr(monty), normalizeRepr(cpython); a != b {
			t.Errorf("%q → %q, %q → %q", monty, a, cpython, b)
		}
	}
}

// The container's run of a cell streams only what Monty did not stream
// already; when it departs from that, it streams nothing more.
func TestEchoResume(t *testing.T) {
	var e echo
	var shown strings.Builder
	out := func(_ kernel.Stream, s string) { shown.WriteString(s) }
	m := e.tee(out)
	m(kernel.Stdout, "before\n")
	m(kernel.Stdout, "x")
	c := e.resume(out)
	c(kernel.Stdout, "bef")
	c(kernel.Stdout, "ore\nxy\n")
	c(kernel.Stderr, "warning\n")
	if got := shown.String(); got != "before\nxy\nwarning\n" {
		t.Fatalf("streamed %q", got)
	}
	shown.Reset()
	c = e.resume(out)
	c(kernel.Stdout, "other\n")
	c(kernel.Stdout, "more\n")
	if shown.String() != "" {
		t.Fatalf("streamed %q after the output departed", shown.String())
	}
}

func TestJudge(t *testing.T) {
	seen := map[string]bool{"total": true}
	errResult := func(ename, evalue string) kernel.Result {
		return kernel.Result{Status: kernel.StatusError, Error: &contract.ExecutionError{EName: ename, EValue: evalue}}
	}
	cases := []struct {
		r    kernel.Result
		want string
	}{
		{kernel.Result{Status: kernel.StatusOK}, ""},
		{errResult("NameError", "name 'totl' is not defined"), ""},                                                  // a typo: CPython says the same
		{errResult("NameError", "name 'total' is not defined"), "error:NameError"},                                  // an earlier cell bound it
		{errResult("NameError", "name 'bytearray' is not defined"), "error:NameError"},                              // a built-in Monty lacks
		{errResult("NameError", "name '__builtins__' is not defined"), "error:NameError"},                           // a module global
		{errResult("NameError", "name 'json' is not defined. Did you forget to import 'json'?"), "error:NameError"}, // Monty's own wording
		{errResult("ZeroDivisionError", "division by zero"), "error:ZeroDivisionError"},
		{errResult("AttributeError", "'int' object has no attribute 'bit_length'"), "error:AttributeError"},
		{errResult("RecursionError", "maximum recursion depth exceeded"), "limit:recursion"},
		{errResult("MemoryError", "memory limit exceeded"), "limit:memory"},
		// A cell the kernel stopped is never run again elsewhere.
		{withRestored(errResult("MemoryError", "memory limit exceeded")), ""},
		{kernel.Result{Status: kernel.StatusTimeout}, ""},
		{kernel.Result{Status: kernel.StatusCrashed}, ""},
		{kernel.Result{Status: kernel.StatusInterrupted}, ""},
		{kernel.Result{Status: kernel.StatusOK, Value: &contract.Value{Text: "'" + strings.Repeat("[", 300) + "'"}}, "value:deep-nesting"},
		{kernel.Result{Status: kernel.StatusOK, Stdout: "<Point object at 0x90>\n"}, "value:object-repr"},
		{kernel.Result{Status: kernel.StatusOK, Value: &contract.Value{Text: "<class 'int'>"}}, ""},
		{kernel.Result{Status: kernel.StatusOK, Value: &contract.Value{Text: "<class 'Point'>"}}, "value:object-repr"},
		{kernel.Result{Status: kernel.StatusOK, Value: &contract.Value{Text: "<bound method>"}}, "value:object-repr"},
	}
	for _, c := range cases {
		got := ""
		if rules := judge(plan{}, c.r, seen); len(rules) > 0 {
			got = rules[0].id
		}
		if got != c.want {
			t.Errorf("%+v %+v: rule %q, want %q", c.r, c.r.Error, got, c.want)
		}
	}
}

func TestReadsInput(t *testing.T) {
	for code, want := range map[string]bool{
		"name = input('name? ')": true, "print(f'{input()}')": true, "x.input(1)": false, "inputs = 1": false, "'input('": false,
	} {
		if readsInput(analyze(code)) != want {
			t.Errorf("%q: %v", code, !want)
		}
	}
}

func withRestored(r kernel.Result) kernel.Result {
	r.Restored = true
	return r
}
