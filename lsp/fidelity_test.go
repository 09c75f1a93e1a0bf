package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

// A backend the fidelity tests run on; cpython: its answers are CPython's
// (a container, or auto mode, which checks Monty's errors there).
type fidelityBackend struct {
	name     string
	settings map[string]any
	cpython  bool
}

// fidelityBackends are Monty, a container on runc and on runsc, and auto
// (Monty, checked and moved to a runc container).
func fidelityBackends(t *testing.T) []fidelityBackend {
	ctr := func(backend, runtime string) map[string]any {
		return map[string]any{"backyard": map[string]any{"backend": backend, "container": map[string]any{"image": containertest.Image(), "runtime": runtime}}}
	}
	all := []fidelityBackend{{name: "monty", settings: montyOnly}}
	if testing.Short() {
		return all
	}
	return append(all, fidelityBackend{"runc", ctr("container", "runc"), true}, fidelityBackend{"runsc", ctr("container", "runsc"), true},
		fidelityBackend{"auto", ctr("auto", "runc"), true})
}

// forEachBackend runs test on every fidelity backend, each with its own
// server.
func forEachBackend(t *testing.T, test func(t *testing.T, b fidelityBackend, c *lsptest.Client)) {
	for _, b := range fidelityBackends(t) {
		t.Run(b.name, func(t *testing.T) {
			test(t, b, start(t, lsptest.Neovim07, b.settings))
		})
	}
}

// openHere opens a document named name with text in a folder of its own
// (the kernel sees the document's folder) and returns its uri and path.
func openHere(t *testing.T, c *lsptest.Client, name, text string) (string, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	uri := "file://" + filepath.ToSlash(p)
	if err := c.Open(testCtx(t), uri, text); err != nil {
		t.Fatal(err)
	}
	return uri, p
}

// runLine runs the cell at line and returns its one execution.
func runLine(t *testing.T, c *lsptest.Client, uri string, line int) *contract.Execution {
	t.Helper()
	ex := run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": line})
	if len(ex) != 1 {
		t.Fatalf("line %d: %d executions: %s", line, len(ex), mustJSON(ex))
	}
	return ex[0]
}

// diagnosticAt is the diagnostic published for uri on line, waiting for
// one to be there.
func diagnosticAt(t *testing.T, c *lsptest.Client, uri string, line uint32) protocol.Diagnostic {
	t.Helper()
	var found protocol.Diagnostic
	await(t, c, lsptest.Diagnostics(uri, fmt.Sprintf("one on line %d", line), func(ds []protocol.Diagnostic) bool {
		for _, d := range ds {
			if d.Range.Start.Line == line {
				found = d
				return true
			}
		}
		return false
	}))
	return found
}

const wholeExceptions = `# %%
def f():
    try:
        1/0
    except ZeroDivisionError as e:
        raise ValueError("bad") from e
f()
# %%
try:
    {}["x"]
except KeyError:
    e = RuntimeError("ctx")
    e.add_note("a note")
    raise e
# %%
raise ExceptionGroup("grp", [ValueError(1), TypeError("t")])
# %%
class E(Exception):
    def __str__(self):
        raise RuntimeError("no")
raise E()
# %%
x = (1 +
      2 ))
# %%
print("\x1b[31mred\x1b[0m")
raise RuntimeError("\x1b[31mbad\x1b[0m value")
`

