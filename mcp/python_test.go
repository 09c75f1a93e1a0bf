package mcp_test

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/mcp/mcptest"
)

// The real Python MCP client (PyPI mcp, pinned in mcptest) runs
// testdata/client_suite.py against the built server, over stdio and over
// streamable HTTP; afterwards the server must have exited with status 0 and
// left no container.

// suiteServer is what both transports start: auto backend, the local test
// image (its own tag, so its package volume is the test's), a long time
// limit (only an interrupt ends the suite's endless loop), installs from a
// local wheel.
func suiteServer(t *testing.T) (flags []string, wheel, logFile, workspace string) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a container engine and the Python MCP client")
	}
	img := containertest.IsolatedImage(t)
	wheel = fmt.Sprintf("backyard_wheel%d", rand.Uint32())
	logFile = filepath.Join(t.TempDir(), "server.log")
	workspace = t.TempDir()
	if err := os.WriteFile(filepath.Join(workspace, "given.txt"), []byte("given"), 0o644); err != nil {
		t.Fatal(err)
	}
	flags = []string{"mcp", "--backend", "auto", "--image", img, "--timeout", "120", "--auto-install", "on",
		"--find-links", containertest.WheelDir(t, wheel), "--workspace", workspace, "--log-level", "info", "--log-file", logFile}
	return flags, wheel, logFile, workspace
}

func toolNames() string {
	var names []string
	for _, s := range contract.ToolSpecs {
		names = append(names, s.Name)
	}
	return strings.Join(names, ",")
}

// runSuite runs the Python suite and fails the test unless every check
// passed.
func runSuite(t *testing.T, args ...string) {
	t.Helper()
	py := mcptest.Python(t)
	cmd := exec.Command(py, append([]string{filepath.Join("testdata", "client_suite.py")}, args...)...)
	out, err := cmd.CombinedOutput()
	t.Logf("client suite:\n%s", out)
	oks := 0
	for _, l := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(l, "ok ") {
			oks++
		}
	}
	if err != nil || oks == 0 || !strings.Contains(string(out), fmt.Sprintf("\npassed %d\n", oks)) {
		t.Fatalf("the Python client suite failed: %v", err)
	}
}

var pidLine = regexp.MustCompile(`mcp server\s.*"pid": (\d+)`)

// serverPIDs are the pids the servers logged at start.
func serverPIDs(t *testing.T, logFile string) []string {
	t.Helper()
	b, err := os.ReadFile(logFile)
	if err != nil {
		t.Fatal(err)
	}
	var pids []string
	for _, m := range pidLine.FindAllStringSubmatch(string(b), -1) {
		pids = append(pids, m[1])
	}
	if len(pids) == 0 {
		t.Fatalf("no server start in the log:\n%s", b)
	}
	return pids
}

// noContainersOf fails when a container of server pid exists.
func noContainersOf(t *testing.T, pid string) {
	t.Helper()
	out, err := exec.Command("docker", "ps", "-aq", "--filter", "label=dev.backyard-ls.pid="+pid).Output()
	if err != nil {
		t.Fatal(err)
	}
	if ids := strings.Fields(string(out)); len(ids) > 0 {
		exec.Command("docker", "rm", "-f", ids[0]).Run()
		t.Fatalf("server %s left containers %v", pid, ids)
	}
}

func TestPythonClientStdio(t *testing.T) {
	flags, wheel, logFile, ws := suiteServer(t)
	// A wrapper records each server's exit status (the client is its
	// parent).
	dir := t.TempDir()
	status := filepath.Join(dir, "status")
	wrapper := filepath.Join(dir, "server.sh")
	script := fmt.Sprintf("#!/bin/sh\n%q \"$@\"\necho $? >> %q\n", mcptest.Binary(t), status)
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	runSuite(t, append([]string{"--tools", toolNames(), "--wheel", wheel, "--workspace", ws, "--legacy", "--", wrapper}, flags...)...)
	pids := serverPIDs(t, logFile)
	b, _ := os.ReadFile(status)
	if got := strings.Fields(string(b)); len(got) != len(pids) || strings.Trim(strings.Join(got, ""), "0") != "" {
		t.Fatalf("servers %v exited with %q: each must exit with 0 once its stdin closes", pids, b)
	}
	for _, pid := range pids {
		noContainersOf(t, pid)
	}
}

func TestPythonClientHTTP(t *testing.T) {
	flags, wheel, logFile, ws := suiteServer(t)
	cmd := exec.Command(mcptest.Binary(t), append(flags, "--http", "127.0.0.1:0")...)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	url := ""
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if _, u, ok := strings.Cut(sc.Text(), "serving streamable HTTP on "); ok {
			url = u
			break
		}
	}
	if url == "" {
		t.Fatal("the server did not say where it listens")
	}
	go func() {
		for sc.Scan() {
		}
	}()
	// A request whose Host is not loopback is refused (DNS rebinding).
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{}`))
	req.Host = "evil.example"
	hc := &http.Client{Transport: &http.Transport{}}
	resp, err := hc.Do(req)
	if err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("%v %v", resp, err)
	}
	resp.Body.Close()
	hc.CloseIdleConnections()
	runSuite(t, "--tools", toolNames(), "--wheel", wheel, "--workspace", ws, "--legacy", "--url", url)
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the server did not exit cleanly: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the server did not exit within 30 s of SIGTERM")
	}
	for _, pid := range serverPIDs(t, logFile) {
		noContainersOf(t, pid)
	}
}

// TestMain fails the tests when goroutines outlive them (the shared engine
// clients are closed first: they keep idle connections by design) and
// removes the server binary the tests built.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(containertest.RunThen(m, func() {
		container.CloseShared()
		mcptest.Cleanup()
	}))
}
