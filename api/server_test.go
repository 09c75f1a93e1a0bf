package api

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"go.uber.org/goleak"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/monty"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(containertest.RunThen(m, container.CloseShared)) }

// client talks to Serve over pipes: requests by id, notifications and the
// server's calls to handlers.
type client struct {
	t        *testing.T
	w        io.WriteCloser
	done     chan error
	stopOnce sync.Once

	mu      sync.Mutex
	id      int
	waiting map[int]chan message
	notes   []message         // notifications, in order
	onCall  func(message) any // answers call requests
	noted   chan struct{}
}

type message struct {
	ID     *int           `json:"id,omitempty"`
	Method string         `json:"method,omitempty"`
	Params jsontext.Value `json:"params,omitempty"`
	Result jsontext.Value `json:"result,omitempty"`
	Error  *responseError `json:"error,omitempty"`
}

type responseError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    struct {
		Kind string `json:"kind"`
	} `json:"data"`
}

func startServer(t *testing.T, opts Options) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Settings.Backend == "" {
		opts.Settings = contract.DefaultSettings()
	}
	c := &client{t: t, w: inW, done: make(chan error, 1), waiting: map[int]chan message{}, noted: make(chan struct{}, 1)}
	go func() {
		err := Serve(context.Background(), inR, outW, opts)
		outW.Close()
		c.done <- err
	}()
	go c.read(outR)
	t.Cleanup(func() { c.stop() })
	return c
}

// stop closes the server's input and waits for Serve to return.
func (c *client) stop() {
	c.stopOnce.Do(func() {
		c.w.Close()
		select {
		case <-c.done:
		case <-time.After(2 * time.Minute):
			c.t.Error("Serve did not return after its input ended")
		}
	})
}

func (c *client) read(r io.Reader) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadBytes('\n')
		if err != nil {
			return
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			c.t.Errorf("server wrote %q: %v", line, err)
			return
		}
		switch {
		case m.Method != "" && m.ID != nil:
			c.mu.Lock()
			h := c.onCall
			c.mu.Unlock()
			var res any = map[string]any{"error": map[string]string{"type": "RuntimeError", "message": "no handler"}}
			if h != nil {
				res = h(m)
			}
			b, _ := json.Marshal(res)
			c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":%s}`, *m.ID, b))
		case m.Method != "":
			c.mu.Lock()
			c.notes = append(c.notes, m)
			c.mu.Unlock()
			select {
			case c.noted <- struct{}{}:
			default:
			}
		case m.ID != nil:
			c.mu.Lock()
			ch := c.waiting[*m.ID]
			delete(c.waiting, *m.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- m
			}
		}
	}
}

func (c *client) send(line string) {
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Errorf("write: %v", err)
	}
}

// request sends a request and returns the channel its answer comes on.
func (c *client) request(method string, params any) chan message {
	b, err := json.Marshal(params)
	if err != nil {
		c.t.Fatal(err)
	}
	c.mu.Lock()
	c.id++
	id := c.id
	ch := make(chan message, 1)
	c.waiting[id] = ch
	c.mu.Unlock()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, b))
	return ch
}

// call sends a request and decodes its result into out (when not nil); it
// returns the error answer, if any.
func (c *client) call(method string, params, out any) *responseError {
	c.t.Helper()
	select {
	case m := <-c.request(method, params):
		if m.Error != nil {
			return m.Error
		}
		if out != nil {
			if err := json.Unmarshal(m.Result, out); err != nil {
				c.t.Fatalf("%s result %s: %v", method, m.Result, err)
			}
		}
		return nil
	case <-time.After(2 * time.Minute):
		c.t.Fatalf("no answer to %s", method)
		return nil
	}
}

func (c *client) must(method string, params, out any) {
	c.t.Helper()
	if e := c.call(method, params, out); e != nil {
		c.t.Fatalf("%s: %d %s (%s)", method, e.Code, e.Message, e.Data.Kind)
	}
}

func (c *client) notifications(method string) []message {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []message
	for _, m := range c.notes {
		if m.Method == method {
			out = append(out, m)
		}
	}
	return out
}

func needMonty(t *testing.T) {
	t.Helper()
	if _, err := monty.Find(""); err != nil {
		t.Skip("no Monty worker (make setup)")
	}
}

