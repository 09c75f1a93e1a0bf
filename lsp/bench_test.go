package lsp_test

import (
	"slices"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

// benchClients: Neovim 0.7 (no refresh requests) and VS Code (code lens
// and inlay hint refresh after each run).
var benchClients = []struct {
	name string
	caps lsptest.Capabilities
}{{"neovim-0.7", lsptest.Neovim07}, {"vscode", lsptest.VSCode}}

// benchRun measures round trips of one run command against the built
// binary over stdio and reports the median besides the mean.
func benchRun(b *testing.B, caps lsptest.Capabilities, text string, line int) {
	c, _ := startBinary(b)
	ctx := testCtx(b)
	if _, err := c.Initialize(ctx, caps, nil); err != nil {
		b.Fatal(err)
	}
	uri := "file:///bench/cell.py"
	if err := c.Open(ctx, uri, text); err != nil {
		b.Fatal(err)
	}
	arg := lsptest.LineArg(uri, line)
	for range 20 { // start the kernel, warm up
		if res, err := c.Run(ctx, contract.CmdRunCell, arg); err != nil || len(res.Executions) != 1 || res.Executions[0].Status != contract.StatusOK {
			b.Fatalf("%v %s", err, mustJSON(res))
		}
	}
	c.Forget()
	durs := make([]time.Duration, 0, 1024)
	for b.Loop() {
		start := time.Now()
		if _, err := c.Run(ctx, contract.CmdRunCell, arg); err != nil {
			b.Fatal(err)
		}
		durs = append(durs, time.Since(start))
		c.Forget()
	}
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds())/1000, "ms-median")
}

// BenchmarkRunCellStdio: workspace/executeCommand backyard.runCell of a
// trivial cell, request to response, over real stdio.
func BenchmarkRunCellStdio(b *testing.B) {
	for _, cl := range benchClients {
		b.Run(cl.name, func(b *testing.B) {
			benchRun(b, cl.caps, "x = 1\nx\n", 0)
		})
	}
}

// BenchmarkPrint1000LinesStdio: a cell printing 1000 lines, end to end:
// every backyard/output notification precedes the response.
func BenchmarkPrint1000LinesStdio(b *testing.B) {
	benchRun(b, lsptest.Neovim07, "for i in range(1000):\n    print(i)\n", 0)
}

// BenchmarkCodeLensStdio is the floor: a textDocument/codeLens round trip
// over the same stdio, no kernel involved.
func BenchmarkCodeLensStdio(b *testing.B) {
	c, _ := startBinary(b)
	ctx := testCtx(b)
	if _, err := c.Initialize(ctx, lsptest.Neovim07, nil); err != nil {
		b.Fatal(err)
	}
	uri := "file:///bench/cell.py"
	if err := c.Open(ctx, uri, "x = 1\n# %%\nx\n"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := c.CodeLens(ctx, uri); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunCellInProcess is the same round trip as
// BenchmarkRunCellStdio/neovim-0.7 with client and server in one process
// (io.Pipe): the one to profile with -cpuprofile.
func BenchmarkRunCellInProcess(b *testing.B) {
	c := startWith(b, lsp.Options{Logger: testLogger()}, lsptest.Neovim07, nil)
	ctx := testCtx(b)
	uri := "file:///bench/cell.py"
	if err := c.Open(ctx, uri, "x = 1\nx\n"); err != nil {
		b.Fatal(err)
	}
	arg := lsptest.LineArg(uri, 0)
	for b.Loop() {
		if _, err := c.Run(ctx, contract.CmdRunCell, arg); err != nil {
			b.Fatal(err)
		}
		c.Forget()
	}
}
