package montykernel

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the tests when goroutines outlive them.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
