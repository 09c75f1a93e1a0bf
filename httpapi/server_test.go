package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/contract"
)

// serve starts a server with opts behind a real HTTP listener.
func serve(t *testing.T, opts Options) (*Server, string) {
	t.Helper()
	s := newServer(t, opts)
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	return s, hs.URL
}

// send sends a request with a JSON (or raw string) body and decodes the
// answer into out (when not nil); it returns the status code and the raw
// body.
func send(t *testing.T, ctx context.Context, method, url string, body any, out any, header ...string) (int, string) {
	t.Helper()
	var data []byte
	switch b := body.(type) {
	case nil:
	case string:
		data = []byte(b)
	default:
		data, _ = json.Marshal(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i] == "Host" {
			req.Host = header[i+1]
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, ""
		}
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
	}
	return resp.StatusCode, string(raw)
}

// runCode posts a /run_code request and returns its answer; the request
// must be answered 200.
func runCode(t *testing.T, url string, req map[string]any) contract.RunCodeResponse {
	t.Helper()
	if req["language"] == nil {
		req["language"] = "python"
	}
	var resp contract.RunCodeResponse
	if code, raw := send(t, context.Background(), "POST", url+"/run_code", req, &resp); code != http.StatusOK {
		t.Fatalf("%v: %d %s", req, code, raw)
	}
	return resp
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

func str(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}

func returnCode(r *contract.CommandRunResult) string {
	if r == nil || r.ReturnCode == nil {
		return "<null>"
	}
	return strconv.Itoa(*r.ReturnCode)
}

// A program ends as `python file.py` would: output, exit code, traceback
// on stderr, SystemExit's code, a timeout, stdin, files in and out — on
// Monty where it runs there, in the container otherwise.
func TestRunCodeAsAProgram(t *testing.T) {
	_, url := serve(t, Options{Settings: settings(contract.BackendAuto), MaxTimeout: time.Minute})
	binary := "\x00\xff\x10 bytes\n"
	cases := []struct {
		name   string
		req    map[string]any
		status contract.RunStatus
		run    contract.CommandRunStatus
		code   string
		stdout string
		stderr string // a regexp
		files  map[string]string
	}{
		{"print", map[string]any{"code": "x = 6 * 7\nprint(x)\nx"}, contract.RunSuccess, contract.CommandFinished, "0", "42\n", "^$", nil},
		{"exception", map[string]any{"code": "def f(n):\n    return 10 / n\nprint('before')\nf(0)"}, contract.RunFailed, contract.CommandFinished, "1", "before\n",
			`^Traceback \(most recent call last\):\n  File "<snippet>", line 4, in <module>\n    f\(0\)\n  File "<snippet>", line 2, in f\n    return 10 / n\nZeroDivisionError: division by zero\n$`, nil},
		{"syntax error", map[string]any{"code": "print(1)\ndef f(:\n"}, contract.RunFailed, contract.CommandFinished, "1", "", `(?s)SyntaxError: .*\n$`, nil},
		// A program is plain Python: IPython's syntax is not (a batch's
		// cells have it).
		{"magic", map[string]any{"code": "print(1)\n%time 1"}, contract.RunFailed, contract.CommandFinished, "1", "", `(?s)line 2\n.*SyntaxError: invalid syntax\n$`, nil},
		{"shell escape", map[string]any{"code": "!echo hi"}, contract.RunFailed, contract.CommandFinished, "1", "", `(?s)SyntaxError: invalid syntax\n$`, nil},
		{"automagic", map[string]any{"code": "pwd"}, contract.RunFailed, contract.CommandFinished, "1", "", `NameError: name 'pwd' is not defined\n$`, nil},
		{"exit 3", map[string]any{"code": "import sys\nprint('x')\nsys.exit(3)"}, contract.RunFailed, contract.CommandFinished, "3", "x\n", "^$", nil},
		{"exit none", map[string]any{"code": "import sys\nsys.exit()"}, contract.RunSuccess, contract.CommandFinished, "0", "", "^$", nil},
		{"exit message", map[string]any{"code": "raise SystemExit('bye')"}, contract.RunFailed, contract.CommandFinished, "1", "", "^bye\n$", nil},
		{"os._exit", map[string]any{"code": "import os\nprint('a', flush=True)\nos._exit(7)"}, contract.RunFailed, contract.CommandFinished, "7", "a\n", "^$", nil},
		{"killed", map[string]any{"code": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)"}, contract.RunFailed, contract.CommandFinished, "-9", "", "^$", nil},
		{"timeout", map[string]any{"code": "print('started', flush=True)\nwhile True:\n    pass", "run_timeout": 1}, contract.RunFailed, contract.CommandTimeLimitExceeded, "<null>", "started\n", "^$", nil},
		{"stdin", map[string]any{"code": "import sys\nprint(repr(sys.stdin.read()))", "stdin": "1 2\n3"}, contract.RunSuccess, contract.CommandFinished, "0", "'1 2\\n3'\n", "^$", nil},
		{"input", map[string]any{"code": "a = input()\nb = input()\nprint(int(a) + int(b))", "stdin": "40\n2\n"}, contract.RunSuccess, contract.CommandFinished, "0", "42\n", "^$", nil},
		{"files", map[string]any{
			"code":        "import os\ndata = open('in/data.bin', 'rb').read()\nos.makedirs('out')\nopen('out/copy.bin', 'wb').write(data[::-1])\nprint(len(data), os.path.exists('skipped.txt'))",
			"files":       map[string]any{"in/data.bin": b64(binary), "skipped.txt": nil},
			"fetch_files": []string{"out/copy.bin", "in/data.bin", "missing.txt"},
		}, contract.RunSuccess, contract.CommandFinished, "0", "10 False\n", "^$", map[string]string{"out/copy.bin": reverse(binary), "in/data.bin": binary}},
		{"memory", map[string]any{"code": "x = bytearray(200 * 1024 * 1024)\nprint('allocated')", "memory_limit_MB": 64}, contract.RunFailed, contract.CommandFinished, "1", "", `MemoryError`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := runCode(t, url, c.req)
			if r.Status != c.status || r.RunResult == nil || r.RunResult.Status != c.run || returnCode(r.RunResult) != c.code || str(r.RunResult.Stdout) != c.stdout ||
				!regexp.MustCompile(c.stderr).MatchString(str(r.RunResult.Stderr)) || r.CompileResult != nil || r.Message != "" || r.RunResult.ExecutionTime == nil {
				t.Fatalf("%s %q: %+v %+v stdout %q stderr %q code %s", c.name, c.req["code"], r, r.RunResult, str(r.RunResult.Stdout), str(r.RunResult.Stderr), returnCode(r.RunResult))
			}
			got := map[string]string{}
			for p, data := range r.Files {
				raw, err := base64.StdEncoding.DecodeString(data)
				if err != nil {
					t.Fatal(err)
				}
				got[p] = string(raw)
			}
			if fmt.Sprint(got) != fmt.Sprint(orEmpty(c.files)) {
				t.Fatalf("files %q, want %q", got, c.files)
			}
		})
	}
}

func reverse(s string) string {
	b := []byte(s)
	for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
		b[i], b[j] = b[j], b[i]
	}
	return string(b)
}

