package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/contract"
)

// doctorContainer is the container backend as a kernel would get it.
type doctorContainer struct {
	Host      string `json:"host"`
	Reachable bool   `json:"reachable"`
	// Ready: a container kernel can start now, without pulling.
	Ready  bool         `json:"ready"`
	Engine doctorEngine `json:"engine"`
	// Runtime is what a kernel would run on; RuntimeWarning says why it
	// is not gVisor, RuntimeError why the asked-for runtime is unusable.
	Runtime        string      `json:"runtime"`
	RuntimeWarning string      `json:"runtimeWarning"`
	RuntimeError   string      `json:"runtimeError"`
	Image          doctorImage `json:"image"`
	Error          string      `json:"error"` // the engine or the image check failed
}

type doctorEngine struct {
	Name             string   `json:"name"`
	Version          string   `json:"version"`
	APIVersion       string   `json:"apiVersion"`
	ClientAPIVersion string   `json:"clientApiVersion"`
	OS               string   `json:"os"`
	Runtimes         []string `json:"runtimes"`
	DefaultRuntime   string   `json:"defaultRuntime"`
}

type doctorImage struct {
	Name    string `json:"name"`
	ID      string `json:"id"` // "" when the engine does not have it
	Present bool   `json:"present"`
}

// probeContainer checks the engine, its runtimes and the image; it pulls
// and starts nothing.
func probeContainer(image, runtime string) container.Report {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return container.Probe(ctx, container.Config{ContainerSettings: contract.ContainerSettings{Image: image, Runtime: contract.Runtime(runtime)}, Pull: container.PullNever})
}

func containerJSON(r container.Report) doctorContainer {
	e := r.Engine
	c := doctorContainer{
		Host: r.Host, Reachable: r.Reachable, Ready: r.OK(),
		Engine: doctorEngine{
			Name: e.Name, Version: e.Version, APIVersion: e.APIVersion, ClientAPIVersion: e.ClientAPI,
			OS: e.OS, Runtimes: e.Runtimes, DefaultRuntime: e.DefaultRuntime,
		},
		Runtime: r.Runtime, RuntimeWarning: r.Warning,
		Image: doctorImage{Name: r.Image, ID: r.ImageID, Present: r.ImageID != ""},
	}
	if c.Engine.Runtimes == nil {
		c.Engine.Runtimes = []string{}
	}
	if r.RuntimeErr != nil {
		c.RuntimeError = r.RuntimeErr.Error()
	}
	if r.Err != nil {
		c.Error = r.Err.Error()
	}
	return c
}

// printContainer reports the engine for a person. A missing engine is not
// a failure: Monty keeps working without it.
func printContainer(r container.Report) {
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
