package sandbox

import (
	"context"
	"regexp"
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// ipythonCells are snippets written with IPython's syntax: a hosted line
// magic, shell escapes, an automagic line, a cell magic and help.
var ipythonCells = []string{"%time 1+1", "!echo hi", "x = !echo hi\nx", "pwd", "%%bash\necho hi", "len?",
	"here = %pwd\nf = get_ipython().display_formatter.formatters['text/plain']\nf.for_type(complex, lambda o, p, cycle: p.text('c'))\ntype(f).__name__"}

// clockFigures are what differs between two runs of %time.
var clockFigures = regexp.MustCompile(`[0-9.]+ (s|ms|μs|us|ns)`)

// A batch snippet is the first cell of a fresh kernel of its backend: its
// IPython syntax does what that cell does (Run on a new sandbox), on
// every lane: Monty, the container on runc and runsc, and auto, which
// sends it where that lane runs it. The working directory %pwd shows is
// the snippet's own (os.getcwd() beside it in the same batch).
func TestBatchSnippetIsAFirstCell(t *testing.T) {
	for _, c := range []struct {
		backend contract.Backend
		runtime contract.Runtime
	}{{contract.BackendMonty, ""}, {contract.BackendContainer, contract.RuntimeRunc}, {contract.BackendContainer, contract.RuntimeRunsc}, {contract.BackendAuto, contract.RuntimeRunc}} {
		t.Run(string(c.backend)+"-"+string(c.runtime), func(t *testing.T) {
			fresh := func() *Sandbox {
				if c.backend == contract.BackendMonty {
					sb, err := New(Options{})
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { sb.Close() })
					return sb
				}
				return containerSandbox(t, c.backend, c.runtime)
			}
			var snippets []kernel.Snippet
			for _, code := range ipythonCells {
				snippets = append(snippets, kernel.Snippet{Code: code})
			}
			cwd := "import os\nos.getcwd()"
			if c.backend == contract.BackendMonty {
				cwd = "'/'" // Monty's kernel, in no folder, answers "/"
			}
			snippets = append(snippets, kernel.Snippet{Code: cwd})
			res := collect(t, fresh(), context.Background(), BatchOptions{Parallelism: 2}, snippets...)
			dir := res[len(res)-1].Value
			for i, code := range ipythonCells {
				got := res[i]
				want, err := fresh().Run(context.Background(), code)
				if err != nil {
					t.Fatal(err)
				}
				if code == "pwd" {
					if got.Status != kernel.StatusOK || got.Value == nil || dir == nil || got.Value.Text != dir.Text {
						t.Errorf("pwd: %+v %+v, want the working directory %+v", got, got.Error, dir)
					}
					if want.Status != kernel.StatusOK || want.Value == nil {
						t.Errorf("pwd in a kernel: %+v %+v", want, want.Error)
					}
					continue
				}
				if d := differs(got, want); d != "" {
					t.Errorf("%q: %s\nbatch:  %+v %+v\nkernel: %+v %+v", code, d, got, got.Error, want, want.Error)
				}
			}
			// What the kernel shows: the magic ran, the shell answered.
			if c.backend != contract.BackendMonty {
				if r := res[1]; r.Status != kernel.StatusOK || r.Stdout != "hi\n" {
					t.Errorf("!echo hi: %+v %+v", r, r.Error)
				}
				if r := res[2]; r.Status != kernel.StatusOK || r.Value == nil || r.Value.Text != "['hi']" {
					t.Errorf("x = !echo hi: %+v %+v", r, r.Error)
				}
			}
			if r := res[0]; r.Status != kernel.StatusOK || r.Value == nil || r.Value.Text != "2" || !clockFigures.MatchString(r.Stdout) {
				t.Errorf("%%time 1+1: %+v %+v", r, r.Error)
			}
		})
	}
}

// differs says how a batch snippet's result differs from a kernel's
// first cell ("" when alike): status, error, value, output (clock figures
// aside) and backend.
func differs(got, want kernel.Result) string {
	text := func(v *contract.Value) string {
		if v == nil {
			return "<none>"
		}
		return v.Text
	}
	ename := func(e *contract.ExecutionError) string {
		if e == nil {
			return ""
		}
		return e.EName + ": " + e.EValue
	}
	switch {
	case got.Status != want.Status:
		return "status"
	case ename(got.Error) != ename(want.Error):
		return "error"
	case text(got.Value) != text(want.Value):
		return "value"
	case clockFigures.ReplaceAllString(got.Stdout, "T") != clockFigures.ReplaceAllString(want.Stdout, "T"):
		return "stdout"
	case got.Stderr != want.Stderr:
		return "stderr"
	case got.Backend != want.Backend:
		return "backend"
	}
	return ""
}
