package lsptest

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/kernel/kernels"
)

// TestMain fails the tests when goroutines outlive them; the warm pool the
// documents asked for and the shared engine clients (idle connections by
// design) are closed first.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(containertest.RunThen(m, func() {
		kernels.CloseWarm()
		container.CloseShared()
	}))
}