func orEmpty(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

// What is not a valid request gets SandboxFusion's answer for it (422 with
// FastAPI's detail list, a SandboxError for a language SandboxFusion knows
// but this server does not run, 413 for a body over the limit), and the
// server keeps serving.
func TestBadRequests(t *testing.T) {
	_, url := serve(t, Options{Settings: settings(contract.BackendMonty), MaxBodyBytes: 1 << 16})
	for _, c := range []struct {
		path, body string
		code       int
		detail     string // a regexp the body matches
	}{
		{"/run_code", `{"code": "print(1)", `, 422, `"type":"json_invalid","loc":\["body",\d+\]`},
		{"/run_code", ``, 422, `"type":"json_invalid"`},
		{"/run_code", `[1, 2]`, 422, `"type":"model_attributes_type"`},
		{"/run_code", `{"language": "python"}`, 422, `"type":"missing","loc":\["body","code"\],"msg":"Field required"`},
		{"/run_code", `{"code": "1", "language": "python", "run_timeout": "soon"}`, 422, `"type":"float_type","loc":\["body","run_timeout"\]`},
		{"/run_code", `{"code": "1", "language": "python", "run_timeout": null}`, 422, `"loc":\["body","run_timeout"\]`},
		{"/run_code", `{"code": "1", "language": "python", "run_timeout": 0}`, 422, `"type":"greater_than"`},
		{"/run_code", `{"code": "1", "language": "python", "files": {"a.txt": "not base64!"}}`, 422, `"loc":\["body","files","a.txt"\]`},
		{"/run_code", `{"code": "1", "language": "python", "files": {"../a.txt": "YQ=="}}`, 422, `must be a relative path`},
		{"/run_code", `{"code": "1", "language": "python", "fetch_files": ["/etc/passwd"]}`, 422, `"loc":\["body","fetch_files"\]`},
		{"/run_code", `{"code": "1", "language": "brainfuck"}`, 422, `"type":"literal_error","loc":\["body","language"\],"msg":"Input should be 'python', .*"input":"brainfuck"`},
		{"/run_code", `{"code": "int main() {}", "language": "cpp"}`, 200, `^\{"status":"SandboxError","message":"language \\"cpp\\" is not supported here.*"run_result":null`},
		{"/run_code", `{"code": "` + strings.Repeat("x", 1<<16) + `", "language": "python"}`, 413, `"detail":"the request body is larger than this server takes \(65536 bytes`},
		{"/run_jupyter", `{"cells": ["1"], "kernel": "python2"}`, 422, `"loc":\["body","kernel"\]`},
		{"/run_jupyter", `{}`, 422, `"loc":\["body","cells"\]`},
		{"/no_such_thing", `{}`, 404, `"detail":"no endpoint POST /no_such_thing`},
		{"/sessions/nope/run", `{"code": "1"}`, 404, `no session \\"nope\\" is open`},
	} {
		code, body := send(t, context.Background(), "POST", url+c.path, c.body, nil)
		if code != c.code || !regexp.MustCompile(c.detail).MatchString(body) {
			t.Errorf("%s %.80s: %d %s", c.path, c.body, code, body)
		}
	}
	// A chunked body has no length to refuse up front: it is cut at the
	// limit.
	req, _ := http.NewRequest("POST", url+"/run_code", io.MultiReader(strings.NewReader(`{"code": "`), strings.NewReader(strings.Repeat("x", 1<<17))))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("chunked: %d", resp.StatusCode)
	}
	if r := runCode(t, url, map[string]any{"code": "print('still serving')"}); r.Status != contract.RunSuccess || str(r.RunResult.Stdout) != "still serving\n" {
		t.Fatalf("%+v", r)
	}
}

