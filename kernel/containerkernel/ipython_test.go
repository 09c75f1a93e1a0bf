package containerkernel

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
	"github.com/backyard-ls/backyard-ls/pysrc/ipysyntax"
)

// Magics, shell escapes and display outputs, as an IPython kernel shows
// them, in both runtimes.
func TestIPythonMagics(t *testing.T) {
	forRuntimes(t, kernel.Limits{}, func(t *testing.T, k *Kernel) {
		ok := func(code string) kernel.Result {
			t.Helper()
			r := kerneltest.Run(t, k, code)
			if r.Status != kernel.StatusOK {
				t.Fatalf("%q: %s %+v\n%s", code, r.Status, r.Error, r.Stderr)
			}
			return r
		}
		r := ok("%time s = sum(range(10))\ns")
		if !regexp.MustCompile(`^CPU times: user \S+ \S+, sys: \S+ \S+, total: \S+ \S+\nWall time: \S+ \S+\n$`).MatchString(r.Stdout) || r.Value == nil || r.Value.Text != "45" {
			t.Errorf("%%time: %q, value %+v", r.Stdout, r.Value)
		}
		r = ok("%%time\nx = 2\nx * 3")
		if !strings.HasPrefix(r.Stdout, "CPU times: ") || r.Value == nil || r.Value.Text != "6" {
			t.Errorf("%%%%time: %q, value %+v", r.Stdout, r.Value)
		}
		r = ok("%timeit -n 2 -r 3 sum(range(50))")
		if !regexp.MustCompile(`^(The slowest run took .*\n)?\S+ \S+ ± \S+ \S+ per loop \(mean ± std\. dev\. of 3 runs, 2 loops each\)\n$`).MatchString(r.Stdout) {
			t.Errorf("%%timeit: %q", r.Stdout)
		}
		r = ok("%%timeit -n 1 -r 1 y = 2\ny * 2")
		if !strings.Contains(r.Stdout, "per loop (mean ± std. dev. of 1 run, 1 loop each)") {
			t.Errorf("%%%%timeit: %q", r.Stdout)
		}
		r = ok("!echo hello $s\nfiles = !printf 'a\\nb\\n'\nprint(files, files.n.upper())")
		if r.Stdout != "hello 45\n['a', 'b'] A\nB\n" {
			t.Errorf("shell: %q", r.Stdout)
		}
		r = ok("%%bash\necho out\necho err >&2")
		if r.Stdout != "out\n" || r.Stderr != "err\n" {
			t.Errorf("%%%%bash: %q %q", r.Stdout, r.Stderr)
		}
		r = ok("for i in range(2):\n    !echo line {i}")
		if r.Stdout != "line 0\nline 1\n" {
			t.Errorf("indented shell line: %q", r.Stdout)
		}
		if r = ok("%pwd"); r.Value == nil || !strings.HasPrefix(r.Value.Text, "'/") {
			t.Errorf("%%pwd: %+v", r.Value)
		}
		r = ok("%env GREETING=hi\nimport os\nos.environ['GREETING']")
		if r.Stdout != "env: GREETING=hi\n" || r.Value == nil || r.Value.Text != "'hi'" {
			t.Errorf("%%env: %q %+v", r.Stdout, r.Value)
		}
		r = ok("%precision 3\n1/3")
		if r.Value == nil || r.Value.Text != "0.333" {
			t.Errorf("%%precision: %+v", r.Value)
		}
		ok("%precision")
		for _, accepted := range []string{"%matplotlib inline", "%config InlineBackend.figure_format = 'retina'", "%load_ext autoreload", "%autoreload 2"} {
			if r := ok(accepted); r.Stdout != "" || r.Value != nil {
				t.Errorf("%s printed %q, %+v", accepted, r.Stdout, r.Value)
			}
		}
		if r = ok("%xmode Plain"); r.Stdout != "Exception reporting mode: Plain\n" {
			t.Errorf("%%xmode: %q", r.Stdout)
		}
		if r = ok("%lsmagic"); r.Stdout != "" || r.Value == nil || r.Value.Text != ipysyntax.PyRepr(container.LsMagic("autoreload")) || !strings.Contains(r.Value.Text, "%%timeit") || !strings.Contains(r.Value.Text, "%%python3") {
			t.Errorf("%%lsmagic: %q %+v", r.Stdout, r.Value)
		}
		if r = ok("%xmode Nope"); r.Stdout != "" || !strings.Contains(r.Stderr, "UserWarning: Error changing user exception modes.\nUnrecognized mode in FormattedTB: <Nope>\n") {
			t.Errorf("%%xmode Nope: %q %q", r.Stdout, r.Stderr)
		}
		r = ok("%%capture cap\nprint('hidden')\ndisplay(1)")
		if r.Stdout != "" || len(r.Displays) != 0 {
			t.Errorf("%%%%capture let out %q %+v", r.Stdout, r.Displays)
		}
		if r = ok("cap.stdout, len(cap.outputs)"); r.Value == nil || r.Value.Text != "('hidden\\n', 1)" {
			t.Errorf("captured: %+v", r.Value)
		}
		r = ok("%%writefile notes.txt\nhello\n")
		if r.Stdout != "Writing notes.txt\n" {
			t.Errorf("%%%%writefile: %q", r.Stdout)
		}
		if r = ok("open('notes.txt').read()"); r.Value == nil || r.Value.Text != "'hello\\n'" {
			t.Errorf("written: %+v", r.Value)
		}
		if r = ok("%who"); !strings.Contains(r.Stdout, "cap\t") || !strings.Contains(r.Stdout, "files\t") || strings.Contains(r.Stdout, "get_ipython") {
			t.Errorf("%%who: %q", r.Stdout)
		}
		if r = ok("%whos"); !strings.HasPrefix(r.Stdout, "Variable   Type") || !regexp.MustCompile(`(?m)^s +int +45$`).MatchString(r.Stdout) {
			t.Errorf("%%whos: %q", r.Stdout)
		}
		ok("%reset -f")
		if r = ok("%who"); r.Stdout != "Interactive namespace is empty.\n" {
			t.Errorf("after %%reset -f: %q", r.Stdout)
		}
		r = kerneltest.Run(t, k, "%foo")
		if r.Status != kernel.StatusError || r.Error == nil || r.Error.EName != "UsageError" || r.Error.EValue != "Line magic function `%foo` not found." || len(r.Error.Traceback) != 0 {
			t.Errorf("unknown magic: %s %+v", r.Status, r.Error)
		}
		if r = ok("len?"); r.Stdout != "Signature: len(obj, /)\nDocstring: Return the number of items in a container.\nType:      builtin_function_or_method\n" {
			t.Errorf("help: %q", r.Stdout)
		}
	})
}

