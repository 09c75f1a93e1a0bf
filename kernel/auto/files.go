package auto

import (
	"context"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

var _ kernel.FileKeeper = (*Kernel)(nil)

// fileKeeper is the backend the document uses now. The overlay moves with
// the document: the replay into the container writes the files again.
func (a *Kernel) fileKeeper() kernel.FileKeeper {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.moved {
		fk, _ := a.ctr.(kernel.FileKeeper)
		return fk
	}
	return a.monty
}

// Files implements kernel.FileKeeper.
func (a *Kernel) Files(ctx context.Context) ([]contract.FileEntry, error) {
	if fk := a.fileKeeper(); fk != nil {
		return fk.Files(ctx)
	}
	return nil, nil
}

// SaveFiles implements kernel.FileKeeper.
func (a *Kernel) SaveFiles(ctx context.Context, paths []string) ([]string, error) {
	if fk := a.fileKeeper(); fk != nil {
		return fk.SaveFiles(ctx, paths)
	}
	return nil, nil
}