// metric reads one sample of the server's metrics (0 when absent).
func metric(t *testing.T, url, name string) float64 {
	t.Helper()
	_, body := send(t, context.Background(), "GET", url+"/metrics", nil, nil)
	re := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(name) + ` (\S+)$`)
	m := re.FindStringSubmatch(body)
	if m == nil {
		return 0
	}
	v, _ := strconv.ParseFloat(m[1], 64)
	return v
}

// waitMetric waits until a metric reaches want.
func waitMetric(t *testing.T, url, name string, want float64) {
	t.Helper()
	for metric(t, url, name) < want {
		time.Sleep(5 * time.Millisecond)
	}
}

// Past the running cap and the queue a request gets 429 with Retry-After
// at once; a queued request runs when a slot frees.
func TestOverload(t *testing.T) {
	_, url := serve(t, Options{Settings: settings(contract.BackendMonty), MaxRunning: 1, MaxQueued: 1})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := make(chan int, 1)
	go func() {
		code, _ := send(t, ctx, "POST", url+"/run_code", map[string]any{"code": "while True:\n    pass", "language": "python", "run_timeout": 300}, nil)
		first <- code
	}()
	waitMetric(t, url, "backyard_runs_in_progress", 1)
	queued := make(chan contract.RunCodeResponse, 1)
	go func() { queued <- runCode(t, url, map[string]any{"code": "print('queued')"}) }()
	waitMetric(t, url, "backyard_queue_depth", 1)
	req, _ := http.NewRequest("POST", url+"/run_code", strings.NewReader(`{"code": "print(1)", "language": "python"}`))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !strings.Contains(string(body), "busy") {
		t.Fatalf("past the queue: %d %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
	cancel() // the first client goes away: its run stops and frees the slot
	if r := <-queued; r.Status != contract.RunSuccess || str(r.RunResult.Stdout) != "queued\n" {
		t.Fatalf("%+v", r)
	}
	<-first
	if n := metric(t, url, `backyard_http_requests_total{code="429",endpoint="/run_code"}`); n != 1 {
		t.Fatalf("429s counted: %v", n)
	}
}

// A client that goes away stops its run: the lane it held serves the next
// request long before the run's time limit.
func TestDisconnectStopsTheRun(t *testing.T) {
	for _, b := range []contract.Backend{contract.BackendMonty, contract.BackendContainer} {
		t.Run(string(b), func(t *testing.T) {
			_, url := serve(t, Options{Settings: settings(b), Parallel: 1})
			runCode(t, url, map[string]any{"code": "print('warm')"}) // the lane is up
			for i, code := range []string{"while True:\n    pass", "import time\ntime.sleep(300)"} {
				ctx, cancel := context.WithCancel(context.Background())
				done := make(chan struct{})
				go func() {
					defer close(done)
					send(t, ctx, "POST", url+"/run_code", map[string]any{"code": code, "language": "python", "run_timeout": 300}, nil)
				}()
				waitMetric(t, url, "backyard_runs_in_progress", 1)
				cancel()
				<-done
				waitMetric(t, url, fmt.Sprintf(`backyard_runs_total{backend=%q,endpoint="run_code",status="interrupted"}`, b), float64(i+1))
				if r := runCode(t, url, map[string]any{"code": "print('next')"}); r.Status != contract.RunSuccess || str(r.RunResult.Stdout) != "next\n" {
					t.Fatalf("%+v", r)
				}
			}
		})
	}
}

// Beyond loopback the bearer token is required (not for /healthz); on
// loopback a foreign Host or Origin is refused.
func TestGuards(t *testing.T) {
	_, url := serve(t, Options{Settings: settings(contract.BackendMonty), Token: "s3cret", Loopback: true, AllowOrigins: []string{"https://app.example"}})
	prog := map[string]any{"code": "print(1)", "language": "python"}
	for _, c := range []struct {
		header []string
		code   int
	}{
		{nil, 401},
		{[]string{"Authorization", "Bearer wrong"}, 401},
		{[]string{"Authorization", "s3cret"}, 401},
		{[]string{"Authorization", "Bearer s3cret"}, 200},
		{[]string{"Authorization", "Basic " + b64("s3cret:")}, 200},
		{[]string{"Authorization", "Basic " + b64("anyone:s3cret")}, 200},
		{[]string{"Authorization", "Basic " + b64("s3cret:wrong")}, 401},
		{[]string{"Authorization", "Bearer s3cret", "Host", "evil.example"}, 403},
		{[]string{"Authorization", "Bearer s3cret", "Host", "localhost:8080"}, 200},
		{[]string{"Authorization", "Bearer s3cret", "Origin", "http://evil.example"}, 403},
		{[]string{"Authorization", "Bearer s3cret", "Origin", "http://localhost:3000"}, 200},
		{[]string{"Authorization", "Bearer s3cret", "Origin", "https://app.example"}, 200},
	} {
		if code, body := send(t, context.Background(), "POST", url+"/run_code", prog, nil, c.header...); code != c.code {
			t.Errorf("%v: %d %s", c.header, code, body)
		}
	}
	if code, _ := send(t, context.Background(), "GET", url+"/healthz", nil, nil); code != 200 {
		t.Fatalf("healthz without the token: %d", code)
	}
	if code, _ := send(t, context.Background(), "GET", url+"/metrics", nil, nil); code != 401 {
		t.Fatalf("metrics without the token: %d", code)
	}
}

// /run_jupyter runs its cells in one session as a Jupyter kernel does:
// displays, an error that does not stop the next cell, files in and out;
// past total_timeout the answer is Failed with the cells that ran.
func TestRunJupyter(t *testing.T) {
	_, url := serve(t, Options{Settings: settings(contract.BackendAuto)})
	var r contract.RunJupyterResponse
	code, raw := send(t, context.Background(), "POST", url+"/run_jupyter", map[string]any{
		"cells": []string{"a = 123", "a", "print(a)", "import sys; sys.stderr.write('err\\n')", "raise RuntimeError('boom')",
			"import numpy as np\nint(np.arange(a).sum())", "open('out.txt', 'w').write(open('in.txt').read().upper())"},
		"files": map[string]string{"in.txt": b64("data\n")}, "fetch_files": []string{"out.txt", "in.txt", "none.txt"},
	}, &r)
	if code != 200 || r.Status != contract.RunSuccess || r.Driver == nil || r.Driver.Status != contract.CommandFinished || len(r.Cells) != 7 {
		t.Fatalf("%d %s", code, raw)
	}
	want := []string{ // stdout|stderr|displays
		"||[]", "||[map[text/plain:123]]", "123\n||[]", "|err\n|[map[text/plain:4]]", "", "||[map[text/plain:7503]]", "||[map[text/plain:5]]",
	}
	for i, c := range r.Cells {
		if i == 4 {
			if len(c.Error) != 1 || c.Error[0].EName != "RuntimeError" || c.Error[0].EValue != "boom" || c.Error[0].Traceback[len(c.Error[0].Traceback)-1] != "RuntimeError: boom" {
				t.Fatalf("cell 4: %+v", c)
			}
			continue
		}
		if got := c.Stdout + "|" + c.Stderr + "|" + fmt.Sprint(c.Display); got != want[i] || len(c.Error) != 0 {
			t.Errorf("cell %d: %q %v, want %q", i, got, c.Error, want[i])
		}
	}
	if r.Files["out.txt"] != b64("DATA\n") || r.Files["in.txt"] != b64("data\n") || len(r.Files) != 2 {
		t.Fatalf("files %v", r.Files)
	}
	code, raw = send(t, context.Background(), "POST", url+"/run_jupyter", map[string]any{"cells": []string{"x = 1", "while True:\n    pass", "x"}, "total_timeout": 2}, &r)
	if code != 200 || r.Status != contract.RunFailed || r.Driver.Status != contract.CommandTimeLimitExceeded || r.Driver.ReturnCode != nil || len(r.Cells) != 2 ||
		r.Cells[1].Error[0].EName != "TimeoutError" {
		t.Fatalf("%d %s", code, raw)
	}
}

// Sessions keep names between runs until reset; closed or idle sessions
// are gone; past --max-sessions a new one is refused.
func TestSessions(t *testing.T) {
	_, url := serve(t, Options{Settings: settings(contract.BackendMonty), MaxSessions: 2, IdleTimeout: 200 * time.Millisecond})
	ctx := context.Background()
	var a, b contract.SessionInfo
	if code, raw := send(t, ctx, "POST", url+"/sessions", map[string]any{}, &a); code != 200 || a.Backend != contract.BackendMonty || a.IdleTimeoutS != 0.2 {
		t.Fatalf("%d %s", code, raw)
	}
	if code, raw := send(t, ctx, "POST", url+"/sessions", map[string]any{"backend": "container"}, nil); code != 422 || !strings.Contains(raw, "monty backend only") {
		t.Fatalf("%d %s", code, raw)
	}
	var x contract.Execution
	run := func(id, code string) (int, string) {
		x = contract.Execution{}
		return send(t, ctx, "POST", url+"/sessions/"+id+"/run", map[string]any{"code": code}, &x)
	}
	run(a.Session, "x = 41")
	if code, raw := run(a.Session, "x + 1"); code != 200 || x.Status != contract.StatusOK || x.Result == nil || x.Result.Text != "42" || x.ExecutionCount != 2 {
		t.Fatalf("%d %s", code, raw)
	}
	if code, raw := send(t, ctx, "POST", url+"/sessions/"+a.Session+"/reset", nil, nil); code != 200 {
		t.Fatalf("%d %s", code, raw)
	}
	if code, raw := run(a.Session, "x"); code != 200 || x.Status != contract.StatusError || x.Error.EName != "NameError" || x.ExecutionCount != 1 {
		t.Fatalf("after reset: %d %s", code, raw)
	}
	send(t, ctx, "POST", url+"/sessions", map[string]any{}, &b)
	if code, raw := send(t, ctx, "POST", url+"/sessions", map[string]any{}, nil); code != 429 || !strings.Contains(raw, "--max-sessions") {
		t.Fatalf("a third session: %d %s", code, raw)
	}
	if code, _ := send(t, ctx, "DELETE", url+"/sessions/"+b.Session, nil, nil); code != 200 {
		t.Fatalf("close: %d", code)
	}
	if code, _ := run(b.Session, "1"); code != 404 {
		t.Fatalf("a closed session ran: %d", code)
	}
	for metric(t, url, "backyard_sessions_open") > 0 { // the idle one closes by itself
		time.Sleep(10 * time.Millisecond)
	}
	if code, _ := run(a.Session, "1"); code != 404 {
		t.Fatalf("an idle session ran: %d", code)
	}
}

// Shutdown lets runs finish until its deadline, then stops them (their
// clients get a SandboxError) and removes every container of the batch.
func TestShutdownRemovesContainers(t *testing.T) {
	s, url := serve(t, Options{Settings: settings(contract.BackendContainer), Parallel: 1})
	got := make(chan contract.RunCodeResponse, 1)
	go func() {
		got <- runCode(t, url, map[string]any{"code": "import time\nprint('started', flush=True)\ntime.sleep(300)", "run_timeout": 300})
	}()
	waitMetric(t, url, "backyard_runs_in_progress", 1)
	for len(containers(t)) == 0 {
		time.Sleep(10 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	s.Shutdown(ctx)
	if r := <-got; r.Status != contract.RunSandboxError || !strings.Contains(r.Message, "shutting down") {
		t.Fatalf("%+v", r)
	}
	if ids := containers(t); len(ids) > 0 {
		t.Fatalf("containers left: %v", ids)
	}
	if code, _ := send(t, context.Background(), "GET", url+"/healthz", nil, nil); code != 503 {
		t.Fatalf("healthz while shut down: %d", code)
	}
	if code, _ := send(t, context.Background(), "POST", url+"/run_code", map[string]any{"code": "1", "language": "python"}, nil); code != 503 {
		t.Fatalf("a run after shutdown: %d", code)
	}
}

// containers lists this process's containers.
func containers(t *testing.T) []string {
	t.Helper()
	out, err := exec.Command("docker", "ps", "-aq", "--filter", "label="+container.LabelInstance+"="+container.InstanceID()).Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			t.Fatalf("docker ps: %s", ee.Stderr)
		}
		t.Fatal(err)
	}
	return strings.Fields(string(out))
}