func TestRunKeepsStateStreamsAndCallsHostFunctions(t *testing.T) {
	needMonty(t)
	c := startServer(t, Options{Version: "test"})
	var hello contract.HelloResult
	c.must(contract.APIHello, map[string]any{"client": "test"}, &hello)
	if hello.Version != "test" || hello.MaxRequestBytes != contract.MaxRequestBytes || hello.Monty == "" {
		t.Fatalf("hello = %+v", hello)
	}
	var calls []string
	c.onCall = func(m message) any {
		var p contract.CallParams
		json.Unmarshal(m.Params, &p)
		calls = append(calls, p.Function+string(p.Args[0]))
		if p.Function == "boom" {
			return map[string]any{"error": map[string]string{"type": "ValueError", "message": "bad " + string(p.Args[0])}}
		}
		// Output sent before the call came first.
		if len(c.notifications(contract.APIClientOutput)) == 0 {
			return map[string]any{"error": map[string]string{"type": "AssertionError", "message": "no output yet"}}
		}
		return jsontext.Value(`{"value":{"n":41,"f":2.0}}`) // a float stays one
	}
	var open contract.OpenResult
	c.must(contract.APIOpen, map[string]any{"backend": "monty", "functions": []string{"lookup", "boom"}}, &open)
	var rec contract.Execution
	c.must(contract.APIRun, map[string]any{"sandbox": open.Sandbox, "code": "print('before')\nd = lookup(1)\nd['n'] + 1", "stream": true}, &rec)
	if rec.Status != contract.StatusOK || rec.Result == nil || rec.Result.Text != "42" || rec.Stdout != "before\n" {
		t.Fatalf("run: %+v %+v", rec, rec.Error)
	}
	if out := c.notifications(contract.APIClientOutput); len(out) != 1 || !strings.Contains(string(out[0].Params), `"text":"before\n"`) {
		t.Fatalf("output notifications: %v", out)
	}
	c.must(contract.APIRun, map[string]any{"sandbox": open.Sandbox, "code": "type(d['f']).__name__"}, &rec)
	if rec.Result == nil || rec.Result.Text != "'float'" {
		t.Fatalf("a float from the host: %+v", rec.Result)
	}
	c.must(contract.APIRun, map[string]any{"sandbox": open.Sandbox, "code": "boom('x')"}, &rec)
	if rec.Status != contract.StatusError || rec.Error.EName != "ValueError" || rec.Error.EValue != `bad "x"` {
		t.Fatalf("a host function's exception: %+v", rec.Error)
	}
	c.must(contract.APIRun, map[string]any{"sandbox": open.Sandbox, "code": "d['n'] * x", "inputs": map[string]any{"x": 2}}, &rec)
	if rec.Result == nil || rec.Result.Text != "82" || rec.ExecutionCount != 4 {
		t.Fatalf("state and inputs: %+v", rec)
	}
	if strings.Join(calls, ",") != `lookup1,boom"x"` {
		t.Fatalf("calls: %v", calls)
	}
}

func TestErrorsSayWhatKind(t *testing.T) {
	needMonty(t)
	c := startServer(t, Options{MaxRequestBytes: 50_000})
	for _, x := range []struct {
		method string
		params any
		kind   string
	}{
		{contract.APIRun, map[string]any{"sandbox": "s99", "code": "1"}, "closed"},
		{contract.APIOpen, map[string]any{"timeout_s": -1}, "bad_argument"},
		{contract.APIOpen, map[string]any{"backend": "gpu"}, "bad_argument"},
		{contract.APIOpen, map[string]any{"monty": "/no/such/monty"}, "bad_argument"},
		{contract.APIOpen, map[string]any{"functions": []string{"not a name"}}, "bad_argument"},
		{contract.APIRun, map[string]any{"code": "1"}, "bad_argument"},
		{"nope", map[string]any{}, "bad_argument"},
		{contract.APIRun, map[string]any{"sandbox": "s1", "code": strings.Repeat("x", 60_000)}, "too_large"},
		{contract.APIBatchEnd, map[string]any{"batch": "b9"}, "closed"},
	} {
		e := c.call(x.method, x.params, nil)
		if e == nil || e.Data.Kind != x.kind {
			t.Errorf("%s %v: %+v, want kind %s", x.method, x.params, e, x.kind)
		}
	}
	// The server goes on.
	var open contract.OpenResult
	c.must(contract.APIOpen, map[string]any{"backend": "monty"}, &open)
	var rec contract.Execution
	c.must(contract.APIRun, map[string]any{"sandbox": open.Sandbox, "code": "1 + 1"}, &rec)
	if rec.Result == nil || rec.Result.Text != "2" {
		t.Fatalf("after the errors: %+v", rec)
	}
}

