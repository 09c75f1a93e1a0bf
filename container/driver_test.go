package container

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// These tests run the embedded driver on the host's python3 through the
// same framing as in a container: notebook semantics without an engine.

type localDriver struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	events chan message
	nextID uint64
	key    []byte
	// readErr is why the frames ended (read once events is closed).
	readErr error
}

func hostPython(t *testing.T) string {
	p := os.Getenv("BACKYARD_TEST_PYTHON")
	if p == "" {
		p = "/usr/bin/python3"
	}
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("no python3 for the driver tests at %s (set BACKYARD_TEST_PYTHON): %v", p, err)
	}
	return p
}

func startLocal(t *testing.T, env ...string) *localDriver {
	t.Helper()
	return startLocalTo(t, os.Stderr, env...)
}

// startLocalTo starts a driver whose own stderr goes to stderr.
func startLocalTo(t *testing.T, stderr io.Writer, env ...string) *localDriver {
	t.Helper()
	argv := driverCommand(hostPython(t))
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "MPLBACKEND=Agg", "HOME="+t.TempDir())
	cmd.Env = append(cmd.Env, env...)
	cmd.Stderr = stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	d := &localDriver{t: t, cmd: cmd, stdin: stdin, events: make(chan message, 1024), key: []byte("0123456789abcdef")}
	d.send(message{T: msgKey, Key: hex.EncodeToString(d.key)})
	go func() {
		dec := &frameDecoder{key: d.key, emit: func(b []byte) error {
			var m message
			if err := json.Unmarshal(b, &m); err != nil {
				return err
			}
			d.events <- m
			return nil
		}}
		_, d.readErr = io.Copy(dec, stdout)
		close(d.events)
	}()
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	if m := d.next(); m.T != msgReady || m.Protocol != ProtocolVersion || m.Python == "" {
		t.Fatalf("first frame %+v", m)
	}
	return d
}

func (d *localDriver) next() message {
	d.t.Helper()
	select {
	case m, ok := <-d.events:
		if !ok {
			d.t.Fatal("driver exited")
		}
		return m
	case <-time.After(20 * time.Second):
		d.t.Fatal("no frame from the driver within 20 s")
	}
	return message{}
}

func (d *localDriver) send(m message) {
	d.t.Helper()
	b, err := appendFrame(nil, m)
	if err != nil {
		d.t.Fatal(err)
	}
	if _, err := d.stdin.Write(b); err != nil {
		d.t.Fatal(err)
	}
}

// run executes code and returns its output frames and its done frame.
func (d *localDriver) run(code string, opts ...func(*message)) ([]message, message) {
	d.t.Helper()
	d.nextID++
	req := message{T: msgExec, ID: d.nextID, Code: code}
	for _, o := range opts {
		o(&req)
	}
	d.send(req)
	var outs []message
	for {
		m := d.next()
		switch m.T {
		case msgOut, msgDisplay:
			outs = append(outs, m)
		case msgDone:
			if m.ID != d.nextID {
				d.t.Fatalf("done for %d, want %d", m.ID, d.nextID)
			}
			return outs, m
		default:
			d.t.Fatalf("unexpected frame %+v", m)
		}
	}
}

func text(outs []message, stream string) string {
	var b strings.Builder
	for _, m := range outs {
		if m.S == stream {
			b.WriteString(m.D)
		}
	}
	return b.String()
}

func valueText(m message) string {
	if m.Value == nil {
		return ""
	}
	return m.Value.Text
}

func TestDriverTrailingExpression(t *testing.T) {
	d := startLocal(t)
	cases := []struct{ code, want string }{
		{"x = 20\ndef double(v):\n    return v * 2", ""},
		{"double(x) + 2", "42"},
		{"x;", ""},
		{"x; # hidden, with a comment", ""},
		{"x  # shown, with a comment", "20"},
		{"print('p')", ""}, // None is not displayed
		{"None", ""},
		{"a = 1; a + 1", "2"},
		{"[1, 2,\n 3]", "[1, 2, 3]"},
		{"'é' * 2", "'éé'"},
		{"s = 'a;b'\ns", "'a;b'"},
		{"if x:\n    y = 1\ny", "1"},
		{"import asyncio\nawait asyncio.sleep(0)\n7", "7"},
		{"", ""},
	}
	for _, c := range cases {
		_, done := d.run(c.code)
		if done.Status != "ok" || valueText(done) != c.want {
			t.Errorf("%q: %+v %+v, want value %q", c.code, done, done.Error, c.want)
		}
	}
}

