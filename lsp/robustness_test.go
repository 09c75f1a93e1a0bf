package lsp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/goleak"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

func TestTenMegabyteDocument(t *testing.T) {
	c := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	var b strings.Builder
	b.WriteString("# %%\nx = 1\n# %%\n")
	line := "# " + strings.Repeat("data ", 19) + "\n" // 98 bytes
	for b.Len() < 10<<20 {
		b.WriteString(line)
	}
	b.WriteString("big = True\n# %%\nx + 1\n")
	text := b.String()
	lines := strings.Count(text, "\n")
	uri := open(t, c, "big.py", text)

	lenses, err := c.CodeLens(ctx, uri)
	if err != nil || len(lenses) != 8 {
		t.Fatalf("lenses: %d %v", len(lenses), err)
	}
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	ex := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, lines-1))
	if len(ex) != 1 || ex[0].Result == nil || ex[0].Result.Text != "2" {
		t.Fatalf("last cell: %s", mustJSON(ex))
	}
	// An edit at the end of the big document.
	edit(t, c, uri, strings.TrimSuffix(text, "x + 1\n")+"x + 41\n", lsptest.Edit(lines-1, 4, lines-1, 5, "41"))
	ex = run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, lines-1))
	if len(ex) != 1 || ex[0].Result == nil || ex[0].Result.Text != "42" {
		t.Fatalf("after the edit: %s", mustJSON(ex))
	}
	// The big cell itself runs: 100k comment lines and one statement.
	if ex := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 2)); len(ex) != 1 || ex[0].Status != contract.StatusOK {
		t.Fatalf("big cell: %s", mustJSON(ex))
	}
}

func TestThousandQueuedRuns(t *testing.T) {
	c := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	uri := open(t, c, "queue.py", "n = 0\n# %%\nn += 1\nn\n")
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	var ids []string
	for range 1000 {
		ids = append(ids, queue(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 1)))
	}
	waitDone(t, c, ids[len(ids)-1])
	for i, id := range ids {
		s := c.ExecutionStates(id)
		if len(s) != 3 || s[2].Execution == nil || s[2].Execution.Result == nil || s[2].Execution.Result.Text != strconv.Itoa(i+1) {
			t.Fatalf("run %d: %s", i, mustJSON(s))
		}
	}

	// Waiting requests in flight at once: each gets its own execution.
	var wg sync.WaitGroup
	counts := make(chan int, 200)
	for range 200 {
		wg.Go(func() {
			r, err := c.Run(ctx, contract.CmdRunCell, lsptest.LineArg(uri, 1))
			if err != nil || len(r.Executions) != 1 {
				t.Errorf("concurrent run: %v %s", err, mustJSON(r))
				return
			}
			counts <- r.Executions[0].ExecutionCount
		})
	}
	wg.Wait()
	close(counts)
	seen := map[int]bool{}
	for n := range counts {
		seen[n] = true
	}
	if len(seen) != 200 {
		t.Errorf("%d distinct execution counts, want 200", len(seen))
	}
	alive(t, c, uri)
}

