package auto

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
)

// display() stays on Monty; a magic or a shell line moves the document to
// the container with the values Monty's cells made, and runs there as in
// IPython.
func TestAutoMagicsMoveToContainer(t *testing.T) {
	a := newAuto(t)
	r := kerneltest.Run(t, a, "n = 41\ndisplay(n)")
	if r.Backend != contract.BackendMonty || len(r.Displays) != 1 || r.Displays[0].Data["text/plain"] != "41" {
		t.Fatalf("display on Monty: %s %+v %+v", r.Backend, r.Displays, r.Error)
	}
	r = kerneltest.Run(t, a, "%time m = n + 1\n!echo shell $m")
	if r.Status != kernel.StatusOK || r.Backend != contract.BackendContainer {
		t.Fatalf("magic cell: %s on %s %+v", r.Status, r.Backend, r.Error)
	}
	if r.Routing == nil || r.Routing.Rule != "construct:magic" || !r.Routing.Moved || !strings.Contains(r.Routing.Reason, "!echo") {
		t.Errorf("routing %+v", r.Routing)
	}
	if !strings.HasPrefix(r.Stdout, "CPU times: ") || !strings.HasSuffix(r.Stdout, "shell 42\n") {
		t.Errorf("stdout %q", r.Stdout)
	}
	r = kerneltest.Run(t, a, "from IPython.display import Markdown\ndisplay(Markdown('**m**'))")
	if r.Backend != contract.BackendContainer || len(r.Displays) != 1 || r.Displays[0].Data["text/markdown"] != "**m**" {
		t.Errorf("display in the container: %s %+v %+v", r.Backend, r.Displays, r.Error)
	}
	r = kerneltest.Run(t, a, "%foo")
	if r.Error == nil || r.Error.EName != "UsageError" || r.Error.EValue != "Line magic function `%foo` not found." {
		t.Errorf("unknown magic: %+v", r.Error)
	}
}

// The router plans a snippet with a shell line for the container.
func TestRouterRoutesMagics(t *testing.T) {
	for code, want := range map[string]bool{"!ls": true, "x = 1\n%time x": false, "%precision 3": true, "def f():\n    %time x = 1": true, "%timeit x": true, "%%bash\necho": true, "x = 7 % 3": false, "print('%d' % 1)": false,
		"class T:\n    def _repr_html_(self):\n        return '<b/>'": true, "def repr_html(x): pass": false,
		"%pwd": false, "%pprint": false, "%foo bar": false, "%pwd\nx = 1": false, "%who": false, "%who int": false, "%whos": false, "%env A=1\nx = 1": false,
		"%alias": true, "%ls": true, "%rm x": true, "%macro m 1": true, "%save f": true, "%load f.py": true, "%bookmark -l": true, "%tb": true,
		"%pylab": true, "%logstate": true, "%logon": true, "%prun f()": true, "%%prun\nf()": true, "%debug": true, "%%debug\nx": true, "%%sx\nls": true} {
		if _, ok := magicRule(code, container.HasLineMagic); ok != want {
			t.Errorf("magicRule(%q) = %v", code, ok)
		}
	}
}

// A batch snippet is a fresh kernel's first cell: its router leaves on
// Monty what Monty's kernel hosts (which its lane runs as that kernel)
// and sends the rest to IPython's shell in the container. A program is
// plain Python, with no magic to route for.
func TestRouterPlansSnippetMagics(t *testing.T) {
	r := &Router{caps: capabilities(t)}
	for code, want := range map[string]bool{"%time x = 1": false, "x = 1\n%env A=1": false, "pwd": false, "%pwd": false, "x = 1": false,
		"!echo hi": true, "x = !echo hi\nx": true, "%%bash\necho hi": true, "len?": true, "ls": true} {
		p := r.Plan(code, false)
		if got := p.Route != nil && p.Route.Rule == "construct:magic"; got != want {
			t.Errorf("Plan(%q) routes for a magic: %v, want %v (%+v)", code, got, want, p.Route)
		}
		if p := r.Plan(code, true); p.Route != nil && p.Route.Rule == "construct:magic" {
			t.Errorf("the program %q is routed for a magic", code)
		}
	}
}

