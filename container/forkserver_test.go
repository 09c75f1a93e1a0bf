package container

import (
	"context"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
)

func startForkServer(t *testing.T, e *Engine, runtime string, preload ...string) *ForkServer {
	t.Helper()
	cfg := Config{Pull: PullNever, ContainerSettings: contract.ContainerSettings{Image: testImage(), Runtime: contract.Runtime(runtime)}}
	f, err := e.StartForkServer(context.Background(), cfg, preload)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func runSnippet(t *testing.T, f *ForkServer, sn Snippet) SnippetResult {
	t.Helper()
	if sn.Timeout == 0 {
		sn.Timeout = 10 * time.Second
	}
	r, err := f.Run(context.Background(), sn)
	if err != nil {
		t.Fatalf("%q: %v", sn.Code, err)
	}
	return r
}

func snippetValue(r SnippetResult) string {
	if r.Value == nil {
		return "<none>"
	}
	return r.Value.Text
}

// Snippets run like a fresh IPython cell each: value, streams, input()
// from the given lines, files in the working directory, tracebacks with
// the snippet's lines, the preloaded module at hand.
func TestForkServerRunsSnippets(t *testing.T) {
	e := requireEngine(t)
	for _, rt := range []string{RuntimeRunc, RuntimeRunsc} {
		t.Run(rt, func(t *testing.T) {
			f := startForkServer(t, e, rt, "numpy")
			if f.Runtime().Name != rt {
				t.Fatalf("runtime %+v", f.Runtime())
			}
			r := runSnippet(t, f, Snippet{Code: "import numpy as np; print(np.arange(10).sum())"})
			if r.Status != "ok" || r.Stdout != "45\n" || r.Value != nil {
				t.Fatalf("%+v", r)
			}
			r = runSnippet(t, f, Snippet{Code: "import sys\nprint('out')\nprint('err', file=sys.stderr)\n6 * 7"})
			if r.Status != "ok" || r.Stdout != "out\n" || r.Stderr != "err\n" || snippetValue(r) != "42" {
				t.Fatalf("%+v", r)
			}
			if r := runSnippet(t, f, Snippet{Code: "1 + 1;"}); r.Value != nil {
				t.Fatalf("a trailing semicolon hides the value: %+v", r.Value)
			}
			r = runSnippet(t, f, Snippet{Code: "name = input('name? ')\nage = input()\nname, age", Inputs: []string{"Ada", "36"}})
			if r.Stdout != "name? " || snippetValue(r) != "('Ada', '36')" {
				t.Fatalf("%+v %v", r, r.Error)
			}
			r = runSnippet(t, f, Snippet{Code: "input()"})
			if r.Status != "error" || r.Error.EName != "EOFError" {
				t.Fatalf("no inputs: %+v", r)
			}
			r = runSnippet(t, f, Snippet{Code: "import os\nprint(sorted(os.listdir('.')))\nopen('data/in.csv').read()", Files: map[string]string{"data/in.csv": "a,b\n1,2\n", "notes.txt": "hi"}})
			if r.Stdout != "['data', 'notes.txt']\n" || snippetValue(r) != `'a,b\n1,2\n'` {
				t.Fatalf("%+v %v", r, r.Error)
			}
			r = runSnippet(t, f, Snippet{Code: "def f(n):\n    return 10 / n\n\nf(0)"})
			if r.Status != "error" || r.Error.EName != "ZeroDivisionError" || len(r.Error.Traceback) != 2 ||
				r.Error.Traceback[0].Line != 4 || r.Error.Traceback[1].Line != 2 || r.Error.Traceback[1].Text != "return 10 / n" {
				t.Fatalf("%+v", r.Error)
			}
			// The whole exception, as a kernel reports it: cause, notes,
			// group members, spans.
			r = runSnippet(t, f, Snippet{Code: "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    err = ValueError('bad')\n    err.add_note('scoring')\n    raise err from e\n"})
			if r.Status != "error" || r.Error.EName != "ValueError" || len(r.Error.Notes) != 1 || r.Error.Notes[0] != "scoring" ||
				r.Error.Cause == nil || r.Error.Cause.EName != "ZeroDivisionError" || len(r.Error.Cause.Traceback) != 1 || r.Error.Cause.Traceback[0].Line != 2 {
				t.Fatalf("%+v", r.Error)
			}
			r = runSnippet(t, f, Snippet{Code: "raise ExceptionGroup('two', [KeyError('k'), TypeError('t')])"})
			if r.Status != "error" || r.Error.EName != "ExceptionGroup" || len(r.Error.Exceptions) != 2 || r.Error.Exceptions[1].EName != "TypeError" {
				t.Fatalf("%+v", r.Error)
			}
			r = runSnippet(t, f, Snippet{Code: "x = 1\nif x\n"})
			if r.Status != "error" || r.Error.EName != "SyntaxError" || r.Error.Traceback[len(r.Error.Traceback)-1].Line != 2 {
				t.Fatalf("%+v", r.Error)
			}
			r = runSnippet(t, f, Snippet{Code: "import asyncio\nawait asyncio.sleep(0)\n'awaited'"})
			if snippetValue(r) != "'awaited'" {
				t.Fatalf("top-level await: %+v %v", r, r.Error)
			}
		})
	}
}

// Nothing one snippet does reaches the next: names, modules it changed,
// files in /tmp and /dev/shm, System V shared memory, processes it left
// running (even in a new session), environment variables, and the random
// state (each snippet draws other numbers, as a fresh interpreter would).
// Nor can a snippet read or trace the fork server to leave something in it.
func TestForkServerSharesNothing(t *testing.T) {
	e := requireEngine(t)
	for _, rt := range []string{RuntimeRunc, RuntimeRunsc} {
		t.Run(rt, func(t *testing.T) {
			f := startForkServer(t, e, rt, "numpy")
			dirty := `
import os, subprocess, json, numpy
leak = 1
json.dumps = None
os.environ['LEAK'] = '1'
open('/tmp/leak', 'w').write('x')
os.makedirs('/tmp/deep/er')
os.chmod('/tmp/deep', 0o500)
open('/dev/shm/leak', 'w').write('x')
subprocess.Popen(['sleep', '1000'])
subprocess.Popen(['sleep', '1000'], start_new_session=True)
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        import time
        time.sleep(1000)
    os._exit(0)
try:
    import ctypes
    libc = ctypes.CDLL(None)
    print('shm', libc.shmget(0x1234, 4096, 0o1600) >= 0)
except OSError:
    pass
print(numpy.random.rand())
`
			r := runSnippet(t, f, Snippet{Code: dirty})
			if r.Status != "ok" {
				t.Fatalf("%+v %v", r, r.Error)
			}
			first := r.Stdout[strings.LastIndexByte(strings.TrimSpace(r.Stdout), '\n')+1:]
			clean := `
import os, json, numpy
seen = []
try:
    leak
    seen.append('name')
except NameError:
    pass
if json.dumps is None: seen.append('module')
if 'LEAK' in os.environ: seen.append('env')
seen += [p for p in ('/tmp/leak', '/tmp/deep', '/dev/shm/leak') if os.path.exists(p)]
procs = [p for p in os.listdir('/proc') if p.isdigit() and int(p) not in (1, os.getpid())]
try:
    open('/proc/1/mem', 'rb').close()
    seen.append('the server can be read')
except OSError:
    pass
import ctypes
if ctypes.CDLL(None).ptrace(16, 1, 0, 0) == 0: seen.append('the server can be traced')
if procs: seen.append('processes %s' % procs)
try:
    import ctypes
    if ctypes.CDLL(None).shmget(0x1234, 0, 0) >= 0: seen.append('shm')
except OSError:
    pass
print(numpy.random.rand())
seen
`
			r = runSnippet(t, f, Snippet{Code: clean})
			if r.Status != "ok" || snippetValue(r) != "[]" {
				t.Fatalf("state leaked: %s %+v %v", snippetValue(r), r, r.Error)
			}
			if r.Stdout == first {
				t.Fatalf("both snippets drew %s from numpy.random", first)
			}
		})
	}
}

// A child that crashes, leaks processes or exceeds its limits gets a
// result that says so, and the next snippet runs as if nothing happened.
func TestForkServerSurvivesBadSnippets(t *testing.T) {
	e := requireEngine(t)
	for _, rt := range []string{RuntimeRunc, RuntimeRunsc} {
		t.Run(rt, func(t *testing.T) {
			f := startForkServer(t, e, rt)
			bad := []struct {
				code, status, ename string
				sn                  Snippet
			}{
				{code: "import os\nos._exit(3)", status: "crashed", ename: "KernelCrashed"},
				{code: "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)", status: "crashed", ename: "KernelCrashed"},
				{code: "import os\nos.close(1); os.close(2); os.close(3)\nos._exit(0)", status: "crashed", ename: "KernelCrashed"},
				{code: "while True:\n    pass", status: "timeout", sn: Snippet{Timeout: time.Second}},
				{code: "import time\nprint('before', flush=True)\ntime.sleep(60)", status: "timeout", sn: Snippet{Timeout: time.Second}},
				{code: "x = bytearray(400 << 20)", status: "error", ename: "MemoryError", sn: Snippet{MemoryBytes: 64 << 20}},
				{code: "print('y' * 3_000_000)", status: "ok", sn: Snippet{MaxOutput: 1000}},
				{code: "import sys\nsys.exit(2)", status: "error", ename: "SystemExit"},
				{code: "def f(): f()\nf()", status: "error", ename: "RecursionError", sn: Snippet{RecursionLimit: 50}},
			}
			if rt == RuntimeRunc {
				// Under gVisor a fork bomb spends the container's pids
				// limit on gVisor's own host processes and stops the
				// sandbox: the batch starts a new one (kernel/containerkernel).
				bad = append(bad, struct {
					code, status, ename string
					sn                  Snippet
				}{code: "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass", status: "timeout", sn: Snippet{Timeout: 2 * time.Second}})
			}
			for _, b := range bad {
				sn := b.sn
				sn.Code = b.code
				r := runSnippet(t, f, sn)
				if r.Status != b.status || b.ename != "" && (r.Error == nil || r.Error.EName != b.ename) {
					t.Fatalf("%q: %+v %+v", b.code, r, r.Error)
				}
				if strings.Contains(b.code, "sleep(60)") && r.Stdout != "before\n" {
					t.Fatalf("output before a timeout is kept: %+v", r)
				}
				if sn.MaxOutput > 0 && (len(r.Stdout) > sn.MaxOutput+8 || len(r.Stdout) <= sn.MaxOutput) {
					t.Fatalf("output cap %d: got %d bytes", sn.MaxOutput, len(r.Stdout))
				}
				after := runSnippet(t, f, Snippet{Code: "import os\n[p for p in os.listdir('/proc') if p.isdigit() and int(p) not in (1, os.getpid())], 2 + 2"})
				if after.Status != "ok" || snippetValue(after) != "([], 4)" {
					t.Fatalf("after %q: %+v %v", b.code, after, after.Error)
				}
			}
			if !f.Alive() {
				t.Fatal("the fork server died")
			}
		})
	}
}

func TestForkServerPreloadFailsClearly(t *testing.T) {
	e := requireEngine(t)
	cfg := Config{Pull: PullNever, ContainerSettings: contract.ContainerSettings{Image: testImage(), Runtime: contract.RuntimeRunc}}
	_, err := e.StartForkServer(context.Background(), cfg, []string{"no_such_module_here"})
	if err == nil || !strings.Contains(err.Error(), "no_such_module_here") || !strings.Contains(err.Error(), "ModuleNotFoundError") {
		t.Fatalf("%v", err)
	}
	if _, err := e.StartForkServer(context.Background(), cfg, []string{"os; import x"}); err == nil || !strings.Contains(err.Error(), "not a module name") {
		t.Fatalf("%v", err)
	}
}

func TestCheckFiles(t *testing.T) {
	for _, bad := range []string{"", "/etc/passwd", "../x", "a/../../x", "a//b", "./a", ".", `a\b`, "a/"} {
		if CheckFiles(map[string]string{bad: ""}) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if err := CheckFiles(map[string]string{"in.csv": "", "data/deep/x.json": ""}); err != nil {
		t.Error(err)
	}
}

// What a program run gets beyond a snippet's lines: its stdin byte for
// byte, files that are not text, files read back after it ended (regular
// files only, never through a symbolic link), how a process that ended
// without a result ended.
func TestForkServerProgramIO(t *testing.T) {
	e := requireEngine(t)
	for _, rt := range []string{RuntimeRunc, RuntimeRunsc} {
		t.Run(rt, func(t *testing.T) {
			f := startForkServer(t, e, rt)
			stdin := "no newline at the end"
			r := runSnippet(t, f, Snippet{Code: "import sys\nsys.stdin.read()", Stdin: &stdin, Inputs: []string{"ignored"}})
			if snippetValue(r) != `'no newline at the end'` {
				t.Fatalf("%+v %v", r, r.Error)
			}
			bin := "\x00\xff\xfe binary"
			r = runSnippet(t, f, Snippet{
				Code:  "import os\nos.symlink('/etc/hostname', 'link.txt')\nos.mkfifo('fifo')\nos.makedirs('out')\nopen('out/x.bin', 'wb').write(open('in.bin', 'rb').read() * 2)\nlen(open('in.bin', 'rb').read())",
				Files: map[string]string{"in.bin": bin}, Fetch: []string{"out/x.bin", "in.bin", "link.txt", "fifo", "out", "missing"},
			})
			if snippetValue(r) != "10" || len(r.Fetched) != 2 || r.Fetched["out/x.bin"] != bin+bin || r.Fetched["in.bin"] != bin {
				t.Fatalf("%+v %v %q", r, r.Error, r.Fetched)
			}
			r = runSnippet(t, f, Snippet{Code: "print('x')", Fetch: []string{"big.txt"}, FetchMax: 10, Files: map[string]string{"big.txt": strings.Repeat("y", 11)}})
			if len(r.Fetched) != 0 {
				t.Fatalf("over FetchMax: %q", r.Fetched)
			}
			r = runSnippet(t, f, Snippet{Code: "import os\nos._exit(7)"})
			if r.Status != "crashed" || r.ExitCode == nil || *r.ExitCode != 7 || r.Signal != 0 {
				t.Fatalf("%+v", r)
			}
			r = runSnippet(t, f, Snippet{Code: "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"})
			if r.Status != "crashed" || r.ExitCode != nil || r.Signal != 9 || r.OOMKilled {
				t.Fatalf("%+v", r)
			}
		})
	}
}

// Import brings modules into the server between snippets, as a preload
// would: the next snippets find them loaded. A module that does not
// import is reported and the server goes on.
func TestForkServerImport(t *testing.T) {
	e := requireEngine(t)
	f := startForkServer(t, e, RuntimeRunc)
	r := runSnippet(t, f, Snippet{Code: "import sys\n'numpy' in sys.modules"})
	if snippetValue(r) != "False" {
		t.Fatalf("%+v", r)
	}
	got, err := f.Import(context.Background(), []string{"numpy", "no_such_module_here"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Modules) != 1 || got.Modules[0] != "numpy" || !strings.Contains(got.Failed["no_such_module_here"], "ModuleNotFoundError") || got.Threads != 1 || got.RSS <= 0 {
		t.Fatalf("%+v", got)
	}
	r = runSnippet(t, f, Snippet{Code: "import sys\n'numpy' in sys.modules, __import__('numpy').arange(3).sum()"})
	if snippetValue(r) != "(True, np.int64(3))" && snippetValue(r) != "(True, 3)" {
		t.Fatalf("%+v %v", r, r.Error)
	}
	if _, err := f.Import(context.Background(), []string{"os; import x"}); err == nil {
		t.Fatal("a module name that is not one was sent")
	}
	got, err = f.Import(context.Background(), []string{"threading"})
	if err != nil || got.Threads != 1 {
		t.Fatalf("%+v %v", got, err)
	}
}

// A program shows no value: its trailing expression is evaluated, its
// repr never computed (a __repr__ that raises is no error).
func TestForkServerProgram(t *testing.T) {
	e := requireEngine(t)
	f := startForkServer(t, e, RuntimeRunc)
	code := "class A:\n    def __repr__(self):\n        raise ValueError('no repr')\nprint('ran')\nA()"
	if r := runSnippet(t, f, Snippet{Code: code, Program: true}); r.Status != "ok" || r.Value != nil || r.Stdout != "ran\n" {
		t.Fatalf("%+v %v", r, r.Error)
	}
	if r := runSnippet(t, f, Snippet{Code: code}); r.Status != "error" || r.Error.EName != "ValueError" {
		t.Fatalf("as a cell: %+v", r)
	}
	if r := runSnippet(t, f, Snippet{Code: "import asyncio\nawait asyncio.sleep(0)", Program: true}); r.Status != "error" || r.Error.EName != "SyntaxError" {
		t.Fatalf("top-level await in a program: %+v", r)
	}
}

// A snippet whose context ends is killed by the server, which goes on: the
// next snippet runs in the same container with nothing left of the
// stopped one.
func TestForkServerStopsASnippet(t *testing.T) {
	e := requireEngine(t)
	for _, rt := range []string{RuntimeRunc, RuntimeRunsc} {
		t.Run(rt, func(t *testing.T) {
			f := startForkServer(t, e, rt)
			for _, code := range []string{"while True:\n    pass", "import os, time\nos.fork()\ntime.sleep(300)"} {
				ctx, cancel := context.WithCancel(context.Background())
				got := make(chan SnippetResult, 1)
				go func() {
					r, err := f.Run(ctx, Snippet{Code: "print('started', flush=True)\n" + code, Timeout: 5 * time.Minute})
					if err != nil {
						t.Error(err)
					}
					got <- r
				}()
				// Stopped once it runs: the container has the server and
				// the snippet besides the probe itself.
				for containerProcesses(t, f.ID()) < 2 {
					time.Sleep(10 * time.Millisecond)
				}
				cancel()
				if r := <-got; r.Status != "interrupted" {
					t.Fatalf("%q: %+v", code, r)
				}
				after := runSnippet(t, f, Snippet{Code: "import os\n[p for p in os.listdir('/proc') if p.isdigit() and int(p) not in (1, os.getpid())]"})
				if snippetValue(after) != "[]" || !f.Alive() {
					t.Fatalf("after %q: %+v", code, after)
				}
			}
		})
	}
}

// containerProcesses counts a container's processes other than the one counting.
func containerProcesses(t *testing.T, id string) int {
	t.Helper()
	out, err := exec.Command("docker", "exec", id, "python3", "-c", "import os; print(len([p for p in os.listdir('/proc') if p.isdigit()]) - 1)").Output()
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(strings.TrimSpace(string(out)))
	return n
}

// A snippet whose processes together pass the container's memory limit
// (each within its own) is the OOM killer's victim: the largest of them.
// Its death by SIGKILL is told as an OOM kill, read from the container's
// memory cgroup. runc only: under gVisor the sandbox is one host process,
// and an OOM kill ends the whole container (Exit tells it).
func TestForkServerOOMKilledSnippet(t *testing.T) {
	e := requireEngine(t)
	f := startForkServer(t, e, RuntimeRunc)
	if _, ok := f.s.oom.Kills(); !ok {
		t.Skip("the container's memory cgroup cannot be read here")
	}
	r := runSnippet(t, f, Snippet{Code: containertest.OOMSnippet, Timeout: 10 * time.Minute})
	if r.Status != "crashed" || r.Signal != 9 || !r.OOMKilled {
		t.Fatalf("%+v %v", r, r.Error)
	}
	// The server goes on, and a later kill is not taken for the OOM's.
	r = runSnippet(t, f, Snippet{Code: "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"})
	if r.Status != "crashed" || r.Signal != 9 || r.OOMKilled {
		t.Fatalf("%+v", r)
	}
}
