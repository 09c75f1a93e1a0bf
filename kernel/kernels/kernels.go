// Package kernels creates a kernel of the backend a configuration names.
package kernels

import (
	"fmt"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/auto"
	"github.com/backyard-ls/backyard-ls/kernel/containerkernel"
	"github.com/backyard-ls/backyard-ls/kernel/montykernel"
)

// New creates a kernel for cfg.Settings.Backend ("auto" when empty).
// Backends start lazily, on the first execution; New fails only when the
// backend cannot exist here (no Monty worker, an unknown backend or
// runtime).
func New(cfg kernel.Config) (kernel.Kernel, error) {
	switch cfg.Settings.Backend {
	case contract.BackendAuto, "":
		return auto.New(cfg)
	case contract.BackendMonty:
		return montykernel.New(montykernel.OptionsOf(cfg))
	case contract.BackendContainer:
		return containerkernel.New(containerkernel.OptionsOf(cfg))
	}
	return nil, fmt.Errorf("unknown backend %q (want monty, container or auto)", cfg.Settings.Backend)
}