// %pwd and a magic IPython's shell has not are answered on Monty: the
// document stays there, with IPython's answer and no check.
func TestMontyAnswersMagicsInAuto(t *testing.T) {
	a := newAuto(t)
	r := kerneltest.Run(t, a, "%pwd")
	if r.Backend != contract.BackendMonty || r.Routing != nil || r.Value == nil || !strings.HasPrefix(r.Value.Text, "'/") {
		t.Fatalf("%%pwd: %s %+v %+v %+v", r.Backend, r.Routing, r.Value, r.Error)
	}
	r = kerneltest.Run(t, a, "%foo")
	if r.Backend != contract.BackendMonty || r.Routing != nil || r.Error == nil || r.Error.EValue != "Line magic function `%foo` not found." {
		t.Fatalf("%%foo: %s %+v %+v", r.Backend, r.Routing, r.Error)
	}
	kerneltest.Run(t, a, "import math\ndef f():\n    pass\nx = 1\n_y = 2")
	whoOnMonty := kerneltest.Run(t, a, "%who")
	if whoOnMonty.Backend != contract.BackendMonty || whoOnMonty.Routing != nil || whoOnMonty.Stdout != "f\t math\t x\t \n" {
		t.Fatalf("%%who: %s %+v %q", whoOnMonty.Backend, whoOnMonty.Routing, whoOnMonty.Stdout)
	}
	onMonty := kerneltest.Run(t, a, "%lsmagic")
	if onMonty.Backend != contract.BackendMonty || onMonty.Routing != nil || onMonty.Value == nil || !strings.HasPrefix(onMonty.Value.Text, `'Available line magics:\n`) {
		t.Fatalf("%%lsmagic: %s %+v %+v", onMonty.Backend, onMonty.Routing, onMonty.Value)
	}
	jsonOnMonty := kerneltest.Run(t, a, "%lsmagic --json")
	if jsonOnMonty.Backend != contract.BackendMonty || jsonOnMonty.Routing != nil || jsonOnMonty.Value == nil ||
		!strings.HasPrefix(jsonOnMonty.Value.Text, "{'line': {'autocall': 'AutoMagics',\n  'automagic': 'AutoMagics',\n  'alias_magic': 'BasicMagics',\n") {
		t.Fatalf("%%lsmagic --json: %s %+v %+v %+v", jsonOnMonty.Backend, jsonOnMonty.Routing, jsonOnMonty.Value, jsonOnMonty.Error)
	}
	// The container's shell lists the same.
	if r := kerneltest.Run(t, a, "!true"); r.Backend != contract.BackendContainer {
		t.Fatalf("no move: %s %+v", r.Backend, r.Error)
	}
	if r := kerneltest.Run(t, a, "%who"); r.Stdout != whoOnMonty.Stdout {
		t.Fatalf("%%who in the container (%s): %q, on Monty %q", r.Backend, r.Stdout, whoOnMonty.Stdout)
	}
	inContainer := kerneltest.Run(t, a, "%lsmagic")
	if inContainer.Backend != contract.BackendContainer || inContainer.Value == nil || inContainer.Value.Text != onMonty.Value.Text || inContainer.Stdout != "" {
		t.Fatalf("%%lsmagic in the container (%s):\n%+v\non Monty:\n%+v", inContainer.Backend, inContainer.Value, onMonty.Value)
	}
	if r := kerneltest.Run(t, a, "%lsmagic -j"); r.Value == nil || r.Value.Text != jsonOnMonty.Value.Text {
		t.Fatalf("%%lsmagic -j in the container (%s):\n%+v\non Monty:\n%+v", r.Backend, r.Value, jsonOnMonty.Value)
	}
}

