package lsp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

// startBinary runs the built backyard-ls over real stdio.
func startBinary(t testing.TB, args ...string) (*lsptest.Client, *exec.Cmd) {
	t.Helper()
	stderr := &strings.Builder{} // written by one goroutine, read after exit
	c, cmd, err := lsptest.Exec(serverBinary, stderr, append([]string{"serve", "--stdio"}, args...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.Close()
		if strings.Contains(stderr.String(), "WARNING: DATA RACE") {
			t.Error("the race detector found a race in the server")
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr)
		}
	})
	return c, cmd
}

// alivePID reports whether pid exists and is not a zombie.
func alivePID(pid int) bool {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(stat), ')')
	f := strings.Fields(string(stat[i+1:]))
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

func TestEndToEnd(t *testing.T) {
	c, cmd := startBinary(t)
	ctx := testCtx(t)
	if _, err := c.Initialize(ctx, lsptest.VSCode, map[string]any{"backyard": map[string]any{"backend": contract.BackendMonty}}); err != nil {
		t.Fatal(err)
	}
	text := "x = 6\n# %%\nprint('hello')\nx * 7\n# %%\nx / 0\n# %%\nwhile True:\n    pass\n# %%\nx\n"
	uri := open(t, c, "e2e.py", text)

	// Lenses.
	if got := lensesAt(t, c, uri); len(got[0]) != 2 || len(got[1]) != 3 || len(got[4]) != 3 {
		t.Fatalf("lenses: %s", mustJSON(got))
	}
	// Run, stream, result.
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	ex := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 1))
	if len(ex) != 1 || ex[0].Stdout != "hello\n" || ex[0].Result == nil || ex[0].Result.Text != "42" {
		t.Fatalf("run: %s", mustJSON(ex))
	}
	await(t, c, lsptest.Output(ex[0].ID, contract.Stdout, "hello\n"))
	// Diagnostics.
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 4))
	if d, _ := c.PublishedDiagnostics(uri); len(d) != 1 || d[0].Range.Start.Line != 5 || lsptest.Plain(d[0].Message) != "ZeroDivisionError: division by zero" || d[0].Source != protocol.NewOptional("backyard") {
		t.Fatalf("diagnostics: %s", mustJSON(d))
	}
	// Interrupt a loop; the state is kept.
	loop := queue(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 6))
	await(t, c, lsptest.ExecutionPhase(loop, contract.PhaseRunning))
	interrupt(t, c, uri)
	if s := waitDone(t, c, loop); s.Execution == nil || s.Execution.Status != contract.StatusInterrupted {
		t.Fatalf("interrupt: %s", mustJSON(s))
	}
	if ex := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 10)); len(ex) != 1 || ex[0].Result == nil || ex[0].Result.Text != "6" {
		t.Fatalf("state after interrupt: %s", mustJSON(ex))
	}
	// Restart clears the state.
	infoCommand(t, c, contract.CmdRestart, lsptest.URIArg(uri))
	if ex := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 10)); len(ex) != 1 || ex[0].Error == nil || ex[0].Error.EName != "NameError" {
		t.Fatalf("after restart: %s", mustJSON(ex))
	}

	// The kernel is a child of the server; shutdown stops it, exit ends
	// the server cleanly.
	pid := cmd.Process.Pid
	workers := lsptest.Children(pid)
	if len(workers) < 1 {
		t.Fatalf("server children: %v, want the kernel's Monty worker (and its keeper)", workers)
	}
	if err := c.Server().Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if left := lsptest.Children(pid); len(left) != 0 {
		t.Errorf("children after shutdown: %v", left)
	}
	if err := c.Server().Exit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit after shutdown: %v (want exit code 0)", err)
	}
	for _, w := range workers {
		if alivePID(w) {
			t.Errorf("worker %d outlived the server", w)
		}
	}
}

func TestEndToEndClosedStdin(t *testing.T) {
	c, cmd := startBinary(t)
	ctx := testCtx(t)
	if _, err := c.Initialize(ctx, lsptest.Neovim07, nil); err != nil {
		t.Fatal(err)
	}
	var workers []int
	for i := range 2 {
		uri := open(t, c, "stdin"+strconv.Itoa(i)+".py", "while True:\n    pass\n")
		queue(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))
		// busy comes once the worker process runs the cell.
		await(t, c, lsptest.KernelState(uri, contract.KernelBusy))
	}
	workers = lsptest.Children(cmd.Process.Pid)
	if len(workers) < 2 {
		t.Fatalf("server children: %v, want a worker per kernel", workers)
	}
	// Closing stdin (the editor went away) ends the server and its kernels.
	if err := c.Close(); err != nil {
		t.Errorf("server exit after stdin closed: %v", err)
	}
	for _, w := range workers {
		if alivePID(w) {
			t.Errorf("worker %d outlived the server", w)
		}
	}
}

func TestEndToEndClientProcessDies(t *testing.T) {
	for _, how := range []string{"flag", "initialize"} {
		t.Run(how, func(t *testing.T) {
			editor := exec.Command("sleep", "600")
			if err := editor.Start(); err != nil {
				t.Fatal(err)
			}
			defer editor.Process.Kill()
			var args []string
			if how == "flag" {
				args = []string{"--clientProcessId", strconv.Itoa(editor.Process.Pid)}
			}
			c, cmd := startBinary(t, args...)
			ctx := testCtx(t)
			params := &protocol.InitializeParams{}
			if how == "initialize" {
				pid := int32(editor.Process.Pid)
				params.ProcessID = &pid
			}
			if _, err := c.Server().Initialize(ctx, params); err != nil {
				t.Fatal(err)
			}
			uri := open(t, c, "parent.py", "x = 1\n")
			run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))
			workers := lsptest.Children(cmd.Process.Pid)
			if len(workers) < 1 {
				t.Fatalf("server children: %v", workers)
			}
			_ = editor.Process.Signal(syscall.SIGKILL)
			_ = editor.Wait()
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case <-exited:
			case <-ctx.Done():
				t.Fatal("the server outlived its client process")
			}
			for _, w := range workers {
				if alivePID(w) {
					t.Errorf("worker %d outlived the server", w)
				}
			}
		})
	}
}
