package container

import (
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
)

// pathEnv is PATH inside the container: images made with `docker import`
// have no ENV, and python:*-slim keeps python3 in /usr/local/bin.
const pathEnv = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// hostUser is the uid:gid of the server's user, the owner of the files it
// works on.
func hostUser() string {
	uid, gid := os.Getuid(), os.Getgid()
	if uid < 0 || gid < 0 {
		return DefaultUser
	}
	return strconv.Itoa(uid) + ":" + strconv.Itoa(gid)
}

// CellEnv is the environment cells see (os.environ), as NAME=value; a
// Monty kernel shows the same.
func CellEnv() []string {
	env := []string{
		pathEnv,
		"HOME=/tmp",
		"LANG=C.UTF-8",
		"PYTHONDONTWRITEBYTECODE=1",
		"MPLBACKEND=Agg", // matplotlib draws PNGs, never a window
	}
	if tz := os.Getenv("TZ"); tz != "" {
		// The server's time zone, as a kernel started beside it has it.
		env = append(env, "TZ="+tz)
	}
	return env
}

// rlimits of the kernel. nproc counts per user ID across the engine's
// host, so it is a backstop to the per-container pids limit, not a
// replacement.
const (
	openFiles = 4096
	processes = 4096
)

// spec is what the engine is asked to create: the container's config and
// host config, built from a Config without touching the engine.
type spec struct {
	config *container.Config
	host   *container.HostConfig
}

// buildSpec turns cfg (with defaults applied) into a container that runs the
// driver as a hardened, stateful kernel. runtime is the engine runtime name
// ("" for the engine's default); labels mark the container as backyard-ls's.
func buildSpec(cfg Config, runtime string, labels map[string]string, plan *filePlan) spec {
	// The driver moves to the working directory once the workspace is in
	// place (a tmpfs overlay would hide a folder made for it beforehand).
	workdir := "/tmp"
	mounts, overlays := plan.mounts(cfg.MemoryBytes)
	env := append(CellEnv(), "BACKYARD_RECURSION_LIMIT="+strconv.Itoa(cfg.RecursionLimit))
	if cfg.Packages {
		// Packages installed on demand: read-only here, written only by
		// the installer container (see Install).
		mounts = append(mounts, mount.Mount{Type: mount.TypeVolume, Source: PackagesVolume(cfg.Image), Target: PackagesTarget, ReadOnly: true})
		env = append(env, "PYTHONPATH="+PackagesTarget)
	}
	env = withEnv(env, cfg.Env)
	network := container.NetworkMode("none")
	if cfg.Network == contract.NetworkBridge {
		network = "default"
	}
	pids := cfg.PidsLimit
	c := &container.Config{
		Image:           cfg.Image,
		Cmd:             driverCommand(cfg.Python),
		Env:             env,
		User:            cfg.User,
		WorkingDir:      workdir,
		Labels:          labels,
		AttachStdin:     true,
		AttachStdout:    true,
		AttachStderr:    true,
		OpenStdin:       true,
		StdinOnce:       true, // the driver sees EOF, and exits, when the host goes away
		NetworkDisabled: cfg.Network != contract.NetworkBridge,
	}
	tmpfs := map[string]string{"/tmp": fmt.Sprintf("rw,nosuid,nodev,size=%d,mode=1777", cfg.TmpBytes)}
	for dir, opts := range overlays {
		tmpfs[dir] = opts // a workspace at /tmp is the scratch folder too
	}
	for _, m := range mounts {
		if m.Target == "/tmp" {
			delete(tmpfs, "/tmp")
		}
	}
	if cfg.User == DefaultUser && plan.write == contract.FilesWorkspace && len(mounts) > 0 {
		// Real writes to the workspace: as the user who owns its files.
		cfg.User = hostUser()
	}
	c.User = cfg.User
	h := &container.HostConfig{
		NetworkMode:    network,
		Runtime:        runtime,
		ReadonlyRootfs: true,
		Tmpfs:          tmpfs,
		CapDrop:        []string{"ALL"},
		SecurityOpt:    []string{"no-new-privileges"},
		Mounts:         mounts,
		Resources: container.Resources{
			Memory:     cfg.MemoryBytes,
			MemorySwap: cfg.MemoryBytes, // no swap on top
			NanoCPUs:   int64(cfg.CPUs * 1e9),
			PidsLimit:  &pids,
			// Explicit, modest rlimits: a bound on open files, and Podman's
			// defaults (a million) fail where its own hard limit is lower.
			Ulimits: []*container.Ulimit{
				{Name: "nofile", Soft: openFiles, Hard: openFiles},
				{Name: "nproc", Soft: processes, Hard: processes},
			},
		},
	}
	return spec{config: c, host: h}
}

// ReservedEnv reports the variables the kernel sets for itself, which
// Config.Env cannot replace.
func ReservedEnv(name string) bool {
	return name == "PYTHONPATH" || strings.HasPrefix(name, "BACKYARD_")
}

// withEnv adds extra to env ("K=V" entries), replacing entries of the
// same name except reserved ones.
func withEnv(env []string, extra map[string]string) []string {
	for _, k := range slices.Sorted(maps.Keys(extra)) {
		if ReservedEnv(k) || k == "" || strings.Contains(k, "=") {
			continue
		}
		env = slices.DeleteFunc(env, func(e string) bool { return strings.HasPrefix(e, k+"=") })
		env = append(env, k+"="+extra[k])
	}
	return env
}