// %matplotlib inline and %autoreload keep a document on Monty; so does
// %aimport before the extension is loaded (Monty answers that IPython's
// shell has not the magic), not after (it imports in IPython's shell).
func TestInertMagicsStayOnMonty(t *testing.T) {
	for code, want := range map[string]bool{"%matplotlib inline\nx = 1": false, "%load_ext autoreload\n%autoreload 2": false, "%matplotlib inline\n!ls": true,
		"%aimport json": false, "%reload_ext autoreload": false, "%unload_ext autoreload": false, "%load_ext other": true} {
		if _, ok := magicRule(code, container.HasLineMagic); ok != want {
			t.Errorf("magicRule(%q) = %v", code, ok)
		}
	}
	loaded := func(name string) bool {
		return container.HasLineMagic(name) || name == "aimport" || name == "autoreload"
	}
	for code, want := range map[string]bool{"%aimport json": true, "%autoreload 2": false, "x = 1\n%autoreload": false} {
		if _, ok := magicRule(code, loaded); ok != want {
			t.Errorf("magicRule(%q) once autoreload is loaded = %v", code, ok)
		}
	}
	a := newAuto(t)
	r := kerneltest.Run(t, a, "%matplotlib inline\n%load_ext autoreload\n%autoreload 2\nn = 2\nn + 1")
	if r.Backend != contract.BackendMonty || r.Routing != nil || r.Value == nil || r.Value.Text != "3" {
		t.Fatalf("%s %+v %+v %+v", r.Backend, r.Routing, r.Value, r.Error)
	}
}

// The autoreload extension %load_ext loaded on Monty is loaded in the
// container the document moves to (%aimport, which only IPython's shell
// runs, moves it), where it cannot be unloaded either; a restart forgets
// it on both.
func TestAutoreloadCrossesAMove(t *testing.T) {
	a := newAuto(t)
	if r := kerneltest.Run(t, a, "%autoreload 2"); r.Backend != contract.BackendMonty || r.Error == nil || r.Error.EValue != "Line magic function `%autoreload` not found." {
		t.Fatalf("before the load: %s %+v", r.Backend, r.Error)
	}
	if r := kerneltest.Run(t, a, "%load_ext autoreload\n%autoreload 2"); r.Backend != contract.BackendMonty || r.Status != kernel.StatusOK {
		t.Fatalf("load: %s %+v", r.Backend, r.Error)
	}
	r := kerneltest.Run(t, a, "%aimport json\njson.dumps([2])")
	if r.Backend != contract.BackendContainer || r.Routing == nil || !r.Routing.Moved || r.Value == nil || r.Value.Text != "'[2]'" {
		t.Fatalf("%%aimport: %s %+v %+v %+v", r.Backend, r.Routing, r.Value, r.Error)
	}
	if r := kerneltest.Run(t, a, "%unload_ext autoreload"); r.Stdout != "The autoreload extension doesn't define how to unload it.\n" {
		t.Fatalf("unload in the container: %q %+v", r.Stdout, r.Error)
	}
	if err := a.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := kerneltest.Run(t, a, "%autoreload 2"); r.Backend != contract.BackendMonty || r.Error == nil || r.Error.EValue != "Line magic function `%autoreload` not found." {
		t.Fatalf("after a restart: %s %+v", r.Backend, r.Error)
	}
	if r := kerneltest.Run(t, a, "!true\n%unload_ext autoreload"); r.Backend != contract.BackendContainer || r.Stdout != "The autoreload extension is not loaded.\n" {
		t.Fatalf("unload in the container after a restart: %s %q %+v", r.Backend, r.Stdout, r.Error)
	}
}

// montyNotebooks are the corpus/ipython notebooks that stay on Monty.
var montyNotebooks = map[string]bool{"timing.py": true, "namespace.py": true, "values.py": true, "history.py": true, "nested_functions.py": true}