// The record carries the whole exception (cause, context, notes, group
// members, each with its frames); an exception whose str() raises is
// shown as CPython shows it; a syntax error's diagnostic covers CPython's
// offset to end_offset; a diagnostic has no terminal control sequences,
// the output keeps them. Monty alone has no chains: its answers there are
// its own, but never an internal error.
func TestWholeExceptionThroughLSP(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b fidelityBackend, c *lsptest.Client) {
		uri, _ := openHere(t, c, "whole.py", wholeExceptions)
		var all []*contract.Execution
		for _, line := range []int{1, 8, 15, 17, 22, 25} {
			x := runLine(t, c, uri, line)
			if x.Status != contract.StatusError || x.Error == nil {
				t.Fatalf("line %d: %s", line, mustJSON(x))
			}
			if strings.Contains(x.Error.EValue, "Internal error") {
				t.Errorf("line %d: an internal error: %s", line, mustJSON(x.Error))
			}
			all = append(all, x)
		}
		cause, ctx, grp, bad, syntax, ansi := all[0].Error, all[1].Error, all[2].Error, all[3].Error, all[4].Error, all[5]

		// The syntax error: CPython's offset 10 and end_offset 11 on
		// `      2 ))` (Monty marks the same character).
		if d := diagnosticAt(t, c, uri, 23); d.Range.Start.Character != 9 || d.Range.End != (protocol.Position{Line: 23, Character: 10}) || !strings.HasPrefix(lsptest.Plain(d.Message), "SyntaxError") {
			t.Errorf("syntax error diagnostic %s", mustJSON(d))
		}
		if syntax.EName != "SyntaxError" {
			t.Errorf("syntax error %s", mustJSON(syntax))
		}
		// Terminal control sequences: kept in the output, not in the
		// diagnostic.
		if ansi.Stdout != "\x1b[31mred\x1b[0m\n" || ansi.Error.EValue != "\x1b[31mbad\x1b[0m value" {
			t.Errorf("the output lost its control sequences: %s", mustJSON(ansi))
		}
		if d := diagnosticAt(t, c, uri, 26); lsptest.Plain(d.Message) != "RuntimeError: bad value" {
			t.Errorf("diagnostic message %q", lsptest.Plain(d.Message))
		}
		if !b.cpython {
			return
		}
		if cause.EName != "ValueError" || cause.Cause == nil || cause.Cause.EName != "ZeroDivisionError" || cause.Context != nil ||
			len(cause.Cause.Traceback) != 1 || cause.Cause.Traceback[0].Line != 3 || cause.Cause.Traceback[0].Text != "1/0" {
			t.Errorf("raise … from: %s", mustJSON(cause))
		}
		if ctx.EName != "RuntimeError" || !slices.Equal(ctx.Notes, []string{"a note"}) || ctx.Context == nil || ctx.Context.EName != "KeyError" ||
			ctx.Context.Traceback[0].Line != 9 {
			t.Errorf("context and notes: %s", mustJSON(ctx))
		}
		if grp.EName != "ExceptionGroup" || len(grp.Exceptions) != 2 || grp.Exceptions[0].EName != "ValueError" || grp.Exceptions[0].EValue != "1" ||
			grp.Exceptions[1].EName != "TypeError" || grp.Traceback[0].Line != 15 {
			t.Errorf("group: %s", mustJSON(grp))
		}
		// str() raising: CPython's placeholder, the frames, the diagnostic
		// on the raise line.
		if bad.EName != "E" || bad.EValue != "<exception str() failed>" || len(bad.Traceback) == 0 || bad.Traceback[len(bad.Traceback)-1].Line != 20 {
			t.Errorf("str() raising: %s", mustJSON(bad))
		}
		if d := diagnosticAt(t, c, uri, 20); lsptest.Plain(d.Message) != "E: <exception str() failed>" || d.Range.Start.Character != 0 || d.Range.End.Character != 9 {
			t.Errorf("its diagnostic %s", mustJSON(d))
		}
		// The raise … from diagnostic is on the innermost frame in the
		// cell and covers what CPython's carets cover.
		if d := diagnosticAt(t, c, uri, 5); d.Range.Start.Character != 8 || d.Range.End.Character != 38 || lsptest.Plain(d.Message) != "ValueError: bad" {
			t.Errorf("raise … from diagnostic %s", mustJSON(d))
		}
	})
}