func TestDriverTracebackIsCellRelative(t *testing.T) {
	d := startLocal(t)
	// An earlier cell's frame names the cell by its execution count (3),
	// not by how many runs the driver has made.
	d.run("pass")
	d.run("def helper(n):\n    return 10 / n", func(m *message) { m.Count = 3 })
	_, done := d.run("a = 1\n\ndef g(n):\n    return helper(n)\n\ng(0)", func(m *message) { m.Count = 4 })
	e := done.Error
	if done.Status != "error" || e == nil || e.EName != "ZeroDivisionError" || e.EValue != "division by zero" {
		t.Fatalf("%+v", done)
	}
	// The driver's frames are gone; the earlier cell's frame has line 0.
	tb := e.Traceback
	if len(tb) != 3 || tb[0].Line != 6 || tb[0].Text != "g(0)" || tb[0].Name != "<module>" ||
		tb[1].Line != 4 || tb[1].Name != "g" || tb[1].Text != "return helper(n)" ||
		tb[2].Line != 0 || tb[2].Name != "helper" || !strings.Contains(tb[2].Text, "cell 3:2: return 10 / n") {
		t.Fatalf("%+v", tb)
	}
	_, done = d.run("x = 1\ny = (\n  2 +")
	if done.Error == nil || done.Error.EName != "SyntaxError" || len(done.Error.Traceback) != 1 || done.Error.Traceback[0].Line < 2 {
		t.Fatalf("syntax error: %+v", done.Error)
	}
	// A library frame is kept, with its file.
	_, done = d.run("import json\njson.loads('{')")
	tb = done.Error.Traceback
	last := tb[len(tb)-1]
	if done.Error.EName != "JSONDecodeError" || tb[0].Line != 2 || last.Line != 0 || !strings.HasSuffix(last.File, "/json/decoder.py") ||
		last.FileLine < 1 || last.Text != "obj, end = self.scan_once(s, idx)" {
		t.Fatalf("%+v", done.Error)
	}
	_, done = d.run("def r(n):\n    return r(n + 1)\nr(0)")
	if done.Error.EName != "RecursionError" || len(done.Error.Traceback) > MaxFramesForTest+1 {
		t.Fatalf("%s, %d frames", done.Error.EName, len(done.Error.Traceback))
	}
}

// MaxFramesForTest mirrors the driver's MAX_FRAMES.
const MaxFramesForTest = 30

func TestDriverStreamsInOrder(t *testing.T) {
	d := startLocal(t)
	outs, done := d.run("import sys\nprint('a')\nprint('b', file=sys.stderr)\nprint('c')\nsys.stdout.buffer.write(b'd\\n')\nimport os\nos.system('echo e')\nprint('f')")
	// Frames are cut by time; compare the runs of each stream.
	var got []string
	for i, m := range outs {
		if i > 0 && outs[i-1].S == m.S {
			got[len(got)-1] += m.D
			continue
		}
		got = append(got, m.S+":"+m.D)
	}
	want := "stdout:a\n|stderr:b\n|stdout:c\nd\ne\nf\n"
	if done.Status != "ok" || strings.Join(got, "|") != want {
		t.Fatalf("got %q, want %q (%+v)", strings.Join(got, "|"), want, done.Error)
	}
	// 1000 lines are batched into few frames.
	outs, _ = d.run("for i in range(1000):\n    print(i)")
	if n := strings.Count(text(outs, "stdout"), "\n"); n != 1000 || len(outs) > 5 {
		t.Fatalf("%d lines in %d frames", n, len(outs))
	}
	// Output after the cell's last write but before a sleep arrives while the
	// cell still runs: the sleep ends only by the interrupt sent on it.
	d.nextID++
	d.send(message{T: msgExec, ID: d.nextID, Code: "import time\nprint('early')\ntime.sleep(1000)"})
	// print writes the text and the newline apart; a busy machine may send
	// them in two frames.
	for early := ""; early != "early\n"; {
		m := d.next()
		if m.T != msgOut || !strings.HasPrefix("early\n", early+m.D) {
			t.Fatalf("%q then %+v", early, m)
		}
		early += m.D
	}
	d.cmd.Process.Signal(syscall.SIGINT)
	if m := d.next(); m.T != msgDone || m.Error == nil || m.Error.EName != "KeyboardInterrupt" {
		t.Fatalf("%+v", m)
	}
}

