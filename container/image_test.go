package container

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"
)

// A pull that failed (a registry that cannot be reached: the .invalid
// domain never resolves) is not tried again at once: every kernel start
// offline would otherwise wait for the same failure.
func TestFailedPullIsNotRetriedAtOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine")
	}
	core, logs := observer.New(zap.InfoLevel)
	e, err := Connect(context.Background(), "", zap.New(core))
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	const ref = "registry.invalid/backyard-ls/missing:1"
	var pulls int
	progress := func(_, msg string, _ int, _ bool) {
		if msg == "starting" {
			pulls++
		}
	}
	_, first := e.EnsureImage(context.Background(), ref, PullMissing, progress)
	if first == nil || !strings.Contains(first.Error(), "pull "+ref) {
		t.Fatalf("first pull: %v", first)
	}
	_, again := e.EnsureImage(context.Background(), ref, PullMissing, progress)
	if !errors.Is(again, first) || !strings.Contains(again.Error(), "not pulled again") {
		t.Fatalf("second attempt: %v", again)
	}
	if n := logs.FilterMessage("pulling image").Len(); n != 1 || pulls != 1 {
		t.Fatalf("%d pulls logged, %d reported: the failed pull was tried again", n, pulls)
	}
	// Another reference is pulled as before.
	if _, err := e.EnsureImage(context.Background(), ref+"0", PullMissing, progress); err == nil || pulls != 2 {
		t.Fatalf("another image: %v, %d pulls", err, pulls)
	}
}