// Bytes written to sys.stdout.buffer are one stream, as a terminal reads
// them: a character split across writes arrives whole, invalid bytes are
// replaced as bytes.decode(errors="replace") replaces them; a lone
// surrogate printed is one U+FFFD, as Jupyter shows it.
func TestStreamsDecodeAsCPythonThroughLSP(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b fidelityBackend, c *lsptest.Client) {
		uri, _ := openHere(t, c, "bytes.py", "# %%\nprint('\\ud800|')\n# %%\nprint('\\ud83d\\ude00')\n# %%\nimport sys\nsys.stdout.buffer.write(b'\\xe2\\x82')\nsys.stdout.buffer.write(b'\\xac\\n')\nsys.stdout.buffer.write(b'x\\xed\\xa0\\x80y\\xffz\\n');\n")
		if x := runLine(t, c, uri, 1); x.Stdout != "\ufffd|\n" {
			t.Errorf("a lone surrogate: %q", x.Stdout)
		}
		if !b.cpython {
			return // Monty has no sys.stdout.buffer and keeps no surrogate pair
		}
		if x := runLine(t, c, uri, 3); x.Stdout != "😀\n" {
			t.Errorf("a surrogate pair: %q", x.Stdout)
		}
		if x := runLine(t, c, uri, 5); x.Status != contract.StatusOK || x.Stdout != "€\nx\ufffd\ufffd\ufffdy\ufffdz\n" {
			t.Errorf("bytes: %s", mustJSON(x))
		}
	})
}

// What a thread prints while no cell runs reaches the client as it is
// printed, under the last execution, as Jupyter shows it, not with the
// next cell.
func TestThreadOutputBetweenCellsThroughLSP(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b fidelityBackend, c *lsptest.Client) {
		if !b.cpython {
			t.Skip("Monty has no threads")
		}
		uri, _ := openHere(t, c, "thread.py", "# %%\nimport threading, time\nstop = threading.Event()\ndef tick():\n    while not stop.wait(0.02):\n        print('tick', flush=True)\nth = threading.Thread(target=tick)\nth.start()\n# %%\nstop.set()\nth.join()\n# %%\n'quiet'\n")
		first := runLine(t, c, uri, 1)
		if first.Status != contract.StatusOK {
			t.Fatalf("%s", mustJSON(first))
		}
		// It ticks while the test waits here, between cells.
		await(t, c, lsptest.Received("a tick printed between cells", func(m lsptest.Message) bool {
			p, ok := m.Value.(*contract.OutputParams)
			return ok && p.Idle && p.URI == uri && p.ExecutionID == first.ID && p.Stream == contract.Stdout && strings.HasPrefix(p.Text, "tick\n")
		}))
		runLine(t, c, uri, 9) // stops it: ticks may come with this cell
		if last := runLine(t, c, uri, 12); last.Stdout != "" || last.Result == nil || last.Result.Text != "'quiet'" {
			t.Errorf("a later cell got the thread's output: %s", mustJSON(last))
		}
	})
}

// Raw cells (and Jupytext's other non-code cells) never run.
func TestRawCellsNeverRunThroughLSP(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b fidelityBackend, c *lsptest.Client) {
		uri, _ := openHere(t, c, "raw.py", "# %% [raw]\n\"\"\"\nraw text\n\"\"\"\n# %%\nx = 1\n# %% Notes [raw]\nprint('no')\n# %% active=\"py\"\nprint('script only')\n# %%\nx + 1\n")
		ex := run(t, c, contract.CmdRunAll, map[string]any{"uri": uri})
		if len(ex) != 2 || ex[0].ExecutionCount != 1 || ex[1].Result == nil || ex[1].Result.Text != "2" || ex[1].ExecutionCount != 2 {
			t.Fatalf("%s", mustJSON(ex))
		}
		if ex := run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 2}); len(ex) != 0 {
			t.Errorf("a raw cell ran: %s", mustJSON(ex))
		}
	})
}

// The container keeps __future__ features across cells, as IPython keeps
// its compiler's flags; __file__ is the document's path, as VS Code's
// Interactive Window defines it; the server's TZ is the kernels' too.
func TestFutureFileAndTimeZoneThroughLSP(t *testing.T) {
	t.Setenv("TZ", "Asia/Kolkata")
	forEachBackend(t, func(t *testing.T, b fidelityBackend, c *lsptest.Client) {
		uri, path := openHere(t, c, "future.py", "# %%\nfrom __future__ import annotations\n# %%\ndef f(x: int): pass\nf.__annotations__\n# %%\n__file__\n# %%\nimport datetime\nstr(datetime.datetime(2024, 1, 15, 12, tzinfo=datetime.timezone.utc).astimezone().utcoffset())\n")
		runLine(t, c, uri, 1)
		if x := runLine(t, c, uri, 6); x.Result == nil || x.Result.Text != "'"+path+"'" {
			t.Errorf("__file__: %s", mustJSON(x))
		}
		if x := runLine(t, c, uri, 8); x.Result == nil || x.Result.Text != "'5:30:00'" {
			t.Errorf("TZ: %s", mustJSON(x))
		}
		if !b.cpython {
			return // Monty has no __annotations__
		}
		if x := runLine(t, c, uri, 3); x.Result == nil || x.Result.Text != "{'x': 'int'}" {
			t.Errorf("annotations under from __future__ import annotations: %s", mustJSON(x))
		}
	})
}

