package notebook

import (
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kernels"
)

func newKernel(cfg kernel.Config) (kernel.Kernel, error) { return kernels.New(cfg) }
