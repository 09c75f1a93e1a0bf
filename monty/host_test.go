package monty

import (
	"context"
	"errors"
	"math/big"
	"reflect"
	"testing"
	"time"
)

func feedWith(t *testing.T, w *Worker, code string, opt FeedOptions) Outcome {
	t.Helper()
	o, err := w.Feed(context.Background(), code, opt)
	if err != nil {
		t.Fatalf("feed %q: %v", code, err)
	}
	return o
}

func wantValue(t *testing.T, o Outcome, repr string) {
	t.Helper()
	if o.Exception != nil {
		t.Fatalf("raised %s: %s", o.Exception.Type, o.Exception.Message)
	}
	if got := o.Value.Repr(); got != repr {
		t.Fatalf("value %s, want %s", got, repr)
	}
}

func wantRaise(t *testing.T, o Outcome, typ, msg string) {
	t.Helper()
	if o.Exception == nil || o.Exception.Type != typ || o.Exception.Message != msg {
		t.Fatalf("outcome %v %+v, want %s: %s", o.Value.Repr(), o.Exception, typ, msg)
	}
}

func TestHostFunctionArgumentsAndResult(t *testing.T) {
	w := start(t, Limits{})
	var gotArgs []any
	var gotKw map[string]any
	fns := map[string]Func{"fetch": func(_ context.Context, args []any, kw map[string]any) (any, error) {
		gotArgs, gotKw = args, kw
		return map[string]any{"ok": true, "items": []any{1, 2.5, "x", nil}, "n": struct {
			A int `json:"a"`
		}{7}}, nil
	}}
	o := feedWith(t, w, "r = fetch([1, (2, None)], {'a': 1.5}, 'é', True, 10**30, k=-3)\nr", FeedOptions{Functions: fns})
	wantValue(t, o, "{'items': [1, 2.5, 'x', None], 'n': {'a': 7}, 'ok': True}")
	big30, _ := new(big.Int).SetString("1000000000000000000000000000000", 10)
	want := []any{[]any{int64(1), []any{int64(2), nil}}, map[string]any{"a": 1.5}, "é", true, big30}
	if !reflect.DeepEqual(gotArgs, want) || !reflect.DeepEqual(gotKw, map[string]any{"k": int64(-3)}) {
		t.Fatalf("args %#v kwargs %#v", gotArgs, gotKw)
	}
	// The binding persists, like any global, and shows as a function.
	wantValue(t, feedWith(t, w, "repr(fetch)", FeedOptions{}), `"<function 'fetch' external>"`)
	// Awaiting it works too.
	wantValue(t, feedWith(t, w, "async def g():\n    return (await fetch())['ok']\nawait g()", FeedOptions{Functions: fns}), "True")
	// Another undefined name is still CPython's NameError.
	wantRaise(t, feedWith(t, w, "nope(1)", FeedOptions{Functions: fns}), "NameError", "name 'nope' is not defined")
}

func TestHostFunctionErrorsRaiseInTheCell(t *testing.T) {
	w := start(t, Limits{})
	fns := map[string]Func{
		"no": func(context.Context, []any, map[string]any) (any, error) {
			return nil, &Exception{Type: "ValueError", Message: "host says no"}
		},
		"odd": func(context.Context, []any, map[string]any) (any, error) {
			return nil, &Exception{Type: "MyError", Message: "x"}
		},
		"plain": func(context.Context, []any, map[string]any) (any, error) { return nil, errors.New("disk on fire") },
		"boom":  func(context.Context, []any, map[string]any) (any, error) { panic("oops") },
		"bytes": func(context.Context, []any, map[string]any) (any, error) { return make(chan int), nil },
		"echo":  func(_ context.Context, a []any, _ map[string]any) (any, error) { return a, nil },
	}
	wantValue(t, feedWith(t, w, "try:\n    no()\nexcept ValueError as e:\n    r = str(e)\nr", FeedOptions{Functions: fns}), "'host says no'")
	wantRaise(t, feedWith(t, w, "odd()", FeedOptions{Functions: fns}), "RuntimeError", "MyError: x")
	wantRaise(t, feedWith(t, w, "plain()", FeedOptions{Functions: fns}), "RuntimeError", "disk on fire")
	wantRaise(t, feedWith(t, w, "boom()", FeedOptions{Functions: fns}), "RuntimeError", "host function panicked: oops")
	wantRaise(t, feedWith(t, w, "bytes()", FeedOptions{Functions: fns}), "TypeError", "bytes() returned a value that is not JSON-compatible: json: unsupported type: chan int")
	wantRaise(t, feedWith(t, w, "echo(b'x')", FeedOptions{Functions: fns}), "TypeError", "echo(): argument 1 is not JSON-compatible: bytes")
	wantRaise(t, feedWith(t, w, "echo(1, {1: 2})", FeedOptions{Functions: fns}), "TypeError", "echo(): argument 2 is not JSON-compatible: a dict key that is not a str")
	wantRaise(t, feedWith(t, w, "echo(float('nan'))", FeedOptions{Functions: fns}), "TypeError", "echo(): argument 1 is not JSON-compatible: nan")
	// The session goes on.
	wantValue(t, feedWith(t, w, "echo(1)", FeedOptions{Functions: fns}), "[1]")
}

