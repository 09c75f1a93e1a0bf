package monty

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/monty/internal/pb"
)

// binary finds the real pinned worker; the integration tests fail without it
// because a skipped test proves nothing.
func workerBinary(t testing.TB) string {
	t.Helper()
	p, err := Find("")
	if err != nil {
		t.Fatalf("%v (run `make setup`)", err)
	}
	return p
}

func start(t testing.TB, lim Limits) *Worker {
	t.Helper()
	return startConfig(t, Config{Binary: workerBinary(t), Limits: lim})
}

// startConfig starts a worker the test closes at its end.
func startConfig(t testing.TB, cfg Config) *Worker {
	t.Helper()
	w, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w
}

func feed(t testing.TB, w *Worker, code string) (Outcome, string) {
	t.Helper()
	var out strings.Builder
	o, err := w.Feed(context.Background(), code, FeedOptions{OnPrint: func(_ Stream, s string) { out.WriteString(s) }})
	if err != nil {
		t.Fatalf("feed %q: %v", code, err)
	}
	return o, out.String()
}

func TestPinnedVersion(t *testing.T) {
	v, err := Version(workerBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if v != RuntimeVersion {
		t.Fatalf("worker is %s, tests pin %s", v, RuntimeVersion)
	}
}

func TestStateAcrossFeeds(t *testing.T) {
	w := start(t, Limits{})
	feed(t, w, "x = 20\ndef f(a):\n    return a * 2")
	o, out := feed(t, w, "print('hello')\nf(x) + 2")
	if out != "hello\n" {
		t.Fatalf("stdout %q", out)
	}
	if got := o.Value.Repr(); got != "42" {
		t.Fatalf("value %s", got)
	}
}

func TestPrintConcatenatedAcrossEvents(t *testing.T) {
	w := start(t, Limits{})
	o, out := feed(t, w, "for i in range(3000):\n    print(i)")
	if o.Exception != nil {
		t.Fatal(o.Exception)
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 3000 || lines[0] != "0" || lines[2999] != "2999" || lines[1861] != "1861" {
		t.Fatalf("got %d lines, e.g. %q", len(lines), lines[len(lines)-1])
	}
}

func TestStderrSegments(t *testing.T) {
	w := start(t, Limits{})
	var got []string
	_, err := w.Feed(context.Background(), "import sys\nprint('e', file=sys.stderr)\nprint('o')", FeedOptions{OnPrint: func(s Stream, text string) {
		got = append(got, map[Stream]string{Stdout: "out:", Stderr: "err:"}[s]+text)
	}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, "") != "err:e\nout:o\n" {
		t.Fatalf("%q", got)
	}
}

func TestErrorHasCellRelativeFrames(t *testing.T) {
	w := start(t, Limits{})
	feed(t, w, "a = 1") // shift the worker's own input counter
	o, _ := feed(t, w, "def g(n):\n    return 10 / n\n\ndef h():\n    return g(0)\nh()")
	e := o.Exception
	if e == nil || e.Type != "ZeroDivisionError" || e.Message != "division by zero" {
		t.Fatalf("%+v", e)
	}
	want := []struct {
		line int
		name string
	}{{6, ""}, {5, "h"}, {2, "g"}}
	if len(e.Frames) != len(want) {
		t.Fatalf("frames %+v", e.Frames)
	}
	for i, f := range e.Frames {
		name := f.Name
		if name == "<module>" {
			name = ""
		}
		if f.Line != want[i].line || name != want[i].name {
			t.Errorf("frame %d = %+v, want %+v", i, f, want[i])
		}
	}
	// The session survives an exception.
	if o, _ := feed(t, w, "a + 1"); o.Value.Repr() != "2" {
		t.Fatal("state lost after an exception")
	}
}

func TestMissingModuleAndUndefinedName(t *testing.T) {
	w := start(t, Limits{})
	o, _ := feed(t, w, "import numpy")
	if o.Exception == nil || o.Exception.Type != "ModuleNotFoundError" {
		t.Fatalf("%+v", o.Exception)
	}
	o, _ = feed(t, w, "nope + 1")
	if o.Exception == nil || o.Exception.Type != "NameError" || len(o.Undefined) != 1 || o.Undefined[0] != "nope" {
		t.Fatalf("%+v %v", o.Exception, o.Undefined)
	}
	o, _ = feed(t, w, "undefined_fn(1)")
	if o.Exception == nil || o.Exception.Type != "NameError" {
		t.Fatalf("%+v", o.Exception)
	}
}

func TestValueReprs(t *testing.T) {
	w := start(t, Limits{})
	cases := map[string]string{
		"None":                                        "None",
		"[1, 2.5, 'a', b'b', None, True, (1,)]":       "[1, 2.5, 'a', b'b', None, True, (1,)]",
		"{'k': [1], 2: (3, 4)}":                       "{'k': [1], 2: (3, 4)}",
		"{1}, set(), frozenset({2})":                  "({1}, set(), frozenset({2}))",
		"10**30, -(2**64), ...":                       "(1000000000000000000000000000000, -18446744073709551616, Ellipsis)",
		"1.0, 1e16, 1e-5, 0.1+0.2, -0.0, 1e300*1e300": "(1.0, 1e+16, 1e-05, 0.30000000000000004, -0.0, inf)",
		`'it\'s', "q\"", '\n\t\x00é'`:                 `("it's", 'q"', '\n\t\x00é')`,
		"a = [1]; a.append(a); a":                     "[1, [...]]",
		"ValueError('bad'), int, len":                 "(ValueError('bad'), <class 'int'>, <built-in function len>)",
		"import datetime\ndatetime.date(2020, 1, 2), datetime.timedelta(days=1, seconds=5)":           "(datetime.date(2020, 1, 2), datetime.timedelta(days=1, seconds=5))",
		"from dataclasses import dataclass\n@dataclass\nclass D:\n    x: int\n    y: str = 'q'\nD(1)": "D(x=1, y='q')",
	}
	for code, want := range cases {
		o, _ := feed(t, w, code)
		if o.Exception != nil {
			t.Errorf("%s: %+v", code, o.Exception)
			continue
		}
		if got := o.Value.Repr(); got != want {
			t.Errorf("%s:\n got %s\nwant %s", code, got, want)
		}
	}
}

func TestCellTimeLimitIsPerFeed(t *testing.T) {
	w := start(t, Limits{CellTime: 200 * time.Millisecond})
	o, _ := feed(t, w, "x = 7\nwhile True:\n    pass")
	if o.Exception == nil || o.Exception.Type != "TimeoutError" {
		t.Fatalf("%+v", o.Exception)
	}
	// Protocol 5 restarts the budget at every feed.
	if o, _ := feed(t, w, "x"); o.Exception != nil || o.Value.Repr() != "7" {
		t.Fatalf("%+v", o.Exception)
	}
}

func TestMemoryLimit(t *testing.T) {
	w := start(t, Limits{MemoryBytes: 32 << 20})
	o, _ := feed(t, w, "s = 'x' * (64 * 1024 * 1024)")
	if o.Exception == nil || o.Exception.Type != "MemoryError" {
		t.Fatalf("%+v", o.Exception)
	}
}

func TestMemoryCapKillsWorker(t *testing.T) {
	// The interpreter's frames live on the heap: deep recursion under a small
	// cap crosses the allocator cap, which ends the process (exit 65).
	w := start(t, Limits{MemoryBytes: 16 << 20, RecursionDepth: 100_000_000})
	_, err := w.Feed(context.Background(), "def f(n):\n    return f(n + 1)\nf(0)", FeedOptions{})
	var ce *CrashError
	if !errors.As(err, &ce) || !ce.OutOfMemory() {
		t.Fatalf("want out-of-memory crash, got %v", err)
	}
	if w.Alive() {
		t.Fatal("worker still alive")
	}
}

func TestRecursionLimit(t *testing.T) {
	w := start(t, Limits{RecursionDepth: 50, MemoryBytes: 64 << 20})
	o, _ := feed(t, w, "def f(n):\n    return f(n + 1)\nf(0)")
	if o.Exception == nil || o.Exception.Type != "RecursionError" {
		t.Fatalf("%+v", o.Exception)
	}
}

// The kill and cancel paths hold for both ways of reading the worker: on
// the runtime's poller and blocking in the read (Config.BlockingReads).
var readModes = []struct {
	name     string
	blocking bool
}{{"poller", false}, {"blocking", true}}

func TestKilledWorkerIsACrash(t *testing.T) {
	for _, m := range readModes {
		t.Run(m.name, func(t *testing.T) {
			w := startConfig(t, Config{Binary: workerBinary(t), BlockingReads: m.blocking})
			go func() {
				time.Sleep(50 * time.Millisecond)
				killPid(w.Pid())
			}()
			_, err := w.Feed(context.Background(), "while True:\n    pass", FeedOptions{})
			var ce *CrashError
			if !errors.As(err, &ce) || ce.Signal == "" {
				t.Fatalf("want crash by signal, got %v", err)
			}
			// A dead worker answers every later call with the same error, at once.
			if _, err := w.Feed(context.Background(), "1", FeedOptions{}); !errors.As(err, &ce) {
				t.Fatalf("later feed: %v", err)
			}
		})
	}
}

func TestCancelKillsRunningCode(t *testing.T) {
	for _, m := range readModes {
		t.Run(m.name, func(t *testing.T) {
			w := startConfig(t, Config{Binary: workerBinary(t), BlockingReads: m.blocking})
			ctx, cancel := context.WithCancelCause(context.Background())
			stop := errors.New("stop")
			time.AfterFunc(50*time.Millisecond, func() { cancel(stop) })
			_, err := w.Feed(ctx, "while True:\n    pass", FeedOptions{})
			if !errors.Is(err, stop) {
				t.Fatalf("want the cancel cause, got %v", err)
			}
			<-w.Exited()
		})
	}
}

func TestCancelDuringSleepIsInBand(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := startHooked(t, func(c *pb.OsCall) {
		if isSleep(c) {
			cancel() // once the worker waits in the sleep
		}
	})
	feed(t, w, "import time\nkept = 1")
	o, err := w.Feed(ctx, "kept = 2\ntime.sleep(30)\nkept = 3", FeedOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if o.Exception == nil || o.Exception.Type != "KeyboardInterrupt" {
		t.Fatalf("%+v", o.Exception)
	}
	if o, _ := feed(t, w, "kept"); o.Value.Repr() != "2" {
		t.Fatalf("kept = %s", o.Value.Repr())
	}
}

func TestSleepIsWaitedOut(t *testing.T) {
	w := start(t, Limits{})
	o, _ := feed(t, w, "import time\ntime.sleep(0.01)\n'done'")
	if o.Exception != nil || o.Value.Repr() != "'done'" {
		t.Fatalf("%+v", o.Exception)
	}
}

func TestSnapshotRestore(t *testing.T) {
	w := start(t, Limits{})
	feed(t, w, "x = 1")
	snap, err := w.Dump()
	if err != nil || len(snap) == 0 {
		t.Fatal(err)
	}
	feed(t, w, "x = 2")
	// Restore into a fresh worker: the namespace is as it was before "x = 2".
	w2 := start(t, Limits{})
	if err := w2.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if o, _ := feed(t, w2, "x"); o.Value.Repr() != "1" {
		t.Fatalf("x = %s", o.Value.Repr())
	}
	// And in the same worker.
	if err := w.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if o, _ := feed(t, w, "x"); o.Value.Repr() != "1" {
		t.Fatalf("x = %s", o.Value.Repr())
	}
}

func TestFreshFeedSeesEmptyNamespace(t *testing.T) {
	w := start(t, Limits{})
	feed(t, w, "secret = 1")
	o, err := w.Feed(context.Background(), "secret", FeedOptions{Fresh: true})
	if err != nil {
		t.Fatal(err)
	}
	if o.Exception == nil || o.Exception.Type != "NameError" {
		t.Fatalf("%+v", o.Exception)
	}
}

// A worker that speaks another protocol is refused with a clear error.
func TestUnsupportedProtocolVersion(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "monty")
	// Answers Configure with the FatalError a protocol-2 worker sends.
	msg := "unsupported protocol version 5 (server supports protocol version 2, make sure you are using the correct client version)"
	frame := append([]byte{0x5a, byte(2 + len(msg)), 0x0a, byte(len(msg))}, msg...)
	hdr := []byte{byte(len(frame)), 0, 0, 0}
	script := "#!/bin/sh\nhead -c 4 >/dev/null\nprintf '" + octal(append(hdr, frame...)) + "'\nexit 4\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Config{Binary: fake})
	var ve *VersionError
	if !errors.As(err, &ve) || !strings.Contains(err.Error(), "protocol version 5") || !strings.Contains(err.Error(), RuntimeVersion) {
		t.Fatalf("got %v", err)
	}
}

// A worker that writes garbage instead of a frame is a protocol error, and
// the host does not hang on it.
func TestGarbageFrameFromWorker(t *testing.T) {
	dir := t.TempDir()
	fake := filepath.Join(dir, "monty")
	script := "#!/bin/sh\nprintf '\\005\\000\\000\\000\\377\\377\\377\\377\\377'\nsleep 30\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Config{Binary: fake})
	var pe *ProtocolError
	if !errors.As(err, &pe) {
		t.Fatalf("got %v", err)
	}
}

// An intact frame holding undecodable protobuf is refused by the worker
// without ending the session.
func TestGarbageRequestKeepsSession(t *testing.T) {
	w := start(t, Limits{})
	feed(t, w, "x = 5")
	if _, err := w.stdin.Write([]byte{3, 0, 0, 0, 0xff, 0xff, 0xff}); err != nil {
		t.Fatal(err)
	}
	ev, err := w.next()
	if err != nil || ev.GetError() == nil || !strings.Contains(ev.GetError().GetException().GetMessage(), "malformed") {
		t.Fatalf("%v %v", ev, err)
	}
	if o, _ := feed(t, w, "x"); o.Value.Repr() != "5" {
		t.Fatal("session lost")
	}
}

func octal(b []byte) string {
	var s strings.Builder
	for _, c := range b {
		s.WriteString("\\" + strings.TrimLeft(string([]byte{'0' + c>>6, '0' + (c>>3)&7, '0' + c&7}), ""))
	}
	return s.String()
}

// killPid kills a process (SIGKILL where there are signals).
func killPid(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// A snapshot goes from one worker into another without crossing the host
// whole; the source goes on unchanged, the destination's session is the
// source's, and a second transfer replaces it.
func TestDumpInto(t *testing.T) {
	for _, m := range readModes {
		t.Run(m.name, func(t *testing.T) {
			w := startConfig(t, Config{Binary: workerBinary(t), BlockingReads: m.blocking})
			keeper := startConfig(t, Config{Binary: workerBinary(t), BlockingReads: m.blocking})
			repr := func(w *Worker, code string) string {
				o, _ := feed(t, w, code)
				return o.Value.Repr()
			}
			feed(t, w, "x = 1\nbig = list(range(300_000))")
			if err := w.DumpInto(keeper); err != nil {
				t.Fatal(err)
			}
			feed(t, w, "x = 2")
			if got := repr(keeper, "x, len(big), big[-1]") + " " + repr(w, "x"); got != "(1, 300000, 299999) 2" {
				t.Fatalf("keeper and source: %s", got)
			}
			if err := w.DumpInto(keeper); err != nil || repr(keeper, "x") != "2" {
				t.Fatalf("a second transfer: %v", err)
			}
		})
	}
}
