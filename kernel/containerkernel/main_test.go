package containerkernel

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/container/containertest"
)

// TestMain fails the tests when goroutines outlive them; the shared engine
// clients are closed first (they keep idle connections by design).
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(containertest.RunThen(m, func() {
		CloseWarm() // the pool a kernel start refills
		container.CloseShared()
	}))
}
