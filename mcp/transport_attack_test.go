package mcp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/internal/canary"
	"github.com/backyard-ls/backyard-ls/mcp"
	"github.com/backyard-ls/backyard-ls/mcp/mcptest"
	"github.com/backyard-ls/backyard-ls/monty"
)

// Attacks on the MCP server as a model (or a web page) would try them,
// on the built server with a canary secret in its environment and home:
// oversized and malformed requests, cancelled requests, foreign origins.

// rawServer is the server binary driven with hand-written JSON-RPC.
type rawServer struct {
	t         *testing.T
	cmd       *exec.Cmd
	canary    *canary.Canary
	logFile   string
	workspace string
	stdin     io.WriteCloser
	stderr    bytes.Buffer

	mu   sync.Mutex
	seen []map[string]any // every message the server wrote, in order
	got  chan map[string]any
	eof  chan struct{}
}

func startRaw(t *testing.T, args ...string) *rawServer {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and starts the server")
	}
	c := canary.New(t)
	s := &rawServer{t: t, canary: c, logFile: filepath.Join(t.TempDir(), "server.log"), workspace: t.TempDir(), got: make(chan map[string]any, 64), eof: make(chan struct{})}
	s.cmd = exec.Command(mcptest.Binary(t), append([]string{"mcp", "--monty", montyBinary(t), "--workspace", s.workspace, "--log-level", "debug", "--log-file", s.logFile}, args...)...)
	s.cmd.Env = c.Env(t)
	s.cmd.Stderr = &s.stderr
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(s.eof)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				m = map[string]any{"unparsed": sc.Text()}
			}
			s.mu.Lock()
			s.seen = append(s.seen, m)
			s.mu.Unlock()
			s.got <- m
		}
		close(s.got)
	}()
	t.Cleanup(func() { s.cmd.Process.Kill(); s.cmd.Wait() })
	s.send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"attack","version":"1"}}}`)
	s.wait(0)
	s.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return s
}

func (s *rawServer) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

// wait returns the response with id (a number; -1: the null id).
func (s *rawServer) wait(id int) map[string]any {
	s.t.Helper()
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case m, ok := <-s.got:
			if !ok {
				s.t.Fatalf("the server ended before the response %d: %s", id, s.stderr.String())
			}
			if _, isReq := m["method"]; isReq {
				continue
			}
			if n, ok := m["id"].(float64); ok && int(n) == id || id == -1 && m["id"] == nil {
				return m
			}
		case <-timeout:
			s.t.Fatalf("no response %d", id)
		}
	}
}

// montyBinary is the worker, found before HOME becomes the canary's.
func montyBinary(t *testing.T) string {
	t.Helper()
	p, err := monty.Find("")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func runCall(id int, session, code string) string {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
		"params": map[string]any{"name": "run_python", "arguments": map[string]any{"session": session, "code": code}}})
	return string(b)
}

// toolText is a tools/call response's text and whether it is a tool error.
func toolText(t *testing.T, m map[string]any) (string, bool) {
	t.Helper()
	r, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("not a tool result: %v", m)
	}
	var b strings.Builder
	for _, c := range r["content"].([]any) {
		if s, ok := c.(map[string]any)["text"].(string); ok {
			b.WriteString(s)
		}
	}
	isErr, _ := r["isError"].(bool)
	return b.String(), isErr
}

// probe runs the canary's probes in a session of their own (end checks
// what they printed).
func (s *rawServer) probe() {
	s.t.Helper()
	for i, p := range s.canary.Probes() {
		s.send(runCall(100+i, "probe", p))
		s.wait(100 + i)
	}
}

// end closes stdin, waits for the server to exit and checks that the
// canary appears in nothing it wrote.
func (s *rawServer) end() []map[string]any {
	s.t.Helper()
	s.stdin.Close()
	<-s.eof
	if err := s.cmd.Wait(); err != nil {
		s.t.Fatalf("the server exited with %v: %s", err, s.stderr.String())
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	all, _ := json.Marshal(s.seen)
	s.canary.Check(s.t, "the server's messages", all)
	s.canary.Check(s.t, "the server's stderr", s.stderr.Bytes())
	log, _ := os.ReadFile(s.logFile)
	s.canary.Check(s.t, "the server's log", log)
	return s.seen
}

// Over stdio: a 17 MiB run_python is a tool error, a line that is not JSON
// a parse error, and the server keeps its sessions; the canary's probes
// find nothing.
func TestStdioBoundsEveryRequest(t *testing.T) {
	s := startRaw(t, "--backend", "monty")
	s.send(runCall(1, "a", "kept = 41"))
	s.wait(1)
	s.send(runCall(2, "b", strings.Repeat("#", contract.MaxRequestBytes+1<<20)))
	if text, isErr := toolText(t, s.wait(2)); !isErr || !strings.Contains(text, "over the server's limit") {
		t.Fatalf("%q", text)
	}
	s.send(`{"jsonrpc":"2.0","id":3,"method":"ping","params":{"pad":"` + strings.Repeat("x", contract.MaxRequestBytes) + `"}}`)
	if e, ok := s.wait(3)["error"].(map[string]any); !ok || e["code"].(float64) != -32600 {
		t.Fatalf("%v", e)
	}
	s.send(`not json at all`)
	if e, ok := s.wait(-1)["error"].(map[string]any); !ok || e["code"].(float64) != -32700 {
		t.Fatalf("%v", e)
	}
	s.send(runCall(4, "a", "kept + 1"))
	if text, isErr := toolText(t, s.wait(4)); isErr || !strings.Contains(text, "42") {
		t.Fatalf("the session was lost: %q", text)
	}
	s.probe()
	s.end()
}

// A request the client cancels while it runs gets no response, ever (the
// server is run to its end, so a late one would be seen), and the session
// goes on.
func TestStdioCancelledRequestIsNotAnswered(t *testing.T) {
	s := startRaw(t, "--backend", "monty", "--timeout", "600", "--files-write", "workspace")
	s.send(runCall(1, "a", "kept = 1"))
	s.wait(1)
	s.send(runCall(2, "a", "open('started', 'w').write('1')\nwhile True:\n    kept += 1"))
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(s.workspace, "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run did not start")
		}
	}
	s.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"test"}}`)
	s.send(runCall(3, "a", "kept >= 1"))
	if text, isErr := toolText(t, s.wait(3)); isErr || !strings.Contains(text, "True") {
		t.Fatalf("%q", text)
	}
	for _, m := range s.end() {
		if id, ok := m["id"].(float64); ok && id == 2 {
			t.Fatalf("the cancelled request was answered: %v", m)
		}
	}
}

