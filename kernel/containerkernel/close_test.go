package containerkernel

import (
	"testing"

	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
)

// Close ends a cell blocked in a host call whatever the call does (see
// kerneltest.BlockedInHostCall), and removes the container.
func TestCloseEndsACellBlockedInAHostCall(t *testing.T) {
	forRuntimes(t, kernel.Limits{}, func(t *testing.T, k *Kernel) {
		res := kerneltest.BlockedInHostCall(t, k)
		id := k.ContainerID()
		if err := k.Close(); err != nil {
			t.Fatal(err)
		}
		if r := <-res; r.Status != kernel.StatusInterrupted || r.Error.EValue != "the kernel was restarted" {
			t.Fatalf("%+v %+v", r, r.Error)
		}
		if exists(t, id) {
			t.Fatalf("the container %s is left", id)
		}
	})
}
