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
	for _, rt := range []string{"runc", "runsc"} {
		t.Run(rt, func(t *testing.T) {
			s := startRaw(t, "--backend", "container", "--runtime", rt, "--image", containertest.Image(), "--timeout", "600")
			s.send(runCall(1, "busy", "x = 1"))
			s.wait(1)
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