// The corpus/ipython notebooks in auto mode: what Monty can show stays
// there, the rest moves, and every cell shows what IPython showed.
func TestIPythonCorpusAuto(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine and the test image")
	}
	same, all, onMonty, varies := 0, 0, 0, 0
	for _, nb := range kerneltest.IPythonCorpus(t, kerneltest.IPythonCorpusDir("../../corpus/ipython")) {
		ws := t.TempDir()
		cfg := testConfig(func(s *contract.Settings) { s.Timeout = 60 })
		cfg.Workspace, cfg.Dir = ws, ws
		a, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { a.Close() })
		for i, want := range nb.Cells {
			all++
			r := kerneltest.Run(t, a, want.Code)
			if r.Backend == contract.BackendMonty {
				onMonty++
			} else if montyNotebooks[filepath.Base(nb.Path)] {
				t.Errorf("%s cell %d (%s) moved: %+v", filepath.Base(nb.Path), i, want.Title, r.Routing)
			}
			if want.Varies {
				varies++
				continue
			}
			if diff := kerneltest.CompareIPython(want, r); diff != "" {
				t.Errorf("%s cell %d (%s) on %s: %s", filepath.Base(nb.Path), i, want.Title, r.Backend, diff)
				continue
			}
			same++
		}
	}
	t.Logf("cells as IPython shows them: %d of %d (%d ran on Monty; %d not compared: IPython's two recordings differ)", same, all-varies, onMonty, varies)
}

// Two runs of a %time cell agree when only the durations differ.
func TestTimedOutputsAgree(t *testing.T) {
	m := kernel.Result{Status: kernel.StatusOK, Stdout: "CPU times: user 16.1 μs, sys: 0 ns, total: 16.1 μs\nWall time: 116 μs\n4\n"}
	c := kernel.Result{Status: kernel.StatusOK, Stdout: "CPU times: user 3 μs, sys: 1 μs, total: 4 μs\nWall time: 6.44 μs\n4\n"}
	if !sameOutput(m, c) {
		t.Error("timings differ")
	}
	if c.Stdout = strings.TrimSuffix(c.Stdout, "4\n") + "5\n"; sameOutput(m, c) {
		t.Error("the printed value is not compared")
	}
}

// The router's view of an automagic line in a fresh namespace: a magic
// Monty hosts stays, another moves the document, Python stays Python.
func TestAutomagicRule(t *testing.T) {
	for code, want := range map[string]bool{"pwd": false, "who": false, "env": false, "cd sub": true, "ls": true, "history -n": true,
		"tb": true, "automagic off": true, "ls = 1": false, "cd, x = 1, 2": false, "x = 1\nls": false, "print": false} {
		if _, ok := magicRule(unboundAutomagic(code), container.HasLineMagic); ok != want {
			t.Errorf("%q: routed %v", code, ok)
		}
		if got := mayNeedContainer(code, &Capabilities{}, true); want && !got {
			t.Errorf("%q: not predicted to need the container", code)
		}
	}
}

// Automagic in auto mode: the name is looked up in Monty's namespace when
// the cell runs. A bound name keeps Python's meaning on Monty, a hosted
// magic runs there, and another magic moves the document, where the
// container's shell makes the same choice.
func TestAutomagicAuto(t *testing.T) {
	a := newAuto(t)
	for _, c := range []struct{ code, text string }{{"ls = 'mine'", ""}, {"ls", "'mine'"}, {"pwd = 3", ""}, {"pwd", "3"}} {
		r := kerneltest.Run(t, a, c.code)
		if r.Backend != contract.BackendMonty || r.Routing != nil || r.Error != nil || c.text != "" && (r.Value == nil || r.Value.Text != c.text) {
			t.Fatalf("%q: %s %+v %+v %+v", c.code, r.Backend, r.Routing, r.Value, r.Error)
		}
	}
	if r := kerneltest.Run(t, a, "who"); r.Backend != contract.BackendMonty || r.Stdout != "ls\t pwd\t \n" {
		t.Fatalf("who: %s %q %+v", r.Backend, r.Stdout, r.Error)
	}
	r := kerneltest.Run(t, a, "cd -q .")
	if r.Backend != contract.BackendContainer || r.Routing == nil || r.Routing.Rule != "construct:magic" || r.Error != nil {
		t.Fatalf("cd: %s %+v %+v", r.Backend, r.Routing, r.Error)
	}
	if r := kerneltest.Run(t, a, "ls"); r.Value == nil || r.Value.Text != "'mine'" {
		t.Fatalf("ls in the container: %+v %+v", r.Value, r.Error)
	}
}

