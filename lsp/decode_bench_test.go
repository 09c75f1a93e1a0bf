package lsp

import (
	"context"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/contract"
)

var benchParams = []byte(`{"command":"backyard.runCell","arguments":[{"uri":"file:///tmp/notebook.py","line":12,"wait":true}],"workDoneToken":"t1"}`)

// decodeOnly is a contract.Commands whose methods only take their
// argument, so the benchmark measures decoding and checking.
type decodeOnly struct{ contract.Commands }

func (decodeOnly) RunCell(_ context.Context, a *contract.LineArg) (contract.Reply[*contract.RunResult], error) {
	return nil, nil
}

// BenchmarkDecodeCommand measures decoding a run command's params into its
// typed argument, as ExecuteCommand does before it runs anything: the
// library decodes the params, Dispatch the argument.
func BenchmarkDecodeCommand(b *testing.B) {
	b.ReportAllocs()
	ctx := context.Background()
	for b.Loop() {
		var p protocol.ExecuteCommandParams
		if err := protocol.Unmarshal(benchParams, &p); err != nil {
			b.Fatal(err)
		}
		if _, err := contract.Dispatch(ctx, decodeOnly{}, p.Command, p.Arguments); err != nil {
			b.Fatal(err)
		}
	}
}