func TestDriverOutputCapAndSilent(t *testing.T) {
	d := startLocal(t)
	outs, _ := d.run("print('x' * 100000)", func(m *message) { m.MaxOutput = 1000 })
	// The head a little past the cap as it comes, then, when the cell ends,
	// the tail with the bytes cut before it.
	tail := outs[len(outs)-1]
	if n := len(text(outs[:len(outs)-1], "stdout")); n <= 1000 || n > 1100 {
		t.Fatalf("sent %d bytes for a 1000-byte cap", n)
	}
	if tail.Cut != 100001-1064-1000 || len(tail.D) != 1000 || !strings.HasSuffix(tail.D, "x\n") {
		t.Fatalf("tail of %d bytes after %d cut", len(tail.D), tail.Cut)
	}
	// Carriage returns are done before the cap counts: a progress bar fits.
	outs, _ = d.run("for i in range(1, 5001):\n    print(f'\\r{i}/5000', end='')", func(m *message) { m.MaxOutput = 1000 })
	if got := text(outs, "stdout"); !strings.HasSuffix(got, "\r5000/5000") || len(got) > 1000 || outs[len(outs)-1].Cut != 0 {
		t.Fatalf("progress sent as %q", got)
	}
	outs, done := d.run("print('hidden')\nz = 3\nz", func(m *message) { m.Silent = true })
	if len(outs) != 0 || done.Value != nil || done.Status != "ok" {
		t.Fatalf("silent: %+v %+v", outs, done)
	}
	if _, done := d.run("z"); valueText(done) != "3" {
		t.Fatalf("%+v", done)
	}
}