// %pprint and %env on Monty change settings of the kernel, not names to
// carry: a move runs them again in the container, whose values then show
// as IPython shows them with pretty printing off.
func TestAutoSettingsMoveWithTheDocument(t *testing.T) {
	a := newAuto(t)
	r := kerneltest.Run(t, a, "%pprint")
	if r.Backend != contract.BackendMonty || r.Stdout != "Pretty printing has been turned OFF\n" {
		t.Fatalf("%%pprint: %s %q %+v", r.Backend, r.Stdout, r.Error)
	}
	if r = kerneltest.Run(t, a, "%env GREETING=hi"); r.Backend != contract.BackendMonty || r.Status != kernel.StatusOK {
		t.Fatalf("%%env: %s %+v", r.Backend, r.Error)
	}
	r = kerneltest.Run(t, a, "!true\nimport os\nos.environ.get('GREETING'), list(range(30))")
	if r.Backend != contract.BackendContainer || r.Routing == nil || !r.Routing.Moved {
		t.Fatalf("not moved: %s %+v %+v", r.Backend, r.Routing, r.Error)
	}
	want := "('hi', [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29])"
	if r.Value == nil || r.Value.Text != want {
		t.Errorf("value %+v %+v", r.Value, r.Error)
	}
	if r = kerneltest.Run(t, a, "%pprint"); r.Stdout != "Pretty printing has been turned ON\n" {
		t.Errorf("%%pprint in the container: %q %+v", r.Stdout, r.Error)
	}
}

// After a move, the container files a cell in IPython's history under the
// execution count the document shows, which counts Monty's cells too, and
// holds Monty's cells under theirs.
func TestAutoHistoryNumbersAfterAMove(t *testing.T) {
	a := newAuto(t)
	for _, code := range []string{"1 + 1", "x = 2"} {
		if r := kerneltest.Run(t, a, code); r.Backend != contract.BackendMonty {
			t.Fatalf("%q ran on %s", code, r.Backend)
		}
	}
	if r := kerneltest.Run(t, a, "!true"); r.Backend != contract.BackendContainer || r.ExecutionCount != 3 {
		t.Fatalf("not moved: %s [%d] %+v", r.Backend, r.ExecutionCount, r.Error)
	}
	if r := kerneltest.Run(t, a, "x * 3"); r.ExecutionCount != 4 || r.Value == nil || r.Value.Text != "6" {
		t.Fatalf("[%d] %+v %+v", r.ExecutionCount, r.Value, r.Error)
	}
	r := kerneltest.Run(t, a, "_4, sorted(Out), In[4], _i4")
	if r.ExecutionCount != 5 || r.Value == nil || r.Value.Text != "(6, [1, 4], 'x * 3', 'x * 3')" {
		t.Errorf("[%d] %+v %+v", r.ExecutionCount, r.Value, r.Error)
	}
}

