//go:build unix

package montykernel

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// A FIFO in the workspace does not exist for a Monty cell: opening it
// neither blocks nor reads another process's pipe.
func TestWorkspaceFIFOIsNotThere(t *testing.T) {
	k, ws := filesKernel(t, contract.FilesSandbox)
	if err := syscall.Mkfifo(filepath.Join(ws, "pipe"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	r, err := k.Execute(context.Background(), kernel.Request{Code: "open('pipe').read()"})
	if err != nil || r.Status != kernel.StatusError || r.Error.EName != "FileNotFoundError" {
		t.Fatalf("%+v %v", r, err)
	}
}