// display(), IPython.display and the display record, in order.
func TestIPythonDisplay(t *testing.T) {
	forRuntimes(t, kernel.Limits{}, func(t *testing.T, k *Kernel) {
		r := kerneltest.Run(t, k, `print("a")
display(1, "two")
from IPython.display import Markdown, HTML, JSON, SVG, Latex, Pretty, Code, Image, update_display, clear_output
h = display(Markdown("**hi**"), display_id=True)
h.update(Markdown("**bye**"))
display(JSON({"k": [1, 2]}))
class Table:
    def _repr_html_(self):
        return "<table></table>"
display(Table())
HTML("<b>x</b>")`)
		if r.Status != kernel.StatusOK {
			t.Fatalf("%s %+v", r.Status, r.Error)
		}
		if len(r.Displays) != 5 {
			t.Fatalf("displays %+v", r.Displays)
		}
		d := r.Displays
		if d[0].Data["text/plain"] != "1" || d[1].Data["text/plain"] != "'two'" {
			t.Errorf("plain displays %+v", d[:2])
		}
		if d[2].Data["text/markdown"] != "**bye**" || d[2].DisplayID == "" || d[2].Data["text/plain"] != "<IPython.core.display.Markdown object>" {
			t.Errorf("updated display %+v", d[2])
		}
		if d[3].Data["application/json"] != `{"k": [1, 2]}` || !strings.Contains(string(d[3].Metadata), `"expanded"`) {
			t.Errorf("JSON display %+v", d[3])
		}
		if d[4].Data["text/html"] != "<table></table>" {
			t.Errorf("_repr_html_ display %+v", d[4])
		}
		if r.Value == nil || r.Value.MIME["text/html"] != "<b>x</b>" {
			t.Errorf("value %+v", r.Value)
		}
		r = kerneltest.Run(t, k, "display(3)\nclear_output()\ndisplay(4)")
		if len(r.Displays) != 1 || r.Displays[0].Data["text/plain"] != "4" {
			t.Errorf("clear_output: %+v", r.Displays)
		}
		r = kerneltest.Run(t, k, "from IPython.display import Image\ndisplay(Image(data=b'\\x89PNG', format='png', width=10))")
		if len(r.Displays) != 1 || r.Displays[0].Data["image/png"] != "iVBORw==" || string(r.Displays[0].Metadata) != `{"width":10}` {
			t.Errorf("image: %+v %+v", r.Displays, r.Error)
		}
		// The corpus records no metadata: %%html --isolated's is checked here.
		r = kerneltest.Run(t, k, "%%html --isolated\n<b>i</b>")
		if len(r.Displays) != 1 || r.Displays[0].Data["text/html"] != "<b>i</b>" || string(r.Displays[0].Metadata) != `{"text/html":{"isolated":true}}` {
			t.Errorf("%%%%html --isolated: %+v %+v", r.Displays, r.Error)
		}
	})
}