func TestInterruptReachesARunningCell(t *testing.T) {
	needMonty(t)
	c := startServer(t, Options{})
	var open contract.OpenResult
	c.must(contract.APIOpen, map[string]any{"backend": "monty", "timeout_s": 60}, &open)
	run := c.request(contract.APIRun, map[string]any{"sandbox": open.Sandbox, "code": "print('go')\nwhile True:\n    pass", "stream": true})
	for len(c.notifications(contract.APIClientOutput)) == 0 {
		<-c.noted
	}
	var ir contract.InterruptResult
	c.must(contract.APIInterrupt, map[string]any{"sandbox": open.Sandbox}, &ir)
	if !ir.Interrupted {
		t.Fatal("interrupt says no cell was running")
	}
	m := <-run
	var rec contract.Execution
	json.Unmarshal(m.Result, &rec)
	if rec.Status != contract.StatusInterrupted {
		t.Fatalf("run after the interrupt: %+v", rec)
	}
}

type batchResults struct {
	index []int
	recs  []*contract.Execution
	err   string
}

func (c *client) batchResults(batch string) batchResults {
	var out batchResults
	for _, m := range c.notifications(contract.APIClientBatchResults) {
		var p contract.BatchResultsParams
		json.Unmarshal(m.Params, &p)
		if p.Batch != batch {
			continue
		}
		for _, r := range p.Results {
			out.index = append(out.index, r.Index)
			out.recs = append(out.recs, r.Execution)
		}
		if p.Error != "" {
			out.err = p.Error
		}
	}
	return out
}

func TestBatchOrderedResults(t *testing.T) {
	needMonty(t)
	c := startServer(t, Options{})
	var b contract.BatchOpenResult
	c.must(contract.APIBatchOpen, map[string]any{"backend": "monty", "ordered": true, "parallel": 2}, &b)
	for start := 0; start < 300; start += 100 {
		var sn []map[string]any
		for i := start; i < start+100; i++ {
			code := strconv.Itoa(i) + " * 3"
			if i == 10 {
				code = "sum(range(3000000))"
			}
			sn = append(sn, map[string]any{"code": code})
		}
		sn[0]["timeout_s"] = -1 // bad: an error record, in its place
		b, _ := json.Marshal(map[string]any{"batch": "b1", "snippets": sn})
		c.send(`{"jsonrpc":"2.0","method":"batch_add","params":` + string(b) + `}`)
	}
	var end contract.BatchEndResult
	c.must(contract.APIBatchEnd, map[string]any{"batch": "b1"}, &end)
	if end.Snippets != 300 {
		t.Fatalf("end: %+v", end)
	}
	res := c.batchResults("b1")
	if len(res.index) != 300 {
		t.Fatalf("%d results", len(res.index))
	}
	for i, idx := range res.index {
		r := res.recs[i]
		switch {
		case idx != i:
			t.Fatalf("result %d has index %d: not in input order", i, idx)
		case i%100 == 0:
			if r.Error == nil || r.Error.EName != "BatchInputError" {
				t.Fatalf("snippet %d: %+v", i, r)
			}
		case i == 10:
			if r.Status != contract.StatusOK {
				t.Fatalf("snippet 10: %+v", r.Error)
			}
		case r.Result == nil || r.Result.Text != strconv.Itoa(i*3) || r.ExecutionCount != 1:
			t.Fatalf("snippet %d: %+v", i, r)
		}
	}
}

// montyWorkers are the live Monty worker processes started by this test
// binary.
func montyWorkers(t *testing.T) []int {
	t.Helper()
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(fields) < 2 || fields[0] == "Z" || fields[1] != strconv.Itoa(os.Getpid()) {
			continue
		}
		cmd, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if filepath.Base(strings.Split(string(cmd), "\x00")[0]) == "monty" {
			out = append(out, pid)
		}
	}
	return out
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestBatchCancelLeavesNothingRunning(t *testing.T) {
	needMonty(t)
	if len(montyWorkers(t)) > 0 {
		t.Skip("Monty workers of another test are still running")
	}
	c := startServer(t, Options{})
	var b contract.BatchOpenResult
	c.must(contract.APIBatchOpen, map[string]any{"backend": "monty", "parallel": 2, "timeout_s": 60}, &b)
	sn := []map[string]any{{"code": "1"}}
	for range 50 {
		sn = append(sn, map[string]any{"code": "while True:\n    pass"})
	}
	p, _ := json.Marshal(map[string]any{"batch": b.Batch, "snippets": sn})
	c.send(`{"jsonrpc":"2.0","method":"batch_add","params":` + string(p) + `}`)
	waitFor(t, "the first result", func() bool { return len(c.batchResults(b.Batch).index) > 0 })
	if len(montyWorkers(t)) == 0 {
		t.Fatal("no worker runs the batch")
	}
	c.must(contract.APIBatchCancel, map[string]any{"batch": b.Batch}, nil)
	if w := montyWorkers(t); len(w) > 0 {
		t.Fatalf("workers %v still run after batch_cancel answered", w)
	}
	if e := c.call(contract.APIBatchEnd, map[string]any{"batch": b.Batch}, nil); e == nil || e.Data.Kind != "closed" {
		t.Fatalf("the cancelled batch: %+v", e)
	}
}

