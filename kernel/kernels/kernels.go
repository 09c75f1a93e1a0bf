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
		o := montykernel.OptionsOf(cfg)
		o.Shims = true   // alone, the kernel gives CPython's answers where a shim can
		o.History = true // and IPython's history names
		return montykernel.New(o)
	case contract.BackendContainer:
		return containerkernel.New(containerkernel.OptionsOf(cfg))
	}
	return nil, fmt.Errorf("unknown backend %q (want monty, container or auto)", cfg.Settings.Backend)
}

// Warm has started containers wait for kernels configured by cfg (the
// container.warmPool setting says how many), when its backend uses the
// container or can move to it. It returns at once.
func Warm(cfg kernel.Config) {
	switch cfg.Settings.Backend {
	case contract.BackendAuto, "", contract.BackendContainer:
		containerkernel.Warm(containerkernel.OptionsOf(cfg))
	}
}

// CloseWarm removes the containers waiting in the warm pool.
func CloseWarm() { containerkernel.CloseWarm() }
