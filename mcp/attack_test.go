package mcp_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/internal/canary"
	"github.com/backyard-ls/backyard-ls/mcp/mcptest"
)

// attackCall is one tool call of testdata/attack_suite.py.
type attackCall struct {
	Call       string          `json:"call"`
	Seconds    float64         `json:"seconds"`
	Text       string          `json:"text"`
	Structured json.RawMessage `json:"structured"`
}

// TestPythonClientAttack: the real Python MCP client starts the server on
// stdio from a home folder (its default workspace is then none), with a
// canary secret in the server's environment and in the home's credential
// files; run_python cells read /proc, /dev, /sys, the server's stdin and
// the credentials, and list_variables meets a huge, a deep, a big-string
// and a self-referencing value. On Monty and auto: the secret is in no
// result and no log, stdin is not the protocol stream (the next request is
// answered), the listing is cut with markers and the session lives on.
func TestPythonClientAttack(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the Python MCP client")
	}
	py := mcptest.Python(t)
	suite, err := filepath.Abs(filepath.Join("testdata", "attack_suite.py"))
	if err != nil {
		t.Fatal(err)
	}
	c := canary.New(t)
	probeFile, bigFile := filepath.Join(t.TempDir(), "probe.py"), filepath.Join(t.TempDir(), "big.py")
	if os.WriteFile(probeFile, []byte(c.Probe()), 0o644) != nil || os.WriteFile(bigFile, []byte(canary.BigValues), 0o644) != nil {
		t.Fatal("cannot write the cells")
	}
	for _, backend := range []string{"monty", "auto"} {
		t.Run(backend, func(t *testing.T) {
			logFile := filepath.Join(t.TempDir(), "server.log")
			cmd := exec.Command(py, suite, probeFile, bigFile, "--", mcptest.Binary(t), "mcp",
				"--backend", backend, "--image", containertest.Image(), "--log-file", logFile, "--log-level", "debug")
			cmd.Dir, cmd.Env = c.Home, c.Env(t)
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.HasSuffix(string(out), "done\n") {
				t.Fatalf("the attack suite failed: %v\n%s", err, out)
			}
			c.CheckNoSecret(t, "the client's results", string(out))
			c.CheckFileNoSecret(t, logFile)
			if log, _ := os.ReadFile(logFile); !strings.Contains(string(log), "kernels see no workspace") {
				t.Errorf("no warning about the home folder as the workspace in the log:\n%s", log)
			}
			calls := map[string]attackCall{}
			for _, line := range strings.Split(string(out), "\n") {
				var a attackCall
				if json.Unmarshal([]byte(line), &a) == nil && a.Call != "" {
					calls[a.Call] = a
				}
			}
			var probe, stdin struct {
				Stdout  string `json:"stdout"`
				Backend string `json:"backend"`
				Error   *struct {
					EName string `json:"ename"`
				} `json:"error"`
			}
			json.Unmarshal(calls["probe"].Structured, &probe)
			json.Unmarshal(calls["stdin"].Structured, &stdin)
			if probe.Backend == "monty" {
				c.CheckMonty(t, probe.Stdout)
			} else if backend == "monty" {
				t.Fatalf("the probe ran on %s", probe.Backend)
			}
			if backend == "monty" && (stdin.Error == nil || stdin.Error.EName != "FileNotFoundError") {
				t.Errorf("open('/dev/stdin').read(): %s", calls["stdin"].Structured)
			}
			var vars struct {
				Variables []struct{ Name, Repr string } `json:"variables"`
			}
			json.Unmarshal(calls["variables"].Structured, &vars)
			got := map[string]string{}
			for _, v := range vars.Variables {
				got[v.Name] = v.Repr
			}
			canary.CheckVariables(t, got)
			for _, a := range calls {
				t.Logf("%s took %.3f s", a.Call, a.Seconds)
			}
		})
	}
}