func TestRunOnClosedDocument(t *testing.T) {
	c := start(t, lsptest.Neovim07, nil)
	ctx := testCtx(t)
	uri := open(t, c, "closed.py", "x = 1\n# %%\nwhile True:\n    pass\n")
	run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	// One worker per kernel, and sometimes a second one that keeps its
	// snapshot (a keeper): at least one.
	if n := montyChildren(t); n < 1 {
		t.Fatalf("%d Monty workers, want the kernel's", n)
	}

	// Closing the document while a cell runs ends the run and the kernel.
	res := make(chan error, 1)
	var r *contract.RunResult
	mark := c.Mark()
	go func() {
		var err error
		r, err = c.Run(ctx, contract.CmdRunCell, lsptest.LineArg(uri, 1))
		res <- err
	}()
	await(t, c, lsptest.After(mark, lsptest.ExecutionPhase("", contract.PhaseRunning)))
	if err := c.CloseDoc(ctx, uri); err != nil {
		t.Fatal(err)
	}
	if err := <-res; err != nil {
		t.Fatalf("run of a document closed under it: %v", err)
	}
	if len(r.Executions) != 1 || r.Executions[0].Status != contract.StatusInterrupted {
		t.Errorf("run of a document closed under it: %s", mustJSON(r))
	}
	waitNoMontyChildren(t)

	err := c.Command(ctx, contract.CmdRunCell, lsptest.LineArg(uri, 0), nil)
	if rpcCode(err) != jsonrpc2.InvalidParams || !strings.Contains(err.Error(), "no open document") {
		t.Fatalf("run on a closed document: %v", err)
	}
	// Reopened, it gets a fresh kernel.
	uri = open(t, c, "closed.py", "x\n")
	if ex := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0)); len(ex) != 1 || ex[0].Status != contract.StatusError {
		t.Fatalf("reopened: %s", mustJSON(ex))
	}
}

func TestFiftyMegabytesOfOutput(t *testing.T) {
	// A million prints take seconds alone and more than the default 30 s
	// limit beside a CPU hog: the limit and the guard here bound a hang,
	// they do not time the flood.
	c := start(t, lsptest.Neovim07, map[string]any{"backyard": map[string]any{"timeout": 600}})
	uri := open(t, c, "flood.py", "for i in range(1_000_000):\n    print('x' * 49)\n")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	res, err := c.Run(ctx, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	if err != nil {
		t.Fatal(err)
	}
	ex := res.Executions
	if len(ex) != 1 || ex[0].Status != contract.StatusOK {
		t.Fatalf("%s", mustJSON(ex)[:200])
	}
	out := ex[0].Stdout
	if len(out) > 1<<20+200 || !strings.Contains(out, "output truncated") {
		t.Errorf("stdout is %d bytes; want the 1 MiB cap and a marker", len(out))
	}
	streamed, batches := 0, 0
	for _, o := range lsptest.ParamsOf[contract.OutputParams](c, contract.MethodOutput) {
		streamed += len(o.Text)
		batches++
	}
	if streamed != len(out) {
		t.Errorf("streamed %d bytes, the execution has %d", streamed, len(out))
	}
	if batches > 200 {
		t.Errorf("%d output notifications for 1 MiB: not batched", batches)
	}
	alive(t, c, uri)
}

// TestServeLeavesNothingBehind: after Serve returns (input closed while a
// cell loops), no goroutine and no worker process is left.
func TestServeLeavesNothingBehind(t *testing.T) {
	waitNoMontyChildren(t)
	defer goleak.VerifyNone(t, append(engineConns, goleak.IgnoreCurrent())...)
	c := lsptest.Pipe(lsp.Options{Logger: testLogger()})
	ctx := testCtx(t)
	if _, err := c.Initialize(ctx, lsptest.VSCode, nil); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		uri := docURI(t, fmt.Sprintf("leak%d.py", i))
		if err := c.Open(ctx, uri, "x = 1\n# %%\nwhile True:\n    pass\n"); err != nil {
			t.Fatal(err)
		}
		run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))
		queue(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 1))
	}
	if n := montyChildren(t); n < 3 {
		t.Fatalf("%d workers, want one per document (and their keepers)", n)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	if n := montyChildren(t); n != 0 {
		t.Errorf("%d Monty workers left after Serve returned", n)
	}
}

// montyChildren counts live Monty worker processes that are children of
// this process.
func montyChildren(t *testing.T) int {
	t.Helper()
	n := 0
	for _, pid := range lsptest.Children(os.Getpid()) {
		if comm, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "comm")); strings.TrimSpace(string(comm)) == "monty" {
			n++
		}
	}
	return n
}

func waitNoMontyChildren(t *testing.T) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for montyChildren(t) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("Monty workers still running")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