func TestDriverMIME(t *testing.T) {
	d := startLocal(t)
	_, done := d.run("class H:\n    def _repr_html_(self):\n        return '<b>h</b>'\n    def __repr__(self):\n        return 'H()'\nH()")
	if done.Value == nil || done.Value.Text != "H()" || done.Value.MIME["text/html"] != "<b>h</b>" || done.Value.MIME["text/plain"] != "H()" {
		t.Fatalf("%+v", done.Value)
	}
	_, done = d.run("class B:\n    def _repr_mimebundle_(self, include=None, exclude=None):\n        return {'text/markdown': '*b*', 'application/json': {'k': 1}}\nB")
	if done.Value == nil || len(done.Value.MIME) != 0 {
		t.Fatalf("a class is shown as text only: %+v", done.Value)
	}
	_, done = d.run("B()")
	if done.Value.MIME["text/markdown"] != "*b*" || done.Value.MIME["application/json"] != `{"k": 1}` {
		t.Fatalf("%+v", done.Value)
	}
	if _, done := d.run("import matplotlib"); done.Status != "ok" {
		t.Skipf("host python3 has no matplotlib: %+v", done.Error)
	}
	// As IPython's inline backend: a figure left open at the cell's end is
	// a display output after the value (a returned figure is the value too).
	for _, c := range []struct{ code, value string }{
		{"import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.title('t');", ""},
		{"fig, ax = plt.subplots()\nax.plot([1, 2])\nfig", "<Figure"},
	} {
		outs, done := d.run(c.code)
		if done.Status != "ok" || c.value == "" && done.Value != nil || c.value != "" && (done.Value == nil || !strings.HasPrefix(done.Value.Text, c.value)) {
			t.Fatalf("%q: %+v %+v", c.code, done, done.Error)
		}
		var shown []message
		for _, o := range outs {
			if o.T == msgDisplay {
				shown = append(shown, o)
			}
		}
		if len(shown) != 1 || !strings.HasPrefix(shown[0].MIME["text/plain"], "<Figure") {
			t.Fatalf("%q: displays %+v", c.code, shown)
		}
		png, err := base64.StdEncoding.DecodeString(shown[0].MIME["image/png"])
		if err != nil || !strings.HasPrefix(string(png), "\x89PNG\r\n\x1a\n") {
			t.Fatalf("%q: no PNG in %v (%v)", c.code, keys(shown[0].MIME), err)
		}
	}
	// Figures are closed after they are shown.
	if _, done := d.run("plt.get_fignums()"); valueText(done) != "[]" {
		t.Fatalf("%+v", done.Value)
	}
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func TestDriverInterruptKeepsState(t *testing.T) {
	d := startLocal(t)
	d.run("kept = [1]")
	d.nextID++
	d.send(message{T: msgExec, ID: d.nextID, Code: "kept.append(2)\nprint('looping', flush=True)\nwhile True:\n    pass"})
	// Interrupted once it runs: a SIGINT between cells is ignored, and the
	// cell would loop forever.
	if m := d.next(); m.T != msgOut || !strings.HasPrefix(m.D, "looping") {
		t.Fatalf("%+v", m)
	}
	d.cmd.Process.Signal(syscall.SIGINT)
	m := d.next()
	for m.T == msgOut { // the newline, when it came apart
		m = d.next()
	}
	if m.T != msgDone || m.Error == nil || m.Error.EName != "KeyboardInterrupt" || m.Error.Traceback[0].Line < 2 {
		t.Fatalf("%+v %+v", m, m.Error)
	}
	if _, done := d.run("kept"); valueText(done) != "[1, 2]" {
		t.Fatalf("%+v", done)
	}
	// SIGINT between cells is ignored.
	d.cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(50 * time.Millisecond)
	if _, done := d.run("len(kept)"); valueText(done) != "2" {
		t.Fatalf("%+v", done)
	}
}

func TestDriverVariables(t *testing.T) {
	d := startLocal(t)
	d.run("import os\n__hidden = 1\n_single = 2\nn = 5\ns = 'x' * 500\ndef f(): pass")
	d.send(message{T: msgVars, ID: 99, MaxRepr: 200})
	m := d.next()
	got := map[string]Variable{}
	for _, v := range m.Vars {
		got[v.Name] = v
	}
	if m.T != msgVars || got["n"].Repr != "5" || got["n"].Type != "int" || got["f"].Type != "function" ||
		got["s"].Repr != "'"+strings.Repeat("x", 199)+"…" || got["_single"].Repr != "2" {
		t.Fatalf("%+v", m.Vars)
	}
	for _, hidden := range []string{"os", "__hidden", "__builtins__", "__name__"} {
		if _, ok := got[hidden]; ok {
			t.Errorf("%s listed", hidden)
		}
	}
}

func TestDriverForkAndExit(t *testing.T) {
	d := startLocal(t)
	// A fork comes back into the driver: it must exit without a frame.
	outs, done := d.run("import os\npid = os.fork()\nprint('child' if pid == 0 else 'parent')\n1")
	if done.Status != "ok" || valueText(done) != "1" {
		t.Fatalf("%+v", done)
	}
	time.Sleep(100 * time.Millisecond)
	if _, done := d.run("2"); valueText(done) != "2" {
		t.Fatalf("%+v", done)
	}
	_ = outs
	// Pickle finds classes defined in cells (the cell namespace is __main__).
	if _, done := d.run("import pickle\nclass P: pass\ntype(pickle.loads(pickle.dumps(P()))).__name__"); valueText(done) != "'P'" {
		t.Fatalf("%+v %+v", done, done.Error)
	}
}

// SystemExit ends only the cell, as in IPython: the error says what
// str(exception) says, and the namespace stays.
func TestDriverSystemExitKeepsKernel(t *testing.T) {
	d := startLocal(t)
	d.run("kept = 7")
	for code, want := range map[string]string{
		"import sys\nsys.exit(3)": "3",
		"import sys\nsys.exit()":  "",
		"raise SystemExit('bye')": "bye",
		"exit(0)":                 "0",
		"import argparse\nargparse.ArgumentParser(prog='p').parse_args(['--help'])": "0",
	} {
		_, done := d.run(code)
		if done.Status != "error" || done.Error == nil || done.Error.EName != "SystemExit" || done.Error.EValue != want {
			t.Fatalf("%q: %+v %+v", code, done, done.Error)
		}
	}
	if _, done := d.run("kept"); valueText(done) != "7" {
		t.Fatalf("%+v", done)
	}
}

// A value is capped like the streams: its text is cut at the limit (the
// host adds the marker from Cut), MIME data over it is dropped.
func TestDriverValueCap(t *testing.T) {
	d := startLocal(t)
	cap := func(m *message) { m.MaxOutput = 1000 }
	_, done := d.run("s = 'é' * 3_000_000\ns", cap)
	v := done.Value
	if v == nil || len(v.Text) > 1000 || len(v.Text) < 990 || !strings.HasPrefix(v.Text, "'éé") || v.Cut != 3_000_002-len([]rune(v.Text)) {
		t.Fatalf("%d bytes, cut %d", len(valueText(done)), v.Cut)
	}
	_, done = d.run("class Big:\n    def _repr_png_(self):\n        return b'\\x89PNG' + bytes(5000)\n    def _repr_html_(self):\n        return '<b>small</b>'\nBig()", cap)
	v = done.Value
	if v == nil || v.MIME["image/png"] != "" || v.Dropped["image/png"] < 5000 || v.MIME["text/html"] != "<b>small</b>" || v.Cut != 0 {
		t.Fatalf("%+v", v)
	}
}

// input() asks the host when the exec request says it can answer; the
// prompt and the echoed answer are in stdout, as a console shows them.
func TestDriverInput(t *testing.T) {
	d := startLocal(t)
	d.nextID++
	d.send(message{T: msgExec, ID: d.nextID, Stdin: true, Code: "name = input('name? ')\nimport getpass\npw = getpass.getpass()\nprint('hello', name)\n(name, pw)"})
	var stdout strings.Builder
	asked := 0
	for {
		m := d.next()
		if m.T == msgOut {
			stdout.WriteString(m.D)
			continue
		}
		if m.T == msgInput {
			asked++
			line := "Ada"
			if m.Password {
				line = "s3cret"
			}
			if asked == 1 && (m.Prompt != "name? " || m.Password) || asked == 2 && (m.Prompt != "Password: " || !m.Password) {
				t.Fatalf("question %d: %+v", asked, m)
			}
			d.send(message{T: msgInput, ID: m.ID, Line: &line})
			continue
		}
		if m.T != msgDone || valueText(m) != "('Ada', 's3cret')" {
			t.Fatalf("%+v %+v", m, m.Error)
		}
		break
	}
	if got := stdout.String(); got != "name? Ada\nPassword: \nhello Ada\n" {
		t.Fatalf("stdout %q", got)
	}
	// Dismissed: KeyboardInterrupt; a late answer to an old question is
	// not taken by the next one.
	d.nextID++
	d.send(message{T: msgExec, ID: d.nextID, Stdin: true, Code: "try:\n    input('a')\nexcept KeyboardInterrupt:\n    pass\ninput('b')"})
	for {
		m := d.next()
		if m.T == msgOut {
			continue
		}
		if m.T == msgInput && m.Prompt == "a" {
			d.send(message{T: msgInput, ID: m.ID, Raise: "KeyboardInterrupt"})
			stale := "stale"
			d.send(message{T: msgInput, ID: m.ID, Line: &stale})
			continue
		}
		if m.T == msgInput && m.Prompt == "b" {
			line := "fresh"
			d.send(message{T: msgInput, ID: m.ID, Line: &line})
			continue
		}
		if m.T != msgDone || valueText(m) != "'fresh'" {
			t.Fatalf("%+v %+v", m, m.Error)
		}
		break
	}
	// No stdin: ipykernel's StdinNotImplementedError at once, no prompt.
	if _, done := d.run("input('x')"); done.Error == nil || done.Error.EName != "StdinNotImplementedError" ||
		done.Error.EValue != "raw_input was called, but this frontend does not support input requests." ||
		len(done.Error.Traceback) != 1 { // the driver's own frames are not shown
		t.Fatalf("%+v", done)
	}
}

// After an interrupt the processes the cell started are gone; one started
// by an earlier cell stays.
func TestDriverInterruptEndsCellProcesses(t *testing.T) {
	d := startLocal(t)
	_, done := d.run("import subprocess, time\nold = subprocess.Popen(['sleep', '1000'])\nold.pid")
	oldPid := valueText(done)
	time.Sleep(20 * time.Millisecond) // a later clock tick than the old process
	d.nextID++
	d.send(message{T: msgExec, ID: d.nextID, Code: "import os\nnew = subprocess.Popen(['sleep', '1000'])\nkid = subprocess.Popen(['sh', '-c', 'sleep 1000 & sleep 1000'])\nwhile len(open('/proc/%d/task/%d/children' % (kid.pid, kid.pid)).read().split()) < 2:\n    time.sleep(0.01)\nprint(new.pid, kid.pid, open('/proc/%d/task/%d/children' % (kid.pid, kid.pid)).read(), flush=True)\ntime.sleep(1000)"})
	var pids []string
	for {
		m := d.next()
		if m.T == msgOut {
			pids = strings.Fields(m.D)
			d.cmd.Process.Signal(syscall.SIGINT)
			continue
		}
		if m.T != msgDone || m.Error == nil || m.Error.EName != "KeyboardInterrupt" {
			t.Fatalf("%+v", m)
		}
		break
	}
	if len(pids) != 4 { // sleep, sh and the two sleeps of sh
		t.Fatalf("pids %q", pids)
	}
	for _, p := range pids {
		// Gone, or (outside a container, where sh's children go to another
		// parent) a zombie.
		if st, err := os.ReadFile("/proc/" + p + "/stat"); err == nil && !strings.Contains(string(st), ") Z ") {
			t.Errorf("process %s of the interrupted cell is still there: %s", p, st)
		}
	}
	// The old one stays.
	if _, err := os.Stat("/proc/" + oldPid); err != nil {
		t.Errorf("the earlier cell's process %s is gone: %v", oldPid, err)
	}
}

// The driver's source goes in as arguments under Linux's limit for one,
// cut where a UTF-8 character starts, and joins back whole.
func TestSplitSource(t *testing.T) {
	src := strings.Repeat("aé€😀", 1000)
	for _, n := range []int{1, 2, 3, 4, 5, 7, 100, 4096} {
		parts := splitSource(src, max(n, 4))
		for _, p := range parts {
			if len(p) > max(n, 4) || !utf8.ValidString(p) {
				t.Fatalf("n=%d: part of %d bytes, valid %v", n, len(p), utf8.ValidString(p))
			}
		}
		if strings.Join(parts, "") != src {
			t.Fatalf("n=%d: parts do not join back", n)
		}
	}
	if argv := driverCommand("python3"); len(argv) < 4 || strings.Join(argv[3:], "") != driverSource {
		t.Fatalf("driverCommand: %d args", len(argv))
	}
}

// %lsmagic --json names every magic the shell has, with its class: the
// table has each of IPython's once.
func TestMagicClassesCoverTheShell(t *testing.T) {
	seen := map[string]map[string]bool{"line": {}, "cell": {}}
	for _, m := range MagicClasses() {
		if seen[m.Kind][m.Name] || m.Class == "" {
			t.Errorf("%+v: twice, or no class", m)
		}
		seen[m.Kind][m.Name] = true
	}
	for kind, names := range map[string]map[string]bool{"line": LineMagics(), "cell": CellMagics()} {
		for n := range names {
			if !seen[kind][n] {
				t.Errorf("the shell's %s magic %s has no class", kind, n)
			}
		}
	}
	if len(seen["line"]) != 95 || len(seen["cell"]) != 28 {
		t.Errorf("%d line and %d cell magics, IPython 9.18.1 has 93 and 28, and autoreload's 2", len(seen["line"]), len(seen["cell"]))
	}
	// autoreload's are registered when it loads, not before.
	if got := fmt.Sprint(ExtensionMagics("autoreload")); got != "[{line autoreload AutoreloadMagics} {line aimport AutoreloadMagics}]" {
		t.Errorf("autoreload's magics: %s", got)
	}
	if ExtensionMagics("storemagic") != nil || HasLineMagic("autoreload") || strings.Contains(LsMagic(), "%aimport") || !strings.Contains(LsMagic("autoreload"), "%aimport  %alias") {
		t.Error("autoreload's magics are the shell's before it loads")
	}
	for args, want := range map[string]string{"": "false <nil>", "-j": "true <nil>", " --json ": "true <nil>", "--js -j": "true <nil>",
		"--": "false unrecognized arguments: --", "--xml -j x": "false unrecognized arguments: --xml x"} {
		if json, err := LsMagicJSON(args); fmt.Sprint(json, " ", err) != want {
			t.Errorf("LsMagicJSON(%q) = %v, %v, want %s", args, json, err, want)
		}
	}
}
