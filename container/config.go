package container

import (
	"time"

	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/files"
)

// DefaultImage is the image used when Config.Image is empty: the
// container.image setting's default.
var DefaultImage = contract.DefaultSettings().Container.Image

// PullPolicy says what to do when the image is not on the engine.
type PullPolicy string

const (
	PullMissing PullPolicy = "missing" // pull it (the default)
	PullNever   PullPolicy = "never"   // fail with an error that says how to get it
)

// Runtime names.
const (
	RuntimeRunc  = string(contract.RuntimeRunc)
	RuntimeRunsc = string(contract.RuntimeRunsc) // gVisor
)

// Config configures a kernel container. Zero fields take the defaults
// documented on each field; the hardening is on unless a field turns it off.
type Config struct {
	// Pull is the policy for a missing image (default PullMissing).
	Pull PullPolicy
	// DockerHost is the engine address ("unix:///var/run/docker.sock",
	// "tcp://host:2376", a Podman socket); empty means DOCKER_HOST or the
	// default socket.
	DockerHost string
	// ContainerSettings are the user's backyard.container.* settings: the
	// image (default DefaultImage; it needs python3 >= 3.8 on PATH, nothing
	// else is taken from it), the runtime (empty picks runsc when the engine
	// lists it, else the engine's default, with a warning), the network
	// (none by default) and whether Workspace is mounted.
	contract.ContainerSettings
	// Rules say what of the host the container sees, at the same paths
	// (see files.go); nil: Workspace when MountWorkspace is set, with
	// nothing hidden. With a remote engine the paths are on the engine's
	// host.
	Rules *files.Rules
	// Workspace is the one root when Rules is nil.
	Workspace string
	// Write is files.write: "sandbox" (default) copies what the container
	// sees into in-memory overlays at the roots' paths, "workspace" mounts
	// the roots read-write.
	Write contract.FilesWrite
	// Dir is the working directory (default: the first root, else /tmp).
	Dir string
	// CopyBytes bounds the file data copied into the sandbox overlay
	// (default a quarter of MemoryBytes); a larger workspace is mounted
	// read-only.
	CopyBytes int64
	// Packages mounts the image's package volume (see Install) read-only
	// and puts it on PYTHONPATH.
	Packages bool
	// MemoryBytes caps the container's memory, tmpfs included (default 256
	// MiB); there is no swap.
	MemoryBytes int64
	// CPUs caps CPU time in cores (default 1).
	CPUs float64
	// PidsLimit caps processes and threads (default 256: gVisor's own host
	// processes count against it, and it fails to start below ~100).
	PidsLimit int64
	// TmpBytes is the size of the tmpfs at /tmp, which is also HOME (default
	// 64 MiB).
	TmpBytes int64
	// User runs the driver as uid:gid (default "65534:65534", nobody).
	User string
	// Python is the interpreter to start (default "python3", found on PATH).
	Python string
	// RecursionLimit is Python's recursion limit for cells (default 1000).
	RecursionLimit int
	// Env is added to the container's environment (it replaces variables
	// of the same name, except those the kernel needs, see ReservedEnv).
	Env map[string]string
	// StartTimeout bounds container creation and the driver's start, not a
	// pull (default 60 s).
	StartTimeout time.Duration
	// OnProgress, when set, is told how an image pull goes: percent is -1
	// when unknown; done is true once, at the end.
	OnProgress func(title, message string, percent int, done bool)
	// Logger gets diagnostics (default none).
	Logger *zap.Logger
}

// Defaults.
const (
	DefaultMemoryBytes    = 256 << 20
	DefaultCPUs           = 1.0
	DefaultPidsLimit      = 256
	DefaultTmpBytes       = 64 << 20
	DefaultUser           = "65534:65534"
	DefaultRecursionLimit = 1000
	DefaultStartTimeout   = 60 * time.Second
)

// WithDefaults returns c with zero fields set to their defaults.
func (c Config) WithDefaults() Config {
	if c.Image == "" {
		c.Image = DefaultImage
	}
	if c.Pull == "" {
		c.Pull = PullMissing
	}
	if c.MemoryBytes <= 0 {
		c.MemoryBytes = DefaultMemoryBytes
	}
	if c.CPUs <= 0 {
		c.CPUs = DefaultCPUs
	}
	if c.PidsLimit <= 0 {
		c.PidsLimit = DefaultPidsLimit
	}
	if c.TmpBytes <= 0 {
		c.TmpBytes = DefaultTmpBytes
	}
	if c.User == "" {
		c.User = DefaultUser
	}
	if c.Python == "" {
		c.Python = "python3"
	}
	if c.RecursionLimit <= 0 {
		c.RecursionLimit = DefaultRecursionLimit
	}
	if c.StartTimeout <= 0 {
		c.StartTimeout = DefaultStartTimeout
	}
	if c.Logger == nil {
		c.Logger = zap.NewNop()
	}
	return c
}
