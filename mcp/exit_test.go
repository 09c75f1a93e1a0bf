package mcp_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/container/containertest"
)

// The client closes stdin while sessions' container kernels run: one busy
// in an endless cell, one idle, and the warm pool holding or starting one
// more. The server exits with status 0 and leaves no container (the Python
// SDK's client kills a server 2 s after closing its stdin, which must find
// nothing left to do).
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
			start := time.Now()
			s.end()
			t.Logf("the server exited %s after its stdin closed", time.Since(start))
			noContainersOf(t, pid)
		})
	}
}
