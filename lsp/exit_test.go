package lsp_test

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

// The editor goes away (stdin closes) while container kernels run: one
// busy in an endless cell, one idle, and the warm pool holding or starting
// one more. The server exits with status 0 and leaves no container.
func TestEndToEndClosedStdinContainers(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine")
	}
	for _, rt := range []string{"runc", "runsc"} {
		t.Run(rt, func(t *testing.T) {
			c, cmd := startBinary(t)
			settings := map[string]any{"backyard": map[string]any{"backend": "container",
				"container": map[string]any{"runtime": rt, "image": containertest.Image()}}}
			if _, err := c.Initialize(testCtx(t), lsptest.Neovim07, settings); err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir() // the container copies the documents' folder
			idle := "file://" + filepath.ToSlash(filepath.Join(dir, "idle.py"))
			busy := "file://" + filepath.ToSlash(filepath.Join(dir, "busy.py"))
			for _, uri := range []string{idle, busy} {
				if err := c.Open(testCtx(t), uri, "x = 1\n# %%\nprint('ready')\nwhile True:\n    pass\n"); err != nil {
					t.Fatal(err)
				}
				if ex := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0)); len(ex) != 1 || ex[0].Backend != "container" {
					t.Fatalf("%s", mustJSON(ex))
				}
			}
			id := queue(t, c, contract.CmdRunCell, lsptest.LineArg(busy, 2))
			await(t, c, lsptest.OutputContains(id, contract.Stdout, "ready\n"))
			pid := strconv.Itoa(cmd.Process.Pid)
			if n := len(containersOf(t, pid)); n < 2 {
				t.Fatalf("%d containers, want the two kernels' at least", n)
			}
			start := time.Now()
			if err := c.Close(); err != nil {
				t.Fatalf("the server's exit after stdin closed: %v (want status 0)", err)
			}
			t.Logf("the server exited %s after its stdin closed", time.Since(start))
			if left := containersOf(t, pid); len(left) > 0 {
				exec.Command("docker", append([]string{"rm", "-f"}, left...)...).Run()
				t.Fatalf("the server left containers %v", left)
			}
		})
	}
}

// containersOf are the IDs of the kernel containers of server pid.
func containersOf(t *testing.T, pid string) []string {
	t.Helper()
	out, err := exec.Command("docker", "ps", "-aq", "--filter", "label="+container.LabelPID+"="+pid).Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(out))
}
