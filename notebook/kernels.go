package notebook

import (
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kernels"
)

func newKernel(cfg kernel.Config) (kernel.Kernel, error) { return kernels.New(cfg) }

func warmKernels(cfg kernel.Config) { kernels.Warm(cfg) }

// CloseWarm removes the warm pool's containers (see Options.SharedWarm).
func CloseWarm() { kernels.CloseWarm() }
