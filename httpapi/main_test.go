package httpapi

import (
	"context"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
)

// TestMain fails the tests when goroutines outlive them; the shared engine
// clients are closed first (they keep idle connections by design).
func TestMain(m *testing.M) { goleak.VerifyTestMain(containertest.RunThen(m, container.CloseShared)) }

// settings are the defaults with backend b, the local test image and a
// time limit long enough that only what a test does ends a run.
func settings(b contract.Backend) contract.Settings {
	s := contract.DefaultSettings()
	s.Backend = b
	s.Container.Image = containertest.Image()
	s.Timeout = 60
	return s
}

// newServer starts a server that is shut down (no container left) when
// the test ends.
func newServer(tb testing.TB, opts Options) *Server {
	tb.Helper()
	if opts.Settings.Backend != contract.BackendMonty && testing.Short() {
		tb.Skip("needs a container engine")
	}
	s, err := New(opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		s.Shutdown(ctx)
	})
	return s
}