// Where the image has IPython, its modules are used, and its display
// functions and get_ipython are the kernel's (an installed IPython stands
// in here: a package beside the notebook).
func TestInstalledIPythonPublishesHere(t *testing.T) {
	ws := t.TempDir()
	pkg := filepath.Join(ws, "IPython")
	for name, src := range map[string]string{
		"__init__.py":        "from IPython.core.getipython import get_ipython\nINSTALLED = True\n",
		"core/__init__.py":   "",
		"core/getipython.py": "def get_ipython():\n    return None\n",
		"display.py":         "def display(*objs, **kw):\n    print('not the kernel')\nclass Markdown:\n    def __init__(self, data):\n        self.data = data\n    def _repr_markdown_(self):\n        return self.data\n",
	} {
		p := filepath.Join(pkg, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	k := newContainerKernel(t, container.RuntimeRunc, kernel.Limits{}, filesOptions(ws, ws, contract.FilesSandbox))
	r := kerneltest.Run(t, k, "import IPython\nfrom IPython.display import display, Markdown\ndisplay(Markdown('m'))\nIPython.INSTALLED, IPython.get_ipython() is get_ipython()")
	if r.Status != kernel.StatusOK || r.Stdout != "" || len(r.Displays) != 1 || r.Displays[0].Data["text/markdown"] != "m" || r.Value == nil || r.Value.Text != "(True, True)" {
		t.Fatalf("%s %q %+v %+v %+v", r.Status, r.Stdout, r.Displays, r.Value, r.Error)
	}
}

// A display's data over the output limit is left out, as a value's is.
func TestDisplayOverTheOutputLimit(t *testing.T) {
	k := newContainerKernel(t, container.RuntimeRunc, kernel.Limits{MaxOutputBytes: 1000})
	r := kerneltest.Run(t, k, "from IPython.display import HTML\ndisplay(HTML('x' * 5000))")
	if r.Status != kernel.StatusOK || len(r.Displays) != 1 {
		t.Fatalf("%s %+v %+v", r.Status, r.Displays, r.Error)
	}
	d := r.Displays[0].Data
	if _, ok := d["text/html"]; ok || !strings.Contains(d["text/plain"], "its text/html data (5000 bytes) is over the 1000-byte output limit") {
		t.Fatalf("%+v", d)
	}
}

// Magics registered with IPython's decorators, and %%html / %%markdown.
func TestCustomMagics(t *testing.T) {
	k := newContainerKernel(t, container.RuntimeRunc, kernel.Limits{})
	r := kerneltest.Run(t, k, "from IPython.core.magic import register_line_magic, register_cell_magic\n"+
		"@register_line_magic\ndef shout(line):\n    return line.upper()\n"+
		"@register_cell_magic('count')\ndef count_lines(line, cell):\n    print(line, len(cell.splitlines()))\n")
	if r.Status != kernel.StatusOK {
		t.Fatalf("%+v", r.Error)
	}
	if r = kerneltest.Run(t, k, "%shout hello"); r.Value == nil || r.Value.Text != "'HELLO'" {
		t.Errorf("line magic: %+v %+v", r.Value, r.Error)
	}
	if r = kerneltest.Run(t, k, "%%count lines\na\nb\n"); r.Stdout != "lines 2\n" {
		t.Errorf("cell magic: %q %+v", r.Stdout, r.Error)
	}
	if r = kerneltest.Run(t, k, "%%html\n<b>h</b>\n"); len(r.Displays) != 1 || r.Displays[0].Data["text/html"] != "<b>h</b>\n" {
		t.Errorf("%%%%html: %+v", r.Displays)
	}
}

// %run runs a file in a fresh namespace and keeps its names; %cd moves.
func TestRunAndCdMagics(t *testing.T) {
	ws := t.TempDir()
	if err := os.MkdirAll(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "sub", "script.py"), []byte("import sys\nresult = 6 * 7\nprint('ran', __name__, sys.argv[1:])\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	k := newContainerKernel(t, container.RuntimeRunc, kernel.Limits{}, filesOptions(ws, ws, contract.FilesSandbox))
	if r := kerneltest.Run(t, k, "%run sub/script.py a b\nresult"); r.Stdout != "ran __main__ ['a', 'b']\n" || r.Value == nil || r.Value.Text != "42" {
		t.Fatalf("%%run: %q %+v %+v", r.Stdout, r.Value, r.Error)
	}
	if r := kerneltest.Run(t, k, "%cd sub"); r.Stdout != filepath.Join(ws, "sub")+"\n" {
		t.Fatalf("%%cd: %q %+v", r.Stdout, r.Error)
	}
	if r := kerneltest.Run(t, k, "import os\nsorted(os.listdir('.'))"); r.Value == nil || r.Value.Text != "['script.py']" {
		t.Fatalf("after %%cd: %+v %+v", r.Value, r.Error)
	}
}

// IPython's output history: _, __, _N, Out, and the input history: In,
// _i, _iN; none of it is a variable.
func TestOutputHistory(t *testing.T) {
	k := newContainerKernel(t, container.RuntimeRunc, kernel.Limits{})
	kerneltest.Run(t, k, "1 + 1")
	kerneltest.Run(t, k, "x = 5")
	kerneltest.Run(t, k, "'three'")
	r := kerneltest.Run(t, k, "_, __, _1, Out[3], In[2], _i, _i4 == In[4], len(In)")
	if r.Value == nil || r.Value.Text != "('three', 2, 2, 'three', 'x = 5', \"'three'\", True, 5)" {
		t.Fatalf("%+v %+v", r.Value, r.Error)
	}
	if r := kerneltest.Run(t, k, "%history -n 2-3"); r.Stdout != "   2: x = 5\n   3: 'three'\n" {
		t.Errorf("%%history: %q", r.Stdout)
	}
	for name := range kerneltest.Variables(t, k) {
		if name != "x" {
			t.Errorf("variable %s is listed", name)
		}
	}
}

// plt.show() shows each open figure as a display output, as IPython's
// inline backend does, and closes it.
func TestPyplotShowDisplays(t *testing.T) {
	k := newContainerKernel(t, container.RuntimeRunc, kernel.Limits{})
	r := kerneltest.Run(t, k, "%matplotlib inline\nimport matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()\nlen(plt.get_fignums())")
	if r.Status != kernel.StatusOK || len(r.Displays) != 1 || r.Displays[0].Data["image/png"] == "" ||
		r.Displays[0].Data["text/plain"] != "<Figure size 640x480 with 1 Axes>" || r.Value == nil || r.Value.Text != "0" {
		t.Fatalf("%s %+v %+v %+v", r.Status, r.Displays, r.Value, r.Error)
	}
	if r := kerneltest.Run(t, k, "import inspect\nlen(inspect.getsource(plt)) > 0"); r.Value == nil || r.Value.Text != "True" {
		t.Fatalf("pyplot's source: %+v %+v", r.Value, r.Error)
	}
}

// Figures left open at a cell's end are display outputs after its value, as
// IPython's inline backend flushes them, and are closed; pyplot imported
// after IPython registers its callback on the shell's events.
func TestOpenFiguresAtCellEnd(t *testing.T) {
	k := newContainerKernel(t, container.RuntimeRunc, kernel.Limits{})
	r := kerneltest.Run(t, k, "from IPython.display import HTML\nimport matplotlib.pyplot as plt\nplt.plot([1, 2]); len(plt.get_fignums())")
	if r.Status != kernel.StatusOK || len(r.Displays) != 1 || r.Displays[0].Data["image/png"] == "" ||
		r.Displays[0].Data["text/plain"] != "<Figure size 640x480 with 1 Axes>" || r.Value == nil || r.Value.Text != "1" {
		t.Fatalf("%s %+v %+v %+v", r.Status, r.Displays, r.Value, r.Error)
	}
	r = kerneltest.Run(t, k, "fig, axes = plt.subplots(1, 2)\nlen(plt.get_fignums())")
	if len(r.Displays) != 1 || r.Displays[0].Data["text/plain"] != "<Figure size 640x480 with 2 Axes>" || r.Value == nil || r.Value.Text != "1" {
		t.Fatalf("%s %+v %+v %+v", r.Status, r.Displays, r.Value, r.Error)
	}
	r = kerneltest.Run(t, k, "n = 0\nget_ipython().events.register('post_execute', lambda: print('after', len(plt.get_fignums())))\nlen(plt.get_fignums())")
	if len(r.Displays) != 0 || r.Value == nil || r.Value.Text != "0" || r.Stdout != "after 0\n" {
		t.Fatalf("%s %+v %+v %q %+v", r.Status, r.Displays, r.Value, r.Stdout, r.Error)
	}
}

// A cell that raised still runs IPython's post_execute: the inline backend
// shows the figures it left open (and closes them), the shell's callbacks
// run; a replayed (silent) cell that raised shows none.
func TestFiguresOfACellThatRaised(t *testing.T) {
	forRuntimes(t, kernel.Limits{}, func(t *testing.T, k *Kernel) {
		kerneltest.Run(t, k, "import matplotlib.pyplot as plt\nget_ipython().events.register('post_execute', lambda: print('after'))")
		r := kerneltest.Run(t, k, "plt.plot([1, 2])\nprint('before')\n1 / 0")
		if r.Status != kernel.StatusError || r.Error.EName != "ZeroDivisionError" || len(r.Displays) != 1 || r.Displays[0].Data["image/png"] == "" || r.Stdout != "before\nafter\n" {
			t.Fatalf("%s %+v %q %+v", r.Status, r.Displays, r.Stdout, r.Error)
		}
		if r := kerneltest.Run(t, k, "len(plt.get_fignums())"); r.Value == nil || r.Value.Text != "0" {
			t.Fatalf("left open: %+v", r.Value)
		}
		r, err := k.Execute(context.Background(), kernel.Request{Code: "plt.plot([1])\nraise ValueError('x')", Silent: true})
		if err != nil || r.Status != kernel.StatusError || len(r.Displays) != 0 || r.Stdout != "" {
			t.Fatalf("silent: %v %s %+v %q", err, r.Status, r.Displays, r.Stdout)
		}
		if r := kerneltest.Run(t, k, "len(plt.get_fignums())"); r.Value == nil || r.Value.Text != "0" {
			t.Fatalf("left open after a silent cell: %+v", r.Value)
		}
	})
}

// %config InlineBackend.figure_format(s) picks the figures' MIME types as
// IPython's inline backend does: retina is a PNG at twice the dpi with its
// size in the metadata, svg is text; an unsupported format is refused with
// a logged error and the cell goes on.
func TestInlineFigureFormats(t *testing.T) {
	forRuntimes(t, kernel.Limits{}, func(t *testing.T, k *Kernel) {
		kerneltest.Run(t, k, "import matplotlib.pyplot as plt")
		r := kerneltest.Run(t, k, "%config InlineBackend.figure_format = 'retina'\nplt.figure(figsize=(2, 1)).add_subplot().plot([1, 2]); plt.show()")
		if len(r.Displays) != 1 || r.Displays[0].Data["image/png"] == "" || !regexp.MustCompile(`^\{"image/png":\{"width":\d+,"height":\d+\}\}$`).Match(r.Displays[0].Metadata) {
			t.Fatalf("retina: %+v %+v", r.Displays, r.Error)
		}
		r = kerneltest.Run(t, k, "%config InlineBackend.figure_format = 'svg'\nplt.plot([1, 2]);")
		if len(r.Displays) != 1 || !strings.Contains(r.Displays[0].Data["image/svg+xml"], "<svg") || r.Displays[0].Data["image/png"] != "" {
			t.Fatalf("svg: %+v %+v", r.Displays, r.Error)
		}
		r = kerneltest.Run(t, k, "%config InlineBackend.figure_format = 'gif'\nprint('on')")
		if r.Status != kernel.StatusOK || r.Stdout != "on\n" || !strings.HasPrefix(r.Stderr, "ERROR:root:supported formats are: ") {
			t.Fatalf("gif: %s %q %q", r.Status, r.Stdout, r.Stderr)
		}
	})
}

// A display's place among the streams: the bytes of stdout and stderr
// printed before it, and whether it came after the value.
func TestDisplayPlaceAmongStreams(t *testing.T) {
	k := newContainerKernel(t, container.RuntimeRunc, kernel.Limits{})
	r := kerneltest.Run(t, k, "import sys\nprint('héllo')\ndisplay(1)\nprint('err', file=sys.stderr)\nprint('more')\ndisplay(2)\nimport matplotlib.pyplot as plt\nplt.plot([1]); 3")
	if r.Status != kernel.StatusOK || len(r.Displays) != 3 {
		t.Fatalf("%s %+v %+v", r.Status, r.Displays, r.Error)
	}
	type place struct {
		out, err int
		after    bool
	}
	var got []place
	for _, d := range r.Displays {
		got = append(got, place{d.StdoutBefore, d.StderrBefore, d.AfterResult})
	}
	want := []place{{len("héllo\n"), 0, false}, {len("héllo\nmore\n"), len("err\n"), false}, {len("héllo\nmore\n"), len("err\n"), true}}
	if !slices.Equal(got, want) {
		t.Fatalf("places %+v, want %+v", got, want)
	}
}

// %pip install runs at its line, as in IPython: output before it comes
// first, a cell that raised before it installs nothing; under autoInstall
// "off" it says how to turn installs on. %pip list runs pip in the kernel
// (it only reads).
func TestPipMagicUnderPolicyOff(t *testing.T) {
	forRuntimes(t, kernel.Limits{}, func(t *testing.T, k *Kernel) {
		var order streamed
		r, err := k.Execute(context.Background(), kernel.Request{Code: "print('a')\n%pip install -q no_such_dist_xyz\nprint('b')", OnOutput: order.add})
		const off = "[backyard: %pip install's packages are not installed (no_such_dist_xyz): set backyard.autoInstall to \"ask\" or \"on\"]\n"
		if err != nil || r.Status != kernel.StatusOK || r.Stdout != "a\n"+pipNote+"b\n" || r.Stderr != off {
			t.Fatalf("%v %s %q %q %+v", err, r.Status, r.Stdout, r.Stderr, r.Error)
		}
		if want := (streamed{"stdout:a\n", "stderr:" + off, "stdout:" + pipNote + "b\n"}); !slices.Equal(order, want) {
			t.Fatalf("streamed %q, want %q", order, want)
		}
		if r := kerneltest.Run(t, k, "1 / 0\n%pip install -q other_dist_xyz"); r.Error == nil || r.Error.EName != "ZeroDivisionError" || r.Stderr != "" || r.Stdout != "" {
			t.Fatalf("%%pip after an error: %q %q %+v", r.Stdout, r.Stderr, r.Error)
		}
		if r := kerneltest.Run(t, k, "%pip list"); r.Status != kernel.StatusOK || !strings.Contains(r.Stdout, "numpy") || !strings.HasSuffix(r.Stdout, pipNote) {
			t.Fatalf("%%pip list: %q %q", r.Stdout, r.Stderr)
		}
		if r := kerneltest.Run(t, k, "%pip uninstall -y numpy"); r.Error == nil || r.Error.EName != "UsageError" {
			t.Fatalf("%%pip uninstall: %+v", r.Error)
		}
	})
}

// IPython's %pip and %uv print it after the command.
const pipNote = "Note: you may need to restart the kernel to use updated packages.\n"

// streamed is a cell's output as it came, one entry per run of one stream.
type streamed []string

func (s *streamed) add(st kernel.Stream, text string) {
	if n := len(*s); n > 0 && strings.HasPrefix((*s)[n-1], string(st)+":") {
		(*s)[n-1] += text
		return
	}
	*s = append(*s, string(st)+":"+text)
}

// An interrupt stops a shell line's command; the kernel goes on.
func TestInterruptShellLine(t *testing.T) {
	k := newContainerKernel(t, container.RuntimeRunc, kernel.Limits{})
	var once sync.Once
	r, err := k.Execute(context.Background(), kernel.Request{Code: "!echo started; sleep 60", OnOutput: func(_ kernel.Stream, text string) {
		if strings.Contains(text, "started") {
			once.Do(func() { go k.Interrupt() })
		}
	}})
	if err != nil || r.Status != kernel.StatusInterrupted || r.Error == nil || r.Error.EName != "KeyboardInterrupt" {
		t.Fatalf("%v %s %+v", err, r.Status, r.Error)
	}
	if r := kerneltest.Run(t, k, "!echo after\n_exit_code"); r.Stdout != "after\n" || r.Value == nil || r.Value.Text != "0" {
		t.Fatalf("%q %+v %+v", r.Stdout, r.Value, r.Error)
	}
}

// An interrupt stops a %%script cell's program as IPython 9 does (SIGINT,
// then SIGTERM, then SIGKILL), which then ends as its failure; the kernel
// goes on.
func TestInterruptScriptCell(t *testing.T) {
	k := newContainerKernel(t, container.RuntimeRunc, kernel.Limits{})
	var once sync.Once
	r, err := k.Execute(context.Background(), kernel.Request{Code: "%%bash\necho started\nsleep 60", OnOutput: func(_ kernel.Stream, text string) {
		if strings.Contains(text, "started") {
			once.Do(func() { go k.Interrupt() })
		}
	}})
	if err != nil || r.Error == nil || r.Error.EName != "CalledProcessError" || !regexp.MustCompile(`(?m)^Process was (interrupted|terminated|killed)\.$`).MatchString(r.Stdout) {
		t.Fatalf("%v %s %q %+v", err, r.Status, r.Stdout, r.Error)
	}
	if r := kerneltest.Run(t, k, "%%bash\necho after"); r.Stdout != "after\n" || r.Error != nil {
		t.Fatalf("%q %+v", r.Stdout, r.Error)
	}
}

// %pdb on as a kernel whose front end sends no input shows it: a later
// cell's exception starts the debugger, which shows its place (as %debug)
// and then meets the prompt's error, raised while handling the cell's.
func TestIPythonPdbWithoutStdin(t *testing.T) {
	forRuntimes(t, kernel.Limits{}, func(t *testing.T, k *Kernel) {
		if r := kerneltest.Run(t, k, "%pdb on"); r.Stdout != "Automatic pdb calling has been turned ON\n" {
			t.Fatalf("%q %+v", r.Stdout, r.Error)
		}
		r := kerneltest.Run(t, k, "def g(x):\n    return 1 / x\ng(0)")
		if r.Error == nil || r.Error.EName != "StdinNotImplementedError" || r.Error.EValue != "raw_input was called, but this frontend does not support input requests." ||
			r.Error.Context == nil || r.Error.Context.EName != "ZeroDivisionError" ||
			!regexp.MustCompile(`^> \S+\(2\)g\(\)\n      1 def g\(x\):\n----> 2     return 1 / x\n      3 g\(0\)\n\n$`).MatchString(r.Stdout) {
			t.Errorf("an error with %%pdb on: %q %+v", r.Stdout, r.Error)
		}
		if r = kerneltest.Run(t, k, "%pdb off\ng(0)"); r.Stdout != "Automatic pdb calling has been turned OFF\n" || r.Error == nil || r.Error.EName != "ZeroDivisionError" {
			t.Errorf("an error with %%pdb off: %q %+v", r.Stdout, r.Error)
		}
	})
}

// %edit as ipykernel answers it: no editor, a payload naming the file to
// open; a function defined in a cell is in that cell's file (ipykernel
// keeps each cell in a file), a string or no argument in a temporary file
// IPython names.
func TestIPythonEditPayload(t *testing.T) {
	forRuntimes(t, kernel.Limits{}, func(t *testing.T, k *Kernel) {
		edit := func(code string) (file string, line any, stdout string) {
			t.Helper()
			r := kerneltest.Run(t, k, code)
			if r.Error != nil || len(r.Displays) != 1 {
				t.Fatalf("%q: %+v %+v", code, r.Error, r.Displays)
			}
			var meta struct {
				Payload struct {
					Source     string `json:"source"`
					Filename   string `json:"filename"`
					LineNumber any    `json:"line_number"`
				} `json:"payload"`
			}
			if err := json.Unmarshal(r.Displays[0].Metadata, &meta); err != nil || meta.Payload.Source != "edit_magic" {
				t.Fatalf("%q: %v %s", code, err, r.Displays[0].Metadata)
			}
			return meta.Payload.Filename, meta.Payload.LineNumber, r.Stdout
		}
		kerneltest.Run(t, k, "def f():\n    return 1")
		file, line, _ := edit("%edit f")
		if r := kerneltest.Run(t, k, "print(open("+ipysyntax.PyRepr(file)+").read())"); line != float64(1) || r.Stdout != "def f():\n    return 1\n" {
			t.Errorf("%%edit f: %s line %v: %q", file, line, r.Stdout)
		}
		file, line, stdout := edit("%ed")
		if line != nil || stdout != "IPython will make a temporary file named: "+file+"\n" {
			t.Errorf("%%ed: %s line %v: %q", file, line, stdout)
		}
	})
}

// %tb and %debug as a kernel whose front end sends no input shows them:
// the last exception again (an error output), the debugger's place and then the error its
// prompt meets (post mortem), or its note and place with that error printed
// (a statement, which does not run).
func TestIPythonDebuggerWithoutStdin(t *testing.T) {
	forRuntimes(t, kernel.Limits{}, func(t *testing.T, k *Kernel) {
		const noStdin = "raw_input was called, but this frontend does not support input requests."
		r := kerneltest.Run(t, k, "%tb")
		if r.Status != kernel.StatusOK || r.Stderr != "No traceback available to show.\n" {
			t.Errorf("%%tb first: %s %q %q", r.Status, r.Stdout, r.Stderr)
		}
		if r = kerneltest.Run(t, k, "def g(x):\n    return 1 / x\ng(0)"); r.Error == nil || r.Error.EName != "ZeroDivisionError" {
			t.Fatalf("g(0): %+v", r.Error)
		}
		for _, code := range []string{"%tb", "tb", "print('a')\n%tb"} {
			// An error output beside an ok status, as IPython's kernel sends it.
			r = kerneltest.Run(t, k, code)
			if r.Status != kernel.StatusOK || r.Error == nil || r.Error.EName != "ZeroDivisionError" || r.Error.EValue != "division by zero" ||
				!slices.ContainsFunc(r.Error.Traceback, func(f contract.Frame) bool { return strings.HasSuffix(f.Text, "return 1 / x") }) ||
				slices.ContainsFunc(r.Error.Traceback, func(f contract.Frame) bool { return f.File == "<string>" }) {
				t.Errorf("%q: %s %q %+v", code, r.Status, r.Stdout, r.Error)
			}
		}
		r = kerneltest.Run(t, k, "%debug")
		if r.Error == nil || r.Error.EName != "StdinNotImplementedError" || r.Error.EValue != noStdin ||
			!regexp.MustCompile(`^> \S+\(2\)g\(\)\n      1 def g\(x\):\n----> 2     return 1 / x\n      3 g\(0\)\n\n$`).MatchString(r.Stdout) {
			t.Errorf("%%debug: %q %+v", r.Stdout, r.Error)
		}
		for code, line := range map[string]string{"%debug y = 2": "1", "%%debug\n# a comment\ny = 3": "2"} {
			r = kerneltest.Run(t, k, code)
			if r.Status != kernel.StatusOK || !strings.HasPrefix(r.Stdout, "NOTE: Enter 'c' at the ipdb>  prompt to continue execution.\n> <string>("+line+")<module>()\n\n") ||
				!strings.HasSuffix(r.Stdout, "StdinNotImplementedError: "+noStdin+"\n") {
				t.Errorf("%q: %s %q", code, r.Status, r.Stdout)
			}
		}
		if r = kerneltest.Run(t, k, "y"); r.Error == nil || r.Error.EName != "NameError" {
			t.Errorf("the debugged statement ran: %+v", r)
		}
	})
}
