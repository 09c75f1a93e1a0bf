package montykernel

import (
	"cmp"
	"context"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
	"github.com/backyard-ls/backyard-ls/pysrc/ipysyntax"
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
	for code, what := range map[string]string{"%timeit x = 1": "%timeit", "x = 1\n%precision 3": "%precision", "x = 1\n!ls": "!ls", "%%bash\necho hi": "%%bash",
		// IPython's shell aliases, macros, history, logging, the profiler and the debugger.
		"%alias show echo": "%alias", "%unalias ls": "%unalias", "%ls": "%ls", "%cat f.txt": "%cat", "%mkdir d": "%mkdir", "%ll": "%ll",
		"%macro m 1": "%macro", "%save f 1": "%save", "%load f.py": "%load", "%bookmark b": "%bookmark", "%tb": "%tb",
		"%pylab inline": "%pylab", "%logstart": "%logstart", "%logstate": "%logstate", "%prun f()": "%prun", "%%prun\nf()": "%%prun",
		"%debug": "%debug", "%%debug\nx = 1": "%%debug", "%%sx\nls": "%%sx"} {
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
	// IPython 9 returns the listing as a str: the cell's value.
	r = kerneltest.Run(t, k, "%lsmagic")
	if r.Status != kernel.StatusOK || r.Stdout != "" || r.Value == nil || !strings.HasPrefix(r.Value.Text, `'Available line magics:\n%`) ||
		!strings.Contains(r.Value.Text, "  %pwd  ") || !strings.Contains(r.Value.Text, "%%bash") || !strings.HasSuffix(r.Value.Text, "line magics.'") {
		t.Fatalf("%%lsmagic: %s %q %+v", r.Status, r.Stdout, r.Value)
	}
	if r := kerneltest.Run(t, k, "m = %lsmagic\nprint(m.splitlines()[0])"); r.Stdout != "Available line magics:\n" {
		t.Fatalf("m = %%lsmagic: %q %+v", r.Stdout, r.Error)
	}
	r = kerneltest.Run(t, k, "%foo bar")
	if r.Status != kernel.StatusError || r.Error == nil || r.Error.EName != "UsageError" || r.Error.EValue != "Line magic function `%foo` not found." || len(r.Error.Traceback) != 0 {
		t.Fatalf("%%foo: %s %+v", r.Status, r.Error)
	}
}

// Magics that ask nothing (%matplotlib inline, %config) run on Monty as
// None, as does %autoreload once %load_ext autoreload loaded it.
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

// MontyNotebooks are the corpus/ipython notebooks whose every cell Monty
// answers (its host runs their magics, and a kernel alone keeps IPython's
// history names).
var MontyNotebooks = map[string]bool{"timing.py": true, "namespace.py": true, "values.py": true, "history.py": true, "nested_functions.py": true}

// Those notebooks on a Monty kernel alone: every cell shows what IPython
// showed (timings by shape), and the history names are no variables.
func TestIPythonCorpusOnMonty(t *testing.T) {
	n := 0
	for _, nb := range kerneltest.IPythonCorpus(t, "../../corpus/ipython") {
		if !MontyNotebooks[filepath.Base(nb.Path)] {
			continue
		}
		n++
		k, err := New(Options{History: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { k.Close() })
		for i, want := range nb.Cells {
			if diff := kerneltest.CompareIPython(want, kerneltest.Run(t, k, want.Code)); diff != "" {
				t.Errorf("%s cell %d (%s): %s", filepath.Base(nb.Path), i, want.Title, diff)
			}
		}
		for name := range kerneltest.Variables(t, k) {
			if ipysyntax.IsHistoryName(name) {
				t.Errorf("%s: %s is listed as a variable", filepath.Base(nb.Path), name)
			}
		}
	}
	if n != len(MontyNotebooks) {
		t.Fatalf("%d of the notebooks found", n)
	}
}

// %env's variables stay for the cells after, on the session that replaces
// an interrupted one too (its values come back by replay), and a restart
// drops them.
func TestEnvOnMonty(t *testing.T) {
	k := newMonty(t, kernel.Limits{})
	r := kerneltest.Run(t, k, "import os\n%env BACKYARD_T=1\nv = %env BACKYARD_T\nv, os.getenv('BACKYARD_T')")
	if r.Stdout != "env: BACKYARD_T=1\n" || r.Value == nil || r.Value.Text != "('1', '1')" {
		t.Fatalf("%q %+v %+v", r.Stdout, r.Value, r.Error)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if r, _ := k.Execute(ctx, kernel.Request{Code: "while True:\n    pass"}); r.Status != kernel.StatusInterrupted || !r.Restored {
		t.Fatalf("%+v", r)
	}
	if r := kerneltest.Run(t, k, "v, os.environ['BACKYARD_T']"); r.Value == nil || r.Value.Text != "('1', '1')" {
		t.Fatalf("after the interrupt: %+v %+v", r.Value, r.Error)
	}
	r = kerneltest.Run(t, k, "%env")
	if r.Value == nil || !strings.Contains(r.Value.Text, "'BACKYARD_T': '1'") {
		t.Fatalf("%%env: %+v", r.Value)
	}
	if err := k.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := kerneltest.Run(t, k, "%env BACKYARD_T"); r.Error == nil || r.Error.EName != "UsageError" {
		t.Fatalf("after a restart: %+v %+v", r.Value, r.Error)
	}
}

// %env after a snapshot: the session that replaces an interrupted one is
// the keeper's, which must see the variable too (a replayed %env gets its
// recorded answer and sets nothing).
func TestEnvAfterASnapshotOnMonty(t *testing.T) {
	k := newMonty(t, kernel.Limits{})
	kerneltest.Run(t, k, "import os\nbefore = 1")
	k.Q <- struct{}{}
	err := k.cp.take(k.w, k.opts.Files, k.startWorker)
	keeper := k.cp.keeper != nil
	k.Q.Release()
	if err != nil || !keeper {
		t.Fatalf("snapshot: %v, keeper %v", err, keeper)
	}
	kerneltest.Run(t, k, "%env BACKYARD_T=2")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if r, _ := k.Execute(ctx, kernel.Request{Code: "while True:\n    pass"}); r.Status != kernel.StatusInterrupted || !r.Restored {
		t.Fatalf("%+v", r)
	}
	if r := kerneltest.Run(t, k, "before, os.environ['BACKYARD_T']"); r.Value == nil || r.Value.Text != "(1, '2')" {
		t.Fatalf("after the interrupt: %+v %+v", r.Value, r.Error)
	}
}

// %env's listing hides what looks like a secret, and wraps as IPython's
// pretty printer does past 79 characters.
func TestEnvListing(t *testing.T) {
	k, err := New(Options{Env: map[string]string{"API_KEY": "s3cret", "A_TOKEN": "t"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	r := kerneltest.Run(t, k, "%env")
	if r.Value == nil || strings.Contains(r.Value.Text, "s3cret") || !strings.Contains(r.Value.Text, "'API_KEY': '<hidden>',\n 'A_TOKEN': '<hidden>',\n") {
		t.Fatalf("%+v", r.Value)
	}
	if got := prettyDict(map[string]any{"A": "1"}); got != "{'A': '1'}" {
		t.Errorf("%q", got)
	}
}

// %time measures the worker's CPU time, and the cell's traceback shows the
// line as written.
func TestTimeOnMonty(t *testing.T) {
	k := newMonty(t, kernel.Limits{})
	r := kerneltest.Run(t, k, "%time s = sum([i * i for i in range(200000)])\ns")
	if r.Value == nil || r.Value.Text != "2666646666700000" || !strings.HasPrefix(r.Stdout, "CPU times: user ") {
		t.Fatalf("%q %+v %+v", r.Stdout, r.Value, r.Error)
	}
	if runtime.GOOS == "linux" && strings.Contains(r.Stdout, "total: 0 ns") {
		t.Errorf("no CPU time measured: %q", r.Stdout)
	}
	r = kerneltest.Run(t, k, "x = 1\n%time y = 1 / 0")
	if r.Error == nil || r.Error.EName != "ZeroDivisionError" || len(r.Error.Traceback) == 0 || !strings.Contains(r.Stdout, "Wall time: ") {
		t.Fatalf("%q %+v", r.Stdout, r.Error)
	}
	if f := r.Error.Traceback[len(r.Error.Traceback)-1]; f.Line != 2 || f.Text != "%time y = 1 / 0" {
		t.Errorf("frame %+v", f)
	}
	for _, v := range kerneltest.Variables(t, k) {
		if strings.HasPrefix(v.Name, "__backyard") {
			t.Errorf("listed: %+v", v)
		}
	}
}

// What Monty cannot host as IPython runs it is refused whole, for the
// container: %time in a function (IPython gives it a copy of the locals),
// of a compound statement, with arguments IPython would expand.
func TestUnhostedMagicsOnMonty(t *testing.T) {
	k := newMonty(t, kernel.Limits{})
	for code, what := range map[string]string{
		"def f():\n    %time x = 1\n    return x": "%time", "%time for i in range(3): pass": "%time",
		"y = 1\n%env A=$y": "%env", "x = 1\n%whos\n!ls": "!ls", "%%time -n\nx": "%%time"} {
		r := kerneltest.Run(t, k, code)
		if r.Error == nil || r.Error.EName != "UsageError" || !strings.HasPrefix(r.Error.EValue, what+" needs IPython's shell") {
			t.Errorf("%q: %+v", code, r.Error)
		}
	}
}

// Automagic on Monty: a line magic's name alone runs the magic its host
// answers while the name is not bound, and Python's meaning holds once a
// cell binds it; a magic Monty does not host says so as %name does.
func TestAutomagicOnMonty(t *testing.T) {
	k := newMonty(t, kernel.Limits{})
	if r := kerneltest.Run(t, k, "who"); r.Stdout != "Interactive namespace is empty.\n" || r.Error != nil {
		t.Fatalf("who: %q %+v", r.Stdout, r.Error)
	}
	if r := kerneltest.Run(t, k, "pwd"); r.Value == nil || r.Value.Text != ipysyntax.PyRepr(cmp.Or(k.opts.Dir, "/")) {
		t.Fatalf("pwd: %+v %+v", r.Value, r.Error)
	}
	kerneltest.Run(t, k, "x = 1")
	if r := kerneltest.Run(t, k, "who"); r.Stdout != "x\t \n" {
		t.Fatalf("who: %q %+v", r.Stdout, r.Error)
	}
	kerneltest.Run(t, k, "pwd = 3")
	if r := kerneltest.Run(t, k, "pwd"); r.Value == nil || r.Value.Text != "3" {
		t.Fatalf("a bound pwd: %+v %+v", r.Value, r.Error)
	}
	if r := kerneltest.Run(t, k, "pwd + 1"); r.Value == nil || r.Value.Text != "4" {
		t.Fatalf("a bound pwd + 1: %+v %+v", r.Value, r.Error)
	}
	if r := kerneltest.Run(t, k, "who\nx"); r.Error == nil || r.Error.EName != "NameError" {
		t.Fatalf("two lines: %+v", r.Error)
	}
	if r := kerneltest.Run(t, k, "cd sub"); r.Error == nil || r.Error.EName != "UsageError" || !strings.HasPrefix(r.Error.EValue, "%cd needs IPython's shell") {
		t.Fatalf("cd: %+v", r.Error)
	}
}

// The autoreload extension's magics are there only once %load_ext
// autoreload loaded it (an earlier line of the same cell too), as in
// IPython: before, they are magics IPython's shell has not; it cannot be
// unloaded, and a restart forgets it.
func TestAutoreloadLoadedOnMonty(t *testing.T) {
	k := newMonty(t, kernel.Limits{})
	notFound := func(code, name string) {
		t.Helper()
		r := kerneltest.Run(t, k, code)
		if r.Status != kernel.StatusError || r.Error == nil || r.Error.EName != "UsageError" || r.Error.EValue != "Line magic function `%"+name+"` not found." || len(r.Error.Traceback) != 0 {
			t.Fatalf("%q: %s %+v", code, r.Status, r.Error)
		}
	}
	prints := func(code, want string) {
		t.Helper()
		if r := kerneltest.Run(t, k, code); r.Status != kernel.StatusOK || r.Stdout != want {
			t.Fatalf("%q: %s %q %+v", code, r.Status, r.Stdout, r.Error)
		}
	}
	listed := func(want string) {
		t.Helper()
		r := kerneltest.Run(t, k, "listing = %lsmagic\nclasses = %lsmagic -j\n'%autoreload' in listing, '%aimport' in listing, classes['line'].get('autoreload'), classes['line'].get('aimport')")
		if r.Value == nil || r.Value.Text != want {
			t.Fatalf("lsmagic: %+v %+v", r.Value, r.Error)
		}
	}
	notFound("%autoreload 2", "autoreload")
	notFound("%aimport json", "aimport")
	listed("(False, False, None, None)")
	if r := kerneltest.Run(t, k, "%lsmagic"); r.Value == nil || r.Value.Text != ipysyntax.PyRepr(container.LsMagic()) {
		t.Fatalf("%%lsmagic: %+v", r.Value)
	}
	prints("%unload_ext autoreload", "The autoreload extension is not loaded.\n")
	notFound("%autoreload 1\n%load_ext autoreload", "autoreload") // the load never ran
	notFound("%autoreload", "autoreload")
	if r := kerneltest.Run(t, k, "autoreload 2"); r.Error == nil || r.Error.EName != "SyntaxError" {
		t.Fatalf("autoreload 2 is no automagic yet: %+v", r.Error)
	}

	r := kerneltest.Run(t, k, "x = 1\n%load_ext autoreload\n%autoreload 2\nx")
	if r.Status != kernel.StatusOK || r.Stdout != "" || r.Value == nil || r.Value.Text != "1" {
		t.Fatalf("load, then %%autoreload: %s %q %+v %+v", r.Status, r.Stdout, r.Value, r.Error)
	}
	prints("%load_ext autoreload", "The autoreload extension is already loaded. To reload it, use:\n  %reload_ext autoreload\n")
	prints("%reload_ext autoreload", "")
	listed("(True, True, 'AutoreloadMagics', 'AutoreloadMagics')")
	if r := kerneltest.Run(t, k, "%lsmagic"); r.Value == nil || r.Value.Text != ipysyntax.PyRepr(container.LsMagic("autoreload")) {
		t.Fatalf("%%lsmagic: %+v", r.Value)
	}
	prints("%unload_ext autoreload", "The autoreload extension doesn't define how to unload it.\n")
	prints("%autoreload 2", "")
	prints("autoreload 2", "") // automagic
	// %aimport imports into the namespace: IPython's shell runs it.
	if r := kerneltest.Run(t, k, "%aimport json"); r.Error == nil || r.Error.EName != "UsageError" || !strings.Contains(r.Error.EValue, "needs IPython's shell") {
		t.Fatalf("%%aimport once loaded: %+v", r.Error)
	}

	if err := k.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	notFound("%autoreload 2", "autoreload")
	listed("(False, False, None, None)")
	// A reload loads an extension not loaded, as IPython's does.
	prints("%reload_ext autoreload", "")
	prints("%autoreload 2", "")
}