// %tb after an exception Monty raised shows it, as IPython shows the last
// exception: the container that runs %tb never saw it, and gets it with
// the cell; its frames are then those of an earlier cell. A restart
// forgets it.
func TestAutoTbShowsMontysException(t *testing.T) {
	a := newAuto(t)
	for _, code := range []string{"x = 1", "undefined_name + x", "x + 1"} {
		if r := kerneltest.Run(t, a, code); r.Backend != contract.BackendMonty {
			t.Fatalf("%q ran on %s: %+v", code, r.Backend, r.Routing)
		}
	}
	want := contract.Frame{Name: "<module>", Text: "cell 2:1: undefined_name + x"}
	for range 2 { // the container keeps it as its own last exception
		r := kerneltest.Run(t, a, "%tb")
		if r.Backend != contract.BackendContainer || r.Status != kernel.StatusOK || r.Stderr != "" || r.Error == nil ||
			r.Error.EName != "NameError" || r.Error.EValue != "name 'undefined_name' is not defined" || len(r.Error.Traceback) != 1 || r.Error.Traceback[0] != want {
			t.Fatalf("%%tb on %s: %s %q %+v", r.Backend, r.Status, r.Stderr, r.Error)
		}
	}
	kerneltest.Run(t, a, "1 / 0")
	if r := kerneltest.Run(t, a, "%tb"); r.Error == nil || r.Error.EName != "ZeroDivisionError" {
		t.Fatalf("%%tb after the container's own exception: %+v", r.Error)
	}

	if err := a.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := kerneltest.Run(t, a, "%foo"); r.Backend != contract.BackendMonty || r.Error == nil || r.Error.EName != "UsageError" {
		t.Fatalf("%%foo on %s: %+v", r.Backend, r.Error)
	}
	if r := kerneltest.Run(t, a, "%tb"); r.Backend != contract.BackendContainer || r.Error != nil || r.Stderr != "UsageError: Line magic function `%foo` not found.\n" {
		t.Fatalf("%%tb after Monty's UsageError on %s: %q %+v", r.Backend, r.Stderr, r.Error)
	}
	if err := a.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	kerneltest.Run(t, a, "undefined_name")
	if err := a.Restart(context.Background()); err != nil {
		t.Fatal(err)
	}
	if r := kerneltest.Run(t, a, "%tb"); r.Error != nil || r.Stderr != "No traceback available to show.\n" {
		t.Fatalf("%%tb after a restart: %q %+v", r.Stderr, r.Error)
	}
}

// corpus/ipython/history_move.py, identity_move.py and autoreload_move.py
// on both runtimes: their first cells run on Monty, a shell line moves the
// document, and the history names in the container hold Monty's cells as
// IPython holds them (their values carried or, a function, rebuilt by
// running the cell again), one object under several names carried as one,
// and the extensions Monty loaded are loaded. No container runs beside
// Monty before the move, which then carries the values.
func TestAutoHistoryAcrossAMove(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine and the test image")
	}
	moves := map[string]int{"history_move.py": 5, "identity_move.py": 4, "autoreload_move.py": 12} // the shell line's cell
	var nbs []kerneltest.IPythonNotebook
	for _, n := range kerneltest.IPythonCorpus(t, "../../corpus/ipython") {
		if _, ok := moves[filepath.Base(n.Path)]; ok {
			nbs = append(nbs, n)
		}
	}
	if len(nbs) != len(moves) {
		t.Fatalf("%d of the %d notebooks found", len(nbs), len(moves))
	}
	for _, nb := range nbs {
		for _, rt := range []contract.Runtime{contract.RuntimeRunc, contract.RuntimeRunsc} {
			t.Run(filepath.Base(nb.Path)+"/"+string(rt), func(t *testing.T) {
				a := newAutoWith(t, func(s *contract.Settings) { s.Timeout, s.Prewarm, s.Container.Runtime = 60, false, rt })
				for i, want := range nb.Cells {
					r := kerneltest.Run(t, a, want.Code)
					if onMonty := r.Backend == contract.BackendMonty; onMonty != (i < moves[filepath.Base(nb.Path)]) {
						t.Fatalf("cell %d (%s) ran on %s: %+v", i, want.Title, r.Backend, r.Routing)
					}
					if diff := kerneltest.CompareIPython(want, r); diff != "" {
						t.Errorf("cell %d (%s) on %s: %s", i, want.Title, r.Backend, diff)
					}
				}
			})
		}
	}
}