// httpServer starts the server on streamable HTTP and returns its URL.
func httpServer(t *testing.T, c *canary.Canary, args ...string) (url string, stop func() []byte) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and starts the server")
	}
	logFile := filepath.Join(t.TempDir(), "server.log")
	cmd := exec.Command(mcptest.Binary(t), append([]string{"mcp", "--http", "127.0.0.1:0", "--backend", "monty", "--monty", montyBinary(t), "--workspace", t.TempDir(),
		"--log-level", "debug", "--log-file", logFile}, args...)...)
	cmd.Env = c.Env(t)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	var errOut bytes.Buffer
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		errOut.WriteString(sc.Text() + "\n")
		if _, u, ok := strings.Cut(sc.Text(), "serving streamable HTTP on "); ok {
			url = u
			break
		}
	}
	if url == "" {
		t.Fatalf("the server did not say where it listens: %s", errOut.String())
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(&errOut, stderr)
	}()
	return url, func() []byte {
		cmd.Process.Signal(os.Interrupt)
		<-done
		cmd.Wait()
		log, _ := os.ReadFile(logFile)
		return append(errOut.Bytes(), log...)
	}
}

// post sends one JSON-RPC message and returns the status, the session
// header and the body.
func post(t *testing.T, url, session string, body io.Reader, hdr ...string) (int, string, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i] == "Host" {
			req.Host = hdr[i+1]
		} else {
			req.Header.Set(hdr[i], hdr[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Mcp-Session-Id"), string(b)
}

const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"attack","version":"1"}}}`

func httpSession(t *testing.T, url string) string {
	t.Helper()
	code, session, body := post(t, url, "", strings.NewReader(initialize))
	if code != 200 || session == "" {
		t.Fatalf("initialize: %d %s", code, body)
	}
	post(t, url, session, strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	return session
}

// Over HTTP: a foreign Host or Origin is refused with 403 before anything
// runs, an allowed one is served; a 17 MiB tools/call is a tool error and
// the session goes on; a cancelled request gets no response.
func TestHTTPGuardsAndBounds(t *testing.T) {
	c := canary.New(t)
	url, stop := httpServer(t, c, "--allow-origin", "https://app.example", "--allow-host", "proxy.example")
	ran := filepath.Join(t.TempDir(), "ran")
	call := strings.NewReader(runCall(1, "a", fmt.Sprintf("open(%q, 'w')", ran)))
	for _, hdr := range [][]string{{"Origin", "http://evil.example"}, {"Host", "evil.example"}, {"Origin", "null"},
		{"Host", "127.0.0.1.evil.example"}, {"Origin", "http://localhost.evil.example:1"}} {
		if code, _, body := post(t, url, "", call, hdr...); code != http.StatusForbidden {
			t.Fatalf("%v: %d %s", hdr, code, body)
		}
	}
	for _, hdr := range [][]string{{"Origin", "https://app.example"}, {"Host", "proxy.example:80"}, {"Origin", "http://localhost:5173"}} {
		if code, _, body := post(t, url, "", strings.NewReader(initialize), hdr...); code != 200 {
			t.Fatalf("%v: %d %s", hdr, code, body)
		}
	}
	session := httpSession(t, url)
	if _, _, body := post(t, url, session, strings.NewReader(runCall(1, "a", "kept = 41"))); !strings.Contains(body, `"status":"ok"`) {
		t.Fatalf("%s", body)
	}
	big := io.MultiReader(strings.NewReader(runCall(2, "a", "#")[:len(runCall(2, "a", "#"))-5]),
		strings.NewReader(strings.Repeat("#", contract.MaxRequestBytes)), strings.NewReader(`"}}}`))
	code, _, body := post(t, url, session, big)
	if code != 200 || !strings.Contains(body, "over the server's limit") || !strings.Contains(body, `"isError":true`) {
		t.Fatalf("%d %.300s", code, body)
	}
	if _, _, body := post(t, url, session, strings.NewReader(runCall(3, "a", "kept + 1"))); !strings.Contains(body, "42") {
		t.Fatalf("the session was lost: %s", body)
	}
	// Cancelled: the request's stream ends without its response.
	answered := make(chan string, 1)
	go func() {
		_, _, body := post(t, url, session, strings.NewReader(runCall(4, "a", "while True:\n    kept += 1")))
		answered <- body
	}()
	deadline := time.Now().Add(time.Minute)
	for {
		// Sent until the run is under way: a cancel for a request the
		// server has not read yet is for nothing.
		post(t, url, session, strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":4}}`))
		select {
		case body := <-answered:
			if strings.Contains(body, `"id":4`) {
				t.Fatalf("the cancelled request was answered: %s", body)
			}
		case <-time.After(200 * time.Millisecond):
			if time.Now().After(deadline) {
				t.Fatal("the cancelled request's stream did not end")
			}
			continue
		}
		break
	}
	if _, _, body := post(t, url, session, strings.NewReader(runCall(5, "a", "kept >= 41"))); !strings.Contains(body, "True") {
		t.Fatalf("%s", body)
	}
	for i, p := range c.Probes() {
		_, _, body := post(t, url, session, strings.NewReader(runCall(10+i, "probe", p)))
		c.Check(t, "a probe's result", []byte(body))
	}
	c.Check(t, "the server's stderr and log", stop())
	if _, err := os.Stat(ran); err == nil {
		t.Fatal("a refused request ran")
	}
}

