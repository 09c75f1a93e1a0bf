package containerkernel

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
)

// The corpus/ipython notebooks: every cell shows what IPython showed.
func TestIPythonCorpus(t *testing.T) {
	nbs := kerneltest.IPythonCorpus(t, kerneltest.IPythonCorpusDir("../../corpus/ipython"))
	forRuntimes(t, kernel.Limits{}, func(t *testing.T, _ *Kernel) {
		same, all, varies := 0, 0, 0
		for _, nb := range nbs {
			ws := t.TempDir()
			k := newContainerKernel(t, t.Name()[strings.LastIndex(t.Name(), "/")+1:], kernel.Limits{}, filesOptions(ws, ws, contract.FilesSandbox))
			for i, want := range nb.Cells {
				if want.Varies {
					kerneltest.Run(t, k, want.Code)
					varies++
					continue
				}
				all++
				if diff := kerneltest.CompareIPython(want, kerneltest.Run(t, k, want.Code)); diff != "" {
					t.Errorf("%s cell %d (%s): %s", filepath.Base(nb.Path), i, want.Title, diff)
					continue
				}
				same++
			}
		}
		t.Logf("cells as IPython shows them: %d of %d (%d not compared: IPython's two recordings differ)", same, all, varies)
	})
}