// A container that followed Monty by replaying its cells (a check) files
// them in its history too, so the history after a move is the document's
// whether the move carried values or replayed cells.
func TestAutoHistoryAfterAReplay(t *testing.T) {
	for _, rt := range []contract.Runtime{contract.RuntimeRunc, contract.RuntimeRunsc} {
		t.Run(string(rt), func(t *testing.T) {
			a := newAutoWith(t, func(s *contract.Settings) { s.Timeout, s.Container.Runtime = 60, rt })
			steps := []struct {
				code, value string
				check       bool
			}{
				{"x = 1", "", false},
				{"x + 1", "2", false},
				{"raise ValueError('no')", "", true}, // checked: the container replays cells 1 and 2
				{"_2 * 10, _i1, len(In)", "(20, 'x = 1', 5)", false},
			}
			for _, s := range steps {
				r := kerneltest.Run(t, a, s.code)
				if r.Backend != contract.BackendMonty || (r.Routing != nil) != s.check || valueText(r) != s.value {
					t.Fatalf("%q on %s: %q %+v %+v", s.code, r.Backend, valueText(r), r.Routing, r.Error)
				}
			}
			if r := kerneltest.Run(t, a, "!true"); r.Backend != contract.BackendContainer || r.Routing == nil || !r.Routing.Moved {
				t.Fatalf("not moved: %s %+v", r.Backend, r.Routing)
			}
			// As IPython 9.18.1 shows it.
			want := "(2,\n (20, 'x = 1', 5),\n [2, 4],\n \"raise ValueError('no')\",\n '!true',\n (20, 'x = 1', 5),\n 2)"
			r := kerneltest.Run(t, a, "_2, _4, sorted(Out), _i3, _i5, _, __")
			if r.Backend != contract.BackendContainer || valueText(r) != want {
				t.Errorf("got  %s %+v\nwant %s", valueText(r), r.Error, want)
			}
		})
	}
}

// Functions show as IPython shows them: those whose signature the cells
// gave stay on Monty, a nested one too when its name is one def's; a
// nested function whose default is not a literal and a bound method, which
// Monty cannot name, are checked in the container, whose repr is shown.
func TestAutoFunctionReprs(t *testing.T) {
	a := newAuto(t)
	steps := []struct {
		code    string
		backend contract.Backend
		value   string
	}{
		{"class A:\n    def m(self, a=1):\n        return a\nsq = lambda x: x", contract.BackendMonty, ""},
		{"A.m, sq", contract.BackendMonty, "(<function __main__.A.m(self, a=1)>, <function __main__.<lambda>(x)>)"},
		{"def wrap():\n    def kept(y, z=1):\n        return y\n    return kept\n[wrap()]", contract.BackendMonty, "[<function __main__.wrap.<locals>.kept(y, z=1)>]"},
		{"def outer(a):\n    def inner(y, z=a):\n        return y\n    return inner", contract.BackendMonty, ""},
		{"outer(5)", contract.BackendContainer, "<function __main__.outer.<locals>.inner(y, z=5)>"},
	}
	for _, s := range steps {
		if r := kerneltest.Run(t, a, s.code); r.Backend != s.backend || valueText(r) != s.value {
			t.Fatalf("%q on %s: %q %+v %+v", s.code, r.Backend, valueText(r), r.Routing, r.Error)
		}
	}
	r := kerneltest.Run(t, a, "A().m")
	if !regexp.MustCompile(`^<bound method A\.m of <__main__\.A object at 0x[0-9a-f]+>>$`).MatchString(valueText(r)) {
		t.Errorf("A().m on %s: %q %+v", r.Backend, valueText(r), r.Error)
	}
}
