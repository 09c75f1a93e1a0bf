package mcp_test

import (
	"context"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
	"github.com/backyard-ls/backyard-ls/mcp"
)

// BenchmarkRunPythonInProcess: a trivial run_python through the Go SDK's
// client over an in-memory transport, Monty backend: the server's own cost
// without a process boundary or the Python client (scripts/bench-mcp.sh
// has those).
func BenchmarkRunPythonInProcess(b *testing.B) {
	_, cs := connect(b, mcp.Options{})
	ctx := context.Background()
	call := func(code string) {
		if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "run_python", Arguments: map[string]any{"code": code}}); err != nil {
			b.Fatal(err)
		}
	}
	for range 20 {
		call("pass")
	}
	call("x = 0")
	var s kerneltest.Samples
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		call("x = x + 1")
		s = append(s, time.Since(t0))
	}
	s.Report(b)
}
