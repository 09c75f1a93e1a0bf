package kernel

import (
	"fmt"

	"go.uber.org/zap"
)

// Config chooses and configures the backend of a new kernel.
type Config struct {
	// Backend is "monty", "container" or "auto" (the default).
	Backend string
	Limits  Limits
	// MontyBinary is the Monty worker; empty means monty.Find("").
	MontyBinary string
	// Container configures the container backend.
	Container ContainerConfig
	// OnState, when set, is told of every kernel state change.
	OnState func(State)
	Logger  *zap.Logger
}

// ContainerConfig configures container kernels.
type ContainerConfig struct{}

// New creates a kernel for cfg.Backend. Backends start lazily, on the
// first execution.
func New(cfg Config) (Kernel, error) {
	switch cfg.Backend {
	case BackendMonty, BackendAuto, "":
		// TODO(auto): route to the container when a cell needs it.
		return NewMonty(MontyOptions{Binary: cfg.MontyBinary, Limits: cfg.Limits, OnState: cfg.OnState})
	case BackendContainer:
		return nil, fmt.Errorf("the container backend is not available in this build")
	}
	return nil, fmt.Errorf("unknown backend %q (want monty, container or auto)", cfg.Backend)
}
