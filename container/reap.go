package container

import (
	"context"
	"errors"
	"sync"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/filters"
	"go.uber.org/zap"
)

// ReapOrphans removes the kernel containers left on the default engine
// (DOCKER_HOST or the default socket) by backyard-ls processes of this
// machine that are no longer running, e.g. after a crash. Call it when a
// server starts. It returns the IDs removed.
func ReapOrphans(ctx context.Context) ([]string, error) {
	e, err := Shared(ctx, "", nil)
	if err != nil {
		return nil, err
	}
	return e.ReapOrphans(ctx)
}

// ReapOrphans removes this engine's kernel containers whose owning process
// (see the Label constants) has exited. It returns the IDs removed.
func (e *Engine) ReapOrphans(ctx context.Context) ([]string, error) {
	return e.reapOrphansOf(ctx, owner[LabelHost])
}

// reapOrphansOf is ReapOrphans for the containers labelled with host.
func (e *Engine) reapOrphansOf(ctx context.Context, host string) ([]string, error) {
	return e.removeWhere(ctx, filters.NewArgs(filters.Arg("label", LabelKernel+"=1"), filters.Arg("label", LabelHost+"="+host)),
		func(labels map[string]string) bool { return ownerGone(host, labels) })
}

// RemoveOwned removes every kernel container of this process on this engine:
// for a server that is exiting without closing its kernels.
func (e *Engine) RemoveOwned(ctx context.Context) ([]string, error) {
	return e.removeWhere(ctx, filters.NewArgs(filters.Arg("label", LabelInstance+"="+InstanceID())),
		func(map[string]string) bool { return true })
}

// Shutdown removes every kernel container of this process on the engines
// opened with Shared. Call it when the server exits.
func Shutdown(ctx context.Context) error {
	shared.Lock()
	engines := make([]*Engine, 0, len(shared.engines))
	for _, e := range shared.engines {
		engines = append(engines, e)
	}
	shared.Unlock()
	errs := make([]error, len(engines))
	var wg sync.WaitGroup
	for i, e := range engines {
		wg.Go(func() { _, errs[i] = e.RemoveOwned(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// removeWhere removes the containers that f lists and match accepts, all
// at once: a server that exits waits for the slowest removal, not for
// their sum.
func (e *Engine) removeWhere(ctx context.Context, f filters.Args, match func(map[string]string) bool) ([]string, error) {
	list, err := e.cli.ContainerList(ctx, container.ListOptions{All: true, Filters: f})
	if err != nil {
		return nil, e.wrap(err)
	}
	var (
		mu      sync.Mutex
		removed []string
		errs    []error
		wg      sync.WaitGroup
	)
	for _, c := range list {
		if !match(c.Labels) {
			continue
		}
		wg.Go(func() {
			err := e.cli.ContainerRemove(ctx, c.ID, container.RemoveOptions{Force: true, RemoveVolumes: true})
			if err == nil || isNotFound(err) {
				// Another process may be removing it too: gone means gone.
				waitC, errC := e.cli.ContainerWait(ctx, c.ID, container.WaitConditionRemoved)
				select {
				case <-waitC:
				case <-errC: // not found: already gone
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil && !isNotFound(err) {
				errs = append(errs, e.wrap(err))
				return
			}
			e.log.Info("removed kernel container", zap.String("id", shortID(c.ID)), zap.String("owner pid", c.Labels[LabelPID]))
			removed = append(removed, c.ID)
		})
	}
	wg.Wait()
	return removed, errors.Join(errs...)
}

// ContainerExists reports whether the engine has a container with this ID,
// running or not.
func (e *Engine) ContainerExists(ctx context.Context, id string) (bool, error) {
	_, err := e.cli.ContainerInspect(ctx, id)
	if cerrdefs.IsNotFound(err) {
		return false, nil
	}
	return err == nil, e.wrap(err)
}

// Remove removes a container, running or not; a missing one is no error.
func (e *Engine) Remove(ctx context.Context, id string) error {
	err := e.cli.ContainerRemove(ctx, id, container.RemoveOptions{Force: true, RemoveVolumes: true})
	if isNotFound(err) {
		return nil
	}
	return e.wrap(err)
}
