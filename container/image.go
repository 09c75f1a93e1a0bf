package container

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/jsonmessage"
	"go.uber.org/zap"
)

// ImageMissingError says that the image is not on the engine and the pull
// policy forbids pulling it.
type ImageMissingError struct{ Image string }

func (e *ImageMissingError) Error() string {
	return fmt.Sprintf("image %s is not on the container engine and pulling is off: pull it, or build the test image with scripts/build-test-image.sh", e.Image)
}

// PullRetry is how long a pull that failed is not tried again: without a
// registry (offline) every kernel start would otherwise wait for the same
// failure, once per cell that wants a container. An image built or loaded
// meanwhile is found at once: the engine is asked for it first.
const PullRetry = 30 * time.Second

// failedPull is a pull's error and when it failed.
type failedPull struct {
	err error
	at  time.Time
}

// ImageID returns the ID of ref when the engine has it; ok is false when it
// does not.
func (e *Engine) ImageID(ctx context.Context, ref string) (id string, ok bool, err error) {
	e.mu.Lock()
	id, ok = e.images[ref]
	e.mu.Unlock()
	if ok {
		return id, true, nil
	}
	ins, err := e.cli.ImageInspect(ctx, ref)
	if client.IsErrNotFound(err) {
		return "", false, nil
	}
	if err != nil {
		return "", false, e.wrap(err)
	}
	e.mu.Lock()
	e.images[ref] = ins.ID
	e.mu.Unlock()
	return ins.ID, true, nil
}

// EnsureImage makes sure the engine has ref, pulling it when it is missing
// and policy allows; onProgress (may be nil) follows the pull. It returns
// the image ID.
func (e *Engine) EnsureImage(ctx context.Context, ref string, policy PullPolicy, onProgress func(title, message string, percent int, done bool)) (string, error) {
	id, ok, err := e.ImageID(ctx, ref)
	if err != nil || ok {
		return id, err
	}
	if policy == PullNever {
		return "", &ImageMissingError{Image: ref}
	}
	e.mu.Lock()
	failed, ok := e.pullFailed[ref]
	e.mu.Unlock()
	if ok && time.Since(failed.at) < PullRetry {
		return "", fmt.Errorf("%w (not pulled again until %s after that failure)", failed.err, PullRetry)
	}
	if err := e.pull(ctx, ref, onProgress); err != nil {
		if ctx.Err() == nil {
			e.mu.Lock()
			e.pullFailed[ref] = failedPull{err: err, at: time.Now()}
			e.mu.Unlock()
		}
		return "", err
	}
	e.mu.Lock()
	delete(e.pullFailed, ref)
	e.mu.Unlock()
	id, ok, err = e.ImageID(ctx, ref)
	if err == nil && !ok {
		err = fmt.Errorf("pull %s: the engine reported success but has no such image", ref)
	}
	return id, err
}

func (e *Engine) pull(ctx context.Context, ref string, onProgress func(string, string, int, bool)) error {
	title := "Pulling " + ref
	report := func(msg string, pct int, done bool) {
		if onProgress != nil {
			onProgress(title, msg, pct, done)
		}
	}
	e.log.Info("pulling image", zap.String("image", ref))
	report("starting", -1, false)
	rc, err := e.cli.ImagePull(ctx, ref, image.PullOptions{})
	if err != nil {
		report("failed", -1, true)
		return fmt.Errorf("pull %s: %w", ref, e.wrap(err))
	}
	defer rc.Close()
	err = followPull(rc, func(pct int, msg string) { report(msg, pct, false) })
	if err != nil {
		report("failed", -1, true)
		return fmt.Errorf("pull %s: %w", ref, err)
	}
	report("done", 100, true)
	return nil
}

// followPull reads the engine's pull messages from r, calls step with each
// change, and returns the error the engine reported, if any.
func followPull(r io.Reader, step func(percent int, message string)) error {
	dec := json.NewDecoder(r)
	var p pullProgress
	lastPct, lastMsg := -2, ""
	for {
		var m jsonmessage.JSONMessage
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
		if m.Error != nil {
			return errors.New(m.Error.Message)
		}
		pct, msg := p.update(m)
		if pct != lastPct || msg != lastMsg {
			step(pct, msg)
			lastPct, lastMsg = pct, msg
		}
	}
}
