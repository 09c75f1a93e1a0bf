package mcp_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/mcp/mcptest"
)

// A client that writes its requests and closes stdin at once, as a pipe
// from a file does, gets every answer before the server exits: the end of
// the input is not a cancel of what was read before it.
func TestStdioAnswersAFinishedStream(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the server")
	}
	log := filepath.Join(t.TempDir(), "server.log")
	stream := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"pipe","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		runCall(2, "a", "x = 20\nx + 22"),
		runCall(3, "b", "2 ** 10"),
		`{"jsonrpc":"2.0","id":4,"method":"ping"}`,
	}, "\n") + "\n"
	cmd := exec.Command(mcptest.Binary(t), "mcp", "--monty", montyBinary(t), "--backend", "monty", "--workspace", t.TempDir(), "--log-level", "info", "--log-file", log)
	cmd.Stdin = strings.NewReader(stream)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	got := map[float64]map[string]any{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		if id, ok := m["id"].(float64); ok {
			got[id] = m
		}
	}
	if r, _ := got[1]["result"].(map[string]any); r["serverInfo"] == nil {
		t.Fatalf("initialize: %v\nstdout: %s", got[1], out)
	}
	for id, want := range map[float64]string{2: "42", 3: "1024"} {
		if m, ok := got[id]; !ok {
			t.Fatalf("no answer to request %v\nstdout: %s", id, out)
		} else if text, isErr := toolText(t, m); isErr || !strings.Contains(text, want) {
			t.Fatalf("request %v: %q", id, text)
		}
	}
	if _, ok := got[4]["result"]; !ok {
		t.Fatalf("ping: %v", got[4])
	}
	b, _ := os.ReadFile(log)
	if bytes.Contains(b, []byte("before initialize")) || !bytes.Contains(b, []byte("session initialized")) {
		t.Fatalf("the notification was not handled after initialize:\n%s", b)
	}
}