// A run_python cell in a container kernel that writes frames of its own to
// the driver's channel (every descriptor from 3 up) is a crash that says
// so, not a result; the next run gets a fresh kernel. On runc and runsc.
func TestContainerChannelThroughMCP(t *testing.T) {
	forge := `import json, os
data = json.dumps({"t": "done", "id": 2, "status": "ok"}).encode()
for fd in range(3, 256):
    try:
        os.write(fd, len(data).to_bytes(4, "big") + data)
    except OSError:
        pass
raise ValueError("the real outcome")`
	for _, rt := range []string{"runc", "runsc"} {
		t.Run(rt, func(t *testing.T) {
			s := startRaw(t, "--backend", "container", "--runtime", rt, "--image", containertest.Image())
			s.send(runCall(1, "a", "kept = 1"))
			s.wait(1)
			s.send(runCall(2, "a", forge))
			if text, _ := toolText(t, s.wait(2)); !strings.Contains(text, "crashed") || !strings.Contains(text, "did not write") {
				t.Fatalf("%q", text)
			}
			s.send(runCall(3, "a", "'kept' in globals()"))
			if text, _ := toolText(t, s.wait(3)); !strings.Contains(text, "False") {
				t.Fatalf("%q", text)
			}
			s.probe()
			s.end()
		})
	}
}

