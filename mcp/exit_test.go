package mcp_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/container/containertest"
)

// The client closes stdin while sessions' container kernels run: one busy
// in an endless cell, one idle, and the warm pool holding or starting one
// more. The server goes on with the request it read (it would answer it),
// so the client's next step ends it: SIGTERM, which the MCP spec's
// shutdown sends when the server does not exit (the Python SDK's client 2 s
// after closing stdin). The server exits with status 0 and leaves no
// container.
func TestStdioExitWhileContainersRun(t *testing.T) {
	for _, rt := range []string{"runc", "runsc", "auto"} {
		t.Run(rt, func(t *testing.T) {
			args, first := []string{"--backend", "container", "--runtime", rt}, "x = 1"
			if rt == "auto" {
				// The busy session moved to the container, the idle one on
				// Monty.
				args, first = []string{"--backend", "auto"}, "import numpy\nx = 1"
			}
			s := startRaw(t, append(args, "--image", containertest.Image(), "--timeout", "600")...)
			s.send(runCall(1, "busy", first))
			if sc, _ := s.wait(1)["result"].(map[string]any)["structuredContent"].(map[string]any); sc["backend"] != "container" {
				t.Fatalf("not in the container: %v", sc)
			}
			s.send(runCall(2, "idle", "x = 1"))
			s.wait(2)
			s.send(runCall(3, "busy", "while True:\n    pass"))
			// Most likely running by the time another session answers; the
			// exit holds either way.
			s.send(runCall(4, "idle", "x"))
			s.wait(4)
			pid := strconv.Itoa(s.cmd.Process.Pid)
			s.stdin.Close()
			s.waitLog("the input ended: answering the requests read before it")
			start := time.Now()
			if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
			s.end()
			t.Logf("the server exited %s after SIGTERM", time.Since(start))
			noContainersOf(t, pid)
		})
	}
}

// waitLog waits until the server's log has a line containing text.
func (s *rawServer) waitLog(text string) {
	s.t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if b, _ := os.ReadFile(s.logFile); strings.Contains(string(b), text) {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the log has no %q", text)
		}
	}
}

// SIGTERM ends a server whose client keeps stdin open while a cell runs
// without end: the requests in flight end with it.
func TestStdioSIGTERMWhileACellRuns(t *testing.T) {
	s := startRaw(t, "--backend", "monty", "--timeout", "600", "--files-write", "workspace")
	s.send(runCall(1, "a", "open('started', 'w').write('1')\nwhile True:\n    pass"))
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(s.workspace, "started")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run did not start")
		}
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-s.eof:
	case <-time.After(2 * time.Minute):
		t.Fatal("the server did not exit after SIGTERM")
	}
	s.end()
}