func TestInputEndClosesEverything(t *testing.T) {
	needMonty(t)
	if len(montyWorkers(t)) > 0 {
		t.Skip("Monty workers of another test are still running")
	}
	c := startServer(t, Options{})
	for range 3 {
		var open contract.OpenResult
		c.must(contract.APIOpen, map[string]any{"backend": "monty"}, &open)
		c.must(contract.APIRun, map[string]any{"sandbox": open.Sandbox, "code": "x = 1"}, nil)
	}
	var b contract.BatchOpenResult
	c.must(contract.APIBatchOpen, map[string]any{"backend": "monty"}, &b)
	p, _ := json.Marshal(map[string]any{"batch": b.Batch, "snippets": []map[string]any{{"code": "1"}, {"code": "while True:\n    pass"}}})
	c.send(`{"jsonrpc":"2.0","method":"batch_add","params":` + string(p) + `}`)
	waitFor(t, "the batch's first result", func() bool { return len(c.batchResults(b.Batch).index) > 0 })
	if n := len(montyWorkers(t)); n < 4 {
		t.Fatalf("%d workers, want the three sandboxes' and the batch's", n)
	}
	c.stop() // the client goes away: its input ends
	if w := montyWorkers(t); len(w) > 0 {
		t.Fatalf("workers %v outlive the server", w)
	}
}

func TestASandboxWithoutAWorkspaceWorksInAFolderOfItsOwn(t *testing.T) {
	needMonty(t)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	folders := func() []string {
		m, _ := filepath.Glob(filepath.Join(tmp, "backyard-sandbox-*"))
		return m
	}
	c := startServer(t, Options{})
	var open contract.OpenResult
	c.must(contract.APIOpen, map[string]any{"backend": "monty"}, &open)
	var rec contract.Execution
	c.must(contract.APIRun, map[string]any{"sandbox": open.Sandbox, "code": "import os\nos.getcwd()"}, &rec)
	mine := folders()
	if len(mine) != 1 || rec.Result == nil || rec.Result.Text != "'"+mine[0]+"'" {
		t.Fatalf("cwd %+v, folders %v", rec.Result, mine)
	}
	// A sandbox that fails to open leaves no folder.
	if e := c.call(contract.APIOpen, map[string]any{"functions": []string{"not a name"}}, nil); e == nil {
		t.Fatal("a bad function name opened a sandbox")
	}
	if got := folders(); !slices.Equal(got, mine) {
		t.Fatalf("folders after a failed open: %v", got)
	}
	c.must(contract.APIClose, map[string]any{"sandbox": open.Sandbox}, nil)
	if got := folders(); len(got) != 0 {
		t.Fatalf("folders after close: %v", got)
	}
	// The server removes those of the sandboxes still open when it stops.
	c.must(contract.APIOpen, map[string]any{"backend": "monty"}, &open)
	if len(folders()) != 1 {
		t.Fatalf("folders: %v", folders())
	}
	c.stop()
	if got := folders(); len(got) != 0 {
		t.Fatalf("folders after the server stopped: %v", got)
	}
}

func TestReapFoldersRemovesOnlyThoseOfGoneServers(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	// A pid that was a process and is gone.
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	gone := filepath.Join(tmp, folderPrefix+strconv.Itoa(cmd.Process.Pid)+"-1")
	alive := filepath.Join(tmp, folderPrefix+strconv.Itoa(os.Getppid())+"-2")
	other := filepath.Join(tmp, "backyard-sandbox-notapid-3")
	for _, d := range []string{gone, alive, other} {
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	if got := ReapFolders(); !slices.Equal(got, []string{gone}) {
		t.Fatalf("removed %v, want %v", got, gone)
	}
	for d, want := range map[string]bool{gone: false, alive: true, other: true} {
		if _, err := os.Stat(d); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", d, err == nil, want)
		}
	}
}
