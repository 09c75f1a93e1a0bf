package sandbox

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// backends are the backends every API feature is checked on.
var backends = []contract.Backend{contract.BackendMonty, contract.BackendContainer}

func newSandbox(t *testing.T, backend contract.Backend, opts Options) *Sandbox {
	t.Helper()
	if backend != contract.BackendMonty && testing.Short() {
		t.Skip("needs a container engine")
	}
	opts.Backend = backend
	if opts.Container.Image == "" {
		opts.Container.Image = containertest.Image()
	}
	if opts.Limits.Timeout == 0 {
		opts.Limits.Timeout = 20 * time.Second
	}
	s, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func run(t *testing.T, s *Sandbox, code string) kernel.Result {
	t.Helper()
	r, err := s.Run(context.Background(), code)
	if err != nil {
		t.Fatalf("%q: %v", code, err)
	}
	return r
}

func wantText(t *testing.T, r kernel.Result, want string) {
	t.Helper()
	if r.Status != kernel.StatusOK || r.Value == nil || r.Value.Text != want {
		t.Fatalf("got %s %+v %+v, want %s", r.Status, r.Value, r.Error, want)
	}
}

func wantError(t *testing.T, r kernel.Result, ename, evalue string) {
	t.Helper()
	if r.Status != kernel.StatusError || r.Error == nil || r.Error.EName != ename || r.Error.EValue != evalue {
		t.Fatalf("got %s %+v, want %s: %s", r.Status, r.Error, ename, evalue)
	}
}

func TestFunctions(t *testing.T) {
	for _, b := range backends {
		t.Run(string(b), func(t *testing.T) {
			var seen []any
			s := newSandbox(t, b, Options{Functions: map[string]kernel.HostFunc{
				"lookup": func(_ context.Context, args []any, kw map[string]any) (any, error) {
					seen = append(seen, args, kw)
					if args[0] == "missing" {
						return nil, Raise("KeyError", "missing")
					}
					return map[string]any{"user": args[0], "score": 2.0, "tags": []string{"a", "b"}, "n": kw["n"]}, nil
				},
				"fail": func(context.Context, []any, map[string]any) (any, error) { return nil, errors.New("database down") },
				"odd":  func(context.Context, []any, map[string]any) (any, error) { return nil, Raise("MyError", "x") },
				"bad":  func(context.Context, []any, map[string]any) (any, error) { return make(chan int), nil },
				"echo": func(_ context.Context, a []any, _ map[string]any) (any, error) { return a, nil },
			}})
			r := run(t, s, "r = lookup('ada', n=3)\n(r, type(r['score']).__name__, type(r['n']).__name__)")
			wantText(t, r, "({'n': 3, 'score': 2.0, 'tags': ['a', 'b'], 'user': 'ada'}, 'float', 'int')")
			if fmt.Sprint(seen) != "[[ada] map[n:3]]" {
				t.Fatalf("the host got %v", seen)
			}
			wantText(t, run(t, s, "try:\n    lookup('missing')\nexcept KeyError as e:\n    caught = repr(e)\ncaught"), `"KeyError('missing')"`)
			wantError(t, run(t, s, "fail()"), "RuntimeError", "database down")
			wantError(t, run(t, s, "odd()"), "RuntimeError", "MyError: x")
			wantError(t, run(t, s, "bad()"), "TypeError", "bad() returned a value that is not JSON-compatible: json: unsupported type: chan int")
			wantError(t, run(t, s, "echo(b'x')"), "TypeError", "echo(): argument 1 is not JSON-compatible: bytes")
			wantError(t, run(t, s, "echo({1: 2})"), "TypeError", "echo(): argument 1 is not JSON-compatible: a dict key that is not a str")
			wantText(t, run(t, s, "echo(10**30, -1.5, (1, 2), None)"), "[1000000000000000000000000000000, -1.5, [1, 2], None]")
			// A function kept in a variable works in a later cell.
			run(t, s, "keep = echo")
			wantText(t, run(t, s, "keep('later')"), "['later']")
			// The traceback points into the cell at the call.
			r = run(t, s, "x = 1\nfail()")
			if tb := r.Error.Traceback; len(tb) == 0 || tb[0].Line != 2 {
				t.Fatalf("traceback %+v", tb)
			}
		})
	}
}

func TestInputsPersist(t *testing.T) {
	for _, b := range backends {
		t.Run(string(b), func(t *testing.T) {
			s := newSandbox(t, b, Options{})
			r, err := s.RunWith(context.Background(), "y = x * 2\n(y, cfg['k'], type(ratio).__name__)", RunOptions{Inputs: map[string]any{"x": 21, "cfg": map[string]any{"k": []any{1}}, "ratio": 1.0}})
			if err != nil {
				t.Fatal(err)
			}
			wantText(t, r, "(42, [1], 'float')")
			wantText(t, run(t, s, "x + y"), "63")
			if _, err := s.RunWith(context.Background(), "1", RunOptions{Inputs: map[string]any{"f": func() {}}}); err == nil {
				t.Fatal("an input that is not JSON-compatible must be refused")
			}
			wantText(t, run(t, s, "x"), "21")
		})
	}
}

func TestEnvIsExplicit(t *testing.T) {
	t.Setenv("HOST_SECRET_FOR_TEST", "leaked")
	for _, b := range backends {
		t.Run(string(b), func(t *testing.T) {
			s := newSandbox(t, b, Options{Env: map[string]string{"API_URL": "http://api", "HOME": "/home/agent"}})
			r := run(t, s, "import os\n(os.getenv('API_URL'), os.environ['HOME'], os.getenv('HOST_SECRET_FOR_TEST'), os.getenv('NOPE', 'd'))")
			wantText(t, r, "('http://api', '/home/agent', None, 'd')")
		})
	}
	if _, err := New(Options{Env: map[string]string{"PYTHONPATH": "/x"}}); err == nil {
		t.Fatal("a variable the kernel needs cannot be set")
	}
	if _, err := New(Options{Functions: map[string]kernel.HostFunc{"not a name": nil}}); err == nil {
		t.Fatal("a function name must be an identifier")
	}
}

func TestPerRunLimitsKeepState(t *testing.T) {
	for _, b := range backends {
		t.Run(string(b), func(t *testing.T) {
			s := newSandbox(t, b, Options{Limits: kernel.Limits{Timeout: 2 * time.Second}})
			run(t, s, "import time\nkept = 'yes'")
			r, err := s.RunWith(context.Background(), "time.sleep(2.5)\nkept", RunOptions{Limits: kernel.Limits{Timeout: 10 * time.Second}})
			if err != nil {
				t.Fatal(err)
			}
			wantText(t, r, "'yes'")
			r, _ = s.RunWith(context.Background(), "time.sleep(5)", RunOptions{Limits: kernel.Limits{Timeout: 300 * time.Millisecond}})
			if r.Status != kernel.StatusTimeout || r.Error.EValue != "cell exceeded the 300ms time limit" {
				t.Fatalf("%+v %+v", r, r.Error)
			}
			r, _ = s.RunWith(context.Background(), "print('x' * 100)", RunOptions{Limits: kernel.Limits{MaxOutputBytes: 10}})
			if !strings.HasPrefix(r.Stdout, "xxxxx\n[backyard: output truncated at 10 bytes: ") || !strings.HasSuffix(r.Stdout, "xxxx\n") || len(r.Stdout) > 100 {
				t.Fatalf("output cap: %q", r.Stdout)
			}
			wantText(t, run(t, s, "kept"), "'yes'")
			if _, err := s.RunWith(context.Background(), "1", RunOptions{Limits: kernel.Limits{MemoryBytes: 1 << 30}}); !errors.Is(err, kernel.ErrLimitFixed) {
				t.Fatalf("%v", err)
			}
		})
	}
}

func TestInterruptWhileInAHostFunction(t *testing.T) {
	for _, b := range backends {
		t.Run(string(b), func(t *testing.T) {
			entered := make(chan struct{}, 1)
			s := newSandbox(t, b, Options{Functions: map[string]kernel.HostFunc{"slow": func(ctx context.Context, _ []any, _ map[string]any) (any, error) {
				entered <- struct{}{}
				<-ctx.Done()
				return nil, ctx.Err()
			}}})
			run(t, s, "before = 1")
			ctx, cancel := context.WithCancel(context.Background())
			go func() {
				<-entered
				cancel()
			}()
			r, err := s.Run(ctx, "during = 1\nslow()\nafter = 1")
			if err != nil || r.Status != kernel.StatusInterrupted {
				t.Fatalf("%+v %v", r, err)
			}
			wantText(t, run(t, s, "before, during"), "(1, 1)")
			wantError(t, run(t, s, "after"), "NameError", "name 'after' is not defined")
		})
	}
}

// A host function that ignores its ctx does not keep the cell from being
// interrupted.
func TestInterruptAStuckHostFunction(t *testing.T) {
	for _, b := range backends {
		t.Run(string(b), func(t *testing.T) {
			release := make(chan struct{})
			defer close(release)
			s := newSandbox(t, b, Options{Functions: map[string]kernel.HostFunc{"stuck": func(context.Context, []any, map[string]any) (any, error) {
				<-release
				return nil, nil
			}}})
			run(t, s, "0") // the kernel is started
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer cancel()
			if r, err := s.Run(ctx, "stuck()"); err != nil || r.Status != kernel.StatusInterrupted {
				t.Fatalf("%+v %v", r, err)
			}
			wantText(t, run(t, s, "2 + 2"), "4")
		})
	}
}

// In auto mode a document moves to the container with its state; cells
// that called host functions are replayed with the answers they got, and
// the functions work in the container too. A cell that CPython checks
// (here: an exception Monty raised) calls the host once.
func TestAutoMoveKeepsHostAnswers(t *testing.T) {
	var calls atomic.Int32
	s := newSandbox(t, contract.BackendAuto, Options{Functions: map[string]kernel.HostFunc{"ticket": func(context.Context, []any, map[string]any) (any, error) {
		return int(calls.Add(1)), nil
	}}})
	r := run(t, s, "first = ticket()\n1 / 0")
	wantError(t, r, "ZeroDivisionError", "division by zero")
	if r.Routing == nil || r.Routing.Check == "" || calls.Load() != 1 {
		t.Fatalf("routing %+v, %d host calls after a checked cell", r.Routing, calls.Load())
	}
	r = run(t, s, "import numpy\n(first, ticket(), int(numpy.int64(3)))")
	wantText(t, r, "(1, 2, 3)")
	if r.Backend != contract.BackendContainer || calls.Load() != 2 {
		t.Fatalf("backend %s, %d host calls", r.Backend, calls.Load())
	}
}

// A package that is not a name is refused before any backend is asked.
func TestInstallTakesOnlyNames(t *testing.T) {
	s := newSandbox(t, contract.BackendMonty, Options{})
	for _, p := range []string{"x @ file:///etc/passwd", "-e.", "x\ny"} {
		if err := s.Install(context.Background(), []string{p}); err == nil || !strings.Contains(err.Error(), "not a requirement") {
			t.Fatalf("%q: %v", p, err)
		}
	}
}

func TestInstall(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine")
	}
	if err := newSandbox(t, contract.BackendMonty, Options{}).Install(context.Background(), []string{"x"}); err == nil {
		t.Fatal("Monty installs nothing")
	}
	img := containertest.IsolatedImage(t)
	mod := fmt.Sprintf("backyard_wheel%d", rand.Uint32())
	// Auto mode: installed before the document moves; the import moves it
	// and finds the package. The policy is off: the program asked.
	s := newSandbox(t, contract.BackendAuto, Options{Container: contract.ContainerSettings{Image: img},
		Install: contract.InstallSettings{AutoInstall: contract.InstallOff, FindLinks: containertest.WheelDir(t, mod)}})
	run(t, s, "kept = 1")
	if err := s.Install(context.Background(), []string{mod}); err != nil {
		t.Fatal(err)
	}
	r := run(t, s, "import "+mod+"\n"+mod+".ANSWER + kept")
	wantText(t, r, "43")
}

// The files a run writes are in its result; with the default files.write
// (sandbox) they stay in the kernel and the workspace is untouched.
func TestFilesChanged(t *testing.T) {
	for _, b := range backends {
		t.Run(string(b), func(t *testing.T) {
			ws := t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "data.txt"), []byte("1,2\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			s := newSandbox(t, b, Options{Workspace: ws})
			r := run(t, s, "rows = open('data.txt').read()\nwith open('out.txt', 'w') as f:\n    f.write(rows * 2)\nrows")
			wantText(t, r, `'1,2\n'`)
			want := []contract.FileChange{{Path: filepath.Join(ws, "out.txt"), State: contract.FileCreated}}
			if !reflect.DeepEqual(r.Files, want) {
				t.Fatalf("files %+v, want %+v", r.Files, want)
			}
			if _, err := os.Stat(filepath.Join(ws, "out.txt")); !os.IsNotExist(err) {
				t.Fatalf("the workspace was written: %v", err)
			}
			if r := run(t, s, "len(open('out.txt').read())"); r.Files != nil {
				t.Fatalf("a run that writes nothing changes nothing: %+v", r.Files)
			}
		})
	}
}