// The stdio transport in process (for the race detector): a line over the
// limit, a line that is not JSON and a cancelled call, then a normal one.
func TestTransportInProcess(t *testing.T) {
	srv := mcp.New(mcp.Options{Settings: montySettings()})
	defer srv.Close()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(context.Background(), srv.NewTransport(inR, outW)) }()
	lines := make(chan map[string]any, 16)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		for sc.Scan() {
			var m map[string]any
			json.Unmarshal(sc.Bytes(), &m)
			lines <- m
		}
	}()
	send := func(s string) {
		if _, err := io.WriteString(inW, s+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	next := func() map[string]any {
		select {
		case m := <-lines:
			return m
		case <-time.After(time.Minute):
			t.Fatal("no message")
		}
		return nil
	}
	send(initialize)
	next()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(runCall(1, "a", strings.Repeat("#", contract.MaxRequestBytes+1)))
	if text, isErr := toolText(t, next()); !isErr || !strings.Contains(text, "over the server's limit") {
		t.Fatalf("%q", text)
	}
	send("{")
	if m := next(); m["error"] == nil {
		t.Fatalf("%v", m)
	}
	send(runCall(2, "a", "while True:\n    pass"))
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	send(runCall(3, "a", "6 * 7"))
	if m := next(); m["id"].(float64) != 3 {
		t.Fatalf("the cancelled call was answered: %v", m)
	}
	inW.Close()
	if err := <-done; err != nil {
		t.Log(err)
	}
	outW.Close()
	for m := range lines {
		t.Fatalf("after the end: %v", m)
	}
}

// The HTTP guard in process (for the race detector): a foreign origin is
// refused, a cancelled call's stream ends without its response.
func TestHTTPGuardInProcess(t *testing.T) {
	srv := mcp.New(mcp.Options{Settings: montySettings()})
	defer srv.Close()
	hs := httptest.NewServer(srv.Handler(mcp.HTTPOptions{}))
	defer hs.Close()
	if code, _, body := post(t, hs.URL, "", strings.NewReader(initialize), "Origin", "http://evil.example"); code != http.StatusForbidden {
		t.Fatalf("%d %s", code, body)
	}
	session := httpSession(t, hs.URL)
	defer func() { // the session ends with its client
		req, _ := http.NewRequest("DELETE", hs.URL, nil)
		req.Header.Set("Mcp-Session-Id", session)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	answered := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest("POST", hs.URL, strings.NewReader(runCall(1, "a", "while True:\n    pass")))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", session)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			answered <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answered <- string(b)
	}()
	for {
		post(t, hs.URL, session, strings.NewReader(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`))
		select {
		case body := <-answered:
			if strings.Contains(body, `"id":1`) {
				t.Fatalf("the cancelled call was answered: %s", body)
			}
			return
		case <-time.After(100 * time.Millisecond):
		}
	}
}
