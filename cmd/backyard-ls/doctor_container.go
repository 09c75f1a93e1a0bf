package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/contract"
)

// doctorContainer reports the container engine, its runtimes and the image.
// A missing engine is not a failure: Monty keeps working without it.
func doctorContainer(image string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r := container.Probe(ctx, container.Config{ContainerSettings: contract.ContainerSettings{Image: image}, Pull: container.PullNever})
	for _, line := range strings.Split(strings.TrimRight(r.String(), "\n"), "\n") {
		fmt.Println("  " + line)
	}
	switch {
	case !r.Reachable:
		fmt.Println("  ✗ no container engine: cells that need full CPython cannot run.")
		fmt.Println("    get one: install Docker (Debian: apt-get install docker.io runsc; then scripts/docker-setup.sh)")
		fmt.Println("    or point DOCKER_HOST at Podman's socket or a remote engine")
	case r.Warning != "":
		fmt.Println("  ! " + r.Warning)
	}
	if r.Reachable && r.ImageID == "" {
		fmt.Printf("  - image %s is not present; it is pulled from its registry on first use\n", r.Image)
		fmt.Println("    without a registry, use a local image: --image (backyard.container.image)")
	}
}