// Monty alone answers as CPython where a shim can (sys.exit,
// sys.stdout.write, an exception made from a number) and says what it
// does not support otherwise, never with an internal error.
func TestMontyAloneAnswersThroughLSP(t *testing.T) {
	forEachBackend(t, func(t *testing.T, b fidelityBackend, c *lsptest.Client) {
		uri, _ := openHere(t, c, "alone.py", "# %%\nimport sys\nsys.exit(3)\n# %%\nsys.stdout.write('hi\\n')\n# %%\nraise ValueError(2)\n# %%\nimport math\nmath.foo = 1\nmath.foo\n")
		if x := runLine(t, c, uri, 1); x.Error == nil || x.Error.EName != "SystemExit" || x.Error.EValue != "3" {
			t.Errorf("sys.exit: %s", mustJSON(x))
		}
		if x := runLine(t, c, uri, 4); x.Stdout != "hi\n" || x.Result == nil || x.Result.Text != "3" {
			t.Errorf("sys.stdout.write: %s", mustJSON(x))
		}
		if x := runLine(t, c, uri, 6); x.Error == nil || x.Error.EName != "ValueError" || x.Error.EValue != "2" || x.Error.Traceback[len(x.Error.Traceback)-1].Line != 6 {
			t.Errorf("ValueError(2): %s", mustJSON(x))
		}
		x := runLine(t, c, uri, 8)
		switch {
		case b.cpython && (x.Result == nil || x.Result.Text != "1"):
			t.Errorf("module attribute: %s", mustJSON(x))
		case !b.cpython && (x.Error == nil || x.Error.EName != "NotImplementedError" || !strings.HasPrefix(x.Error.EValue, "Monty does not support setting a module's attributes")):
			t.Errorf("module attribute on Monty: %s", mustJSON(x))
		}
	})
}

// Auto mode routes the cells where Monty differs: a comparison with a
// literal through `is` (CPython's SyntaxWarning) and annotations read as
// values (Monty keeps them as strings).
func TestAutoRoutesWhereMontyDiffersThroughLSP(t *testing.T) {
	for _, b := range fidelityBackends(t) {
		if b.name != "auto" {
			continue
		}
		c := start(t, lsptest.Neovim07, b.settings)
		uri, _ := openHere(t, c, "routes.py", "# %%\nclass C:\n    x: int\nC.__annotations__\n# %%\nn = 1000\nn is 1000\n")
		x := runLine(t, c, uri, 1)
		if x.Backend != "container" || x.Result == nil || x.Result.Text != "{'x': int}" || x.Routing == nil || x.Routing.Rule != "construct:annotations" {
			t.Errorf("annotations: %s", mustJSON(x))
		}
		x = runLine(t, c, uri, 5)
		if x.Backend != "container" || !strings.Contains(x.Stderr, `SyntaxWarning: "is" with a literal`) || x.Result == nil || x.Result.Text != "False" {
			t.Errorf("is with a literal: %s", mustJSON(x))
		}
		// A fresh auto kernel routes it by its own rule.
		c2 := start(t, lsptest.Neovim07, b.settings)
		uri2, _ := openHere(t, c2, "routes2.py", "# %%\nn = 1000\nn is 1000\n")
		if x := runLine(t, c2, uri2, 1); x.Routing == nil || x.Routing.Rule != "construct:is-literal" || !strings.Contains(x.Stderr, "SyntaxWarning") {
			t.Errorf("is with a literal, first: %s", mustJSON(x))
		}
		return
	}
	t.Skip("needs a container engine")
}