func TestInputsBindGlobals(t *testing.T) {
	w := start(t, Limits{})
	o := feedWith(t, w, "y = x * 2\n(y, cfg['name'])", FeedOptions{Inputs: map[string]any{"x": 21, "cfg": map[string]any{"name": "n"}}})
	wantValue(t, o, "(42, 'n')")
	wantValue(t, feedWith(t, w, "x + y", FeedOptions{}), "63")
	if _, err := w.Feed(context.Background(), "1", FeedOptions{Inputs: map[string]any{"bad": make(chan int)}}); !errors.As(err, new(*InputError)) || !w.Alive() {
		t.Fatalf("%v", err)
	}
}

func startEnv(t *testing.T, env map[string]string) *Worker {
	t.Helper()
	return startConfig(t, Config{Binary: workerBinary(t), Env: env})
}

func TestEnvServedFromTheMap(t *testing.T) {
	w := startEnv(t, map[string]string{"API_URL": "http://x", "HOME": "/home/sandbox"})
	o := feedWith(t, w, "import os\n(os.getenv('API_URL'), os.getenv('PATH'), os.getenv('PATH', 'd'), os.environ.get('HOME'), sorted(os.environ), os.path.expanduser('~/q'))", FeedOptions{})
	wantValue(t, o, "('http://x', None, 'd', '/home/sandbox', ['API_URL', 'HOME'], '/home/sandbox/q')")
	// No map is an empty environment: nothing of the host's.
	wantValue(t, feedWith(t, startEnv(t, nil), "import os\n(os.getenv('HOME'), dict(os.environ))", FeedOptions{}), "(None, {})")
}

// A host function that ignores its ctx does not hold up the interrupt.
func TestInterruptAStuckHostFunction(t *testing.T) {
	w := start(t, Limits{})
	release := make(chan struct{})
	defer close(release)
	fns := map[string]Func{"stuck": func(context.Context, []any, map[string]any) (any, error) {
		<-release
		return nil, nil
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	o, err := w.Feed(ctx, "stuck()", FeedOptions{Functions: fns})
	if err != nil || o.Exception == nil || o.Exception.Type != "KeyboardInterrupt" {
		t.Fatalf("%+v %v", o, err)
	}
	wantValue(t, feedWith(t, w, "1 + 1", FeedOptions{}), "2")
}

func TestInterruptDuringHostFunction(t *testing.T) {
	w := start(t, Limits{})
	entered := make(chan struct{})
	fns := map[string]Func{"wait": func(ctx context.Context, _ []any, _ map[string]any) (any, error) {
		close(entered)
		<-ctx.Done()
		return nil, ctx.Err()
	}}
	feedWith(t, w, "before = 1", FeedOptions{})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-entered
		time.Sleep(10 * time.Millisecond)
		cancel()
	}()
	o, err := w.Feed(ctx, "during = 1\nwait()\nafter = 1", FeedOptions{Functions: fns})
	if err != nil || o.Exception == nil || o.Exception.Type != "KeyboardInterrupt" {
		t.Fatalf("%+v %v", o, err)
	}
	// Stopped in-band: the worker lives and keeps what ran before the call.
	wantValue(t, feedWith(t, w, "(before, during)", FeedOptions{}), "(1, 1)")
	wantRaise(t, feedWith(t, w, "after", FeedOptions{}), "NameError", "name 'after' is not defined")
}
