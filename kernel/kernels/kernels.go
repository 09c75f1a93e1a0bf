package kernel

import (
	"context"
	"fmt"

	"go.uber.org/zap"
)

// Config chooses and configures the backend of a new kernel.
type Config struct {
	// Backend is "monty", "container" or "auto" (the default).
	Backend string
	Limits  Limits
	// MontyBinary is the Monty worker; empty means monty.Find("").
	MontyBinary string
	// Container configures the container backend.
	Container ContainerConfig
	// OnState, when set, is told of every kernel state change.
	OnState func(State)
	Logger  *zap.Logger
}

// ContainerConfig configures container kernels (see the container
// package for what each setting does). The memory limit, time limit and
// output caps come from Config.Limits.
type ContainerConfig struct {
	// Image to run (default python:3.13-slim); it needs python3 >= 3.8.
	Image string
	// Pull is "missing" (default: pull a missing image) or "never".
	Pull string
	// Runtime forces "runc" or "runsc"; empty picks runsc when the engine
	// has it, else runc with a warning.
	Runtime string
	// Network gives the kernel a network; off by default.
	Network bool
	// Workspace is mounted read-only at /workspace when WorkspaceMount is set.
	Workspace      string
	WorkspaceMount bool
	// CPUs caps CPU time in cores (default 1).
	CPUs float64
	// PidsLimit caps processes and threads (default 256).
	PidsLimit int64
	// DockerHost overrides DOCKER_HOST, e.g. unix:///run/podman/podman.sock.
	DockerHost string
	// OnProgress follows an image pull (percent -1 when unknown).
	OnProgress func(title, message string, percent int, done bool)
	// OnWarning gets warnings for the user, e.g. that gVisor is missing;
	// each is given once per process.
	OnWarning func(string)
	// AutoInstall is the policy for a package a cell imports but the image
	// lacks: "off" (default: the ModuleNotFoundError stands), "ask"
	// (Confirm decides) or "on". Packages go into a volume the kernel reads;
	// the kernel itself stays offline.
	AutoInstall string
	// IndexURL replaces PyPI for installs; FindLinks is a host directory
	// of wheels to install from.
	IndexURL  string
	FindLinks string
	// Confirm asks the user whether to install packages (AutoInstall
	// "ask"); nil means no.
	Confirm func(ctx context.Context, packages []string) bool
}

// AutoInstall policies.
const (
	InstallOff = "off"
	InstallAsk = "ask"
	InstallOn  = "on"
)

// New creates a kernel for cfg.Backend. Backends start lazily, on the
// first execution.
func New(cfg Config) (Kernel, error) {
	switch cfg.Backend {
	case BackendAuto, "":
		return NewAuto(cfg)
	case BackendMonty:
		return NewMonty(MontyOptions{Binary: cfg.MontyBinary, Limits: cfg.Limits, OnState: cfg.OnState})
	case BackendContainer:
		return NewContainer(ContainerOptions{Container: cfg.Container, Limits: cfg.Limits, OnState: cfg.OnState, Logger: cfg.Logger})
	}
	return nil, fmt.Errorf("unknown backend %q (want monty, container or auto)", cfg.Backend)
}
