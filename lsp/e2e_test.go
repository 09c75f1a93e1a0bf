package lsp_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

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
	if _, err := c.Initialize(ctx, lsptest.VSCode, map[string]any{"backyard": map[string]any{"backend": "monty"}}); err != nil {
		t.Fatal(err)
	}
	text := "x = 6\n# %%\nprint('hello')\nx * 7\n# %%\nx / 0\n# %%\nwhile True:\n    pass\n# %%\nx\n"
	uri := open(t, c, "e2e.py", text)

	// Lenses.
	if got := lensesAt(t, c, uri); len(got[0]) != 2 || len(got[1]) != 3 || len(got[4]) != 3 {
		t.Fatalf("lenses: %s", mustJSON(got))
	}
	// Run, stream, result.
	run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 0})
	ex := run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 1})
	if len(ex) != 1 || ex[0].Stdout != "hello\n" || ex[0].Result == nil || ex[0].Result.Text != "42" {
		t.Fatalf("run: %s", mustJSON(ex))
	}
	if _, _, err := c.Wait(ctx, 0, func(m lsptest.Message) bool {
		var o struct{ ExecutionID, Stream, Text string }
		return m.Method == "backyard/output" && m.Decode(&o) == nil && o.ExecutionID == ex[0].ID && o.Stream == "stdout" && o.Text == "hello\n"
	}); err != nil {
		t.Fatal("no backyard/output for the print")
	}
	// Diagnostics.
	run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 4})
	if d, _ := c.Diagnostics(uri); len(d) != 1 || d[0].Line != 5 || d[0].Message != "ZeroDivisionError: division by zero" || d[0].Source != "backyard" {
		t.Fatalf("diagnostics: %+v", d)
	}
	// Interrupt a loop; the state is kept.
	n := c.Len()
	var q runResult
	if err := c.Command(ctx, contract.CmdRunCell, map[string]any{"uri": uri, "line": 6, "wait": false}, &q); err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Wait(ctx, n, lsptest.ExecutionState(q.Queued[0], "running")); err != nil {
		t.Fatal(err)
	}
	if err := c.Command(ctx, contract.CmdInterrupt, map[string]any{"uri": uri}, nil); err != nil {
		t.Fatal(err)
	}
	if s := waitDone(t, c, q.Queued[0]); s.Execution == nil || s.Execution.Status != "interrupted" {
		t.Fatalf("interrupt: %s", mustJSON(s))
	}
	if ex := run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 10}); len(ex) != 1 || ex[0].Result == nil || ex[0].Result.Text != "6" {
		t.Fatalf("state after interrupt: %s", mustJSON(ex))
	}
	// Restart clears the state.
	if err := c.Command(ctx, contract.CmdRestart, map[string]any{"uri": uri}, nil); err != nil {
		t.Fatal(err)
	}
	if ex := run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 10}); len(ex) != 1 || ex[0].Error == nil || ex[0].Error.EName != "NameError" {
		t.Fatalf("after restart: %s", mustJSON(ex))
	}

	// The kernel is a child of the server; shutdown stops it, exit ends
	// the server cleanly.
	pid := cmd.Process.Pid
	workers := lsptest.Children(pid)
	if len(workers) != 1 {
		t.Fatalf("server children: %v, want one Monty worker", workers)
	}
	if err := c.Call(ctx, "shutdown", nil, nil); err != nil {
		t.Fatal(err)
	}
	if left := lsptest.Children(pid); len(left) != 0 {
		t.Errorf("children after shutdown: %v", left)
	}
	if err := c.Notify(ctx, "exit", nil); err != nil {
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
		n := c.Len()
		if err := c.Command(ctx, contract.CmdRunCell, map[string]any{"uri": uri, "line": 0, "wait": false}, nil); err != nil {
			t.Fatal(err)
		}
		// busy comes once the worker process runs the cell.
		if _, _, err := c.Wait(ctx, n, func(m lsptest.Message) bool {
			var k struct{ URI, State string }
			return m.Method == "backyard/kernelState" && m.Decode(&k) == nil && k.URI == uri && k.State == "busy"
		}); err != nil {
			t.Fatal(err)
		}
	}
	workers = lsptest.Children(cmd.Process.Pid)
	if len(workers) != 2 {
		t.Fatalf("server children: %v, want two workers", workers)
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
			params := map[string]any{"processId": nil, "capabilities": map[string]any{}}
			if how == "initialize" {
				params["processId"] = editor.Process.Pid
			}
			if err := c.Call(ctx, "initialize", params, nil); err != nil {
				t.Fatal(err)
			}
			uri := open(t, c, "parent.py", "x = 1\n")
			run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 0})
			workers := lsptest.Children(cmd.Process.Pid)
			if len(workers) != 1 {
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
