package container

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/mount"
	"github.com/docker/docker/api/types/volume"
	"github.com/docker/docker/pkg/stdcopy"

	"github.com/backyard-ls/backyard-ls/pypkg"
)

// Packages installed on demand live in a volume per image, shared by every
// kernel of that image: kernels mount it read-only at PackagesTarget (on
// PYTHONPATH) and stay offline; a separate short-lived installer container,
// which may have a network, writes to it.
const (
	PackagesTarget = "/opt/backyard/packages"
	linksTarget    = "/opt/backyard/links"
	LabelPackages  = "dev.backyard-ls.packages"
)

// PackagesVolume names the package volume of an image.
func PackagesVolume(image string) string {
	sum := sha256.Sum256([]byte(image))
	return "backyard-packages-" + hex.EncodeToString(sum[:])[:12]
}

// InstallRequest is one installation into an image's package volume.
type InstallRequest struct {
	// Requirements are pip requirement strings ("numpy", "requests<3"),
	// as pypkg.CheckRequirement takes them (others fail the install).
	Requirements []string
	// IndexURL replaces PyPI; FindLinks is a host directory of wheels and
	// sdists, mounted read-only into the installer.
	IndexURL  string
	FindLinks string
	// Offline installs from FindLinks only: no index and no network.
	Offline bool
	// Timeout bounds the installer (default 10 minutes).
	Timeout time.Duration
}

// installer runs inside the installer container: uv when the image has it,
// else pip, into the package volume. Its argument is the request as JSON.
const installer = `
import json, os, shutil, subprocess, sys
r = json.loads(sys.argv[1])
target = r["target"]
if shutil.which("uv"):
    cmd = ["uv", "pip", "install", "--python", sys.executable, "--target", target]
else:
    cmd = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--no-cache-dir", "--target", target, "--upgrade"]
if r.get("links"):
    cmd += ["--find-links", r["links"]]
if r.get("offline"):
    cmd += ["--no-index"]
elif r.get("index"):
    cmd += ["--index-url", r["index"]]
os.environ["PIP_BREAK_SYSTEM_PACKAGES"] = "1"  # --target never touches the system site-packages
sys.exit(subprocess.call(cmd + r["requirements"]))
`

// Install installs packages into the package volume of cfg.Image, creating
// the volume when needed, in a short-lived container (cfg's runtime and
// image; root inside the container with all capabilities dropped; the
// network only when the request needs an index). It returns the
// installer's output; the error says why the installation failed.
func (e *Engine) Install(ctx context.Context, cfg Config, req InstallRequest) (string, error) {
	cfg = cfg.WithDefaults()
	if len(req.Requirements) == 0 {
		return "", nil
	}
	if err := pypkg.CheckRequirements(req.Requirements); err != nil {
		return "", err
	}
	if req.Timeout <= 0 {
		req.Timeout = 10 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, req.Timeout)
	defer cancel()
	info, err := e.Info(ctx)
	if err != nil {
		return "", err
	}
	rt, err := chooseRuntime(info, string(cfg.Runtime))
	if err != nil {
		return "", err
	}
	if _, err := e.EnsureImage(ctx, cfg.Image, cfg.Pull, cfg.OnProgress); err != nil {
		return "", err
	}
	vol := PackagesVolume(cfg.Image)
	if err := e.ensurePackagesVolume(ctx, cfg.Image); err != nil {
		return "", err
	}
	args := map[string]any{"target": PackagesTarget, "requirements": req.Requirements, "index": req.IndexURL, "offline": req.Offline}
	mounts := []mount.Mount{{Type: mount.TypeVolume, Source: vol, Target: PackagesTarget}}
	if req.FindLinks != "" {
		args["links"] = linksTarget
		mounts = append(mounts, mount.Mount{Type: mount.TypeBind, Source: req.FindLinks, Target: linksTarget, ReadOnly: true})
	}
	argJSON, _ := json.Marshal(args)
	network := container.NetworkMode("none")
	if !req.Offline {
		network = "default"
	}
	pids := cfg.PidsLimit
	labels := ownerLabels()
	labels[LabelPackages] = "installer"
	created, err := e.cli.ContainerCreate(ctx, &container.Config{
		Image:           cfg.Image,
		Cmd:             []string{cfg.Python, "-c", installer, string(argJSON)},
		Env:             []string{pathEnv, "HOME=/tmp", "LANG=C.UTF-8", "PYTHONDONTWRITEBYTECODE=1"},
		User:            "0:0",
		WorkingDir:      "/tmp",
		Labels:          labels,
		NetworkDisabled: req.Offline,
	}, &container.HostConfig{
		NetworkMode:    network,
		Runtime:        rt.engine,
		ReadonlyRootfs: true,
		Tmpfs:          map[string]string{"/tmp": fmt.Sprintf("rw,nosuid,nodev,size=%d,mode=1777", 512<<20)},
		CapDrop:        []string{"ALL"},
		SecurityOpt:    []string{"no-new-privileges"},
		Mounts:         mounts,
		Resources: container.Resources{
			Memory: 1 << 30, MemorySwap: 1 << 30, NanoCPUs: int64(cfg.CPUs * 1e9), PidsLimit: &pids,
		},
	}, nil, nil, "")
	if err != nil {
		return "", fmt.Errorf("create installer container: %w", e.wrap(err))
	}
	defer e.cli.ContainerRemove(context.WithoutCancel(ctx), created.ID, container.RemoveOptions{Force: true})
	if err := e.cli.ContainerStart(ctx, created.ID, container.StartOptions{}); err != nil {
		return "", fmt.Errorf("start installer container: %w", e.wrap(err))
	}
	waitC, errC := e.cli.ContainerWait(ctx, created.ID, container.WaitConditionNotRunning)
	var code int64
	select {
	case w := <-waitC:
		code = w.StatusCode
	case err := <-errC:
		return "", fmt.Errorf("installing %s: %w", strings.Join(req.Requirements, " "), e.wrap(err))
	}
	logs, err := e.cli.ContainerLogs(context.WithoutCancel(ctx), created.ID, container.LogsOptions{ShowStdout: true, ShowStderr: true})
	var out bytes.Buffer
	if err == nil {
		_, _ = stdcopy.StdCopy(&out, &out, logs)
		logs.Close()
	}
	if code != 0 {
		return out.String(), fmt.Errorf("installing %s failed (exit %d): %s", strings.Join(req.Requirements, " "), code, lastLines(out.String(), 5))
	}
	return out.String(), nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// ensurePackagesVolume creates the image's package volume, labelled with
// the image; an existing one is kept.
func (e *Engine) ensurePackagesVolume(ctx context.Context, image string) error {
	_, err := e.cli.VolumeCreate(ctx, volume.CreateOptions{Name: PackagesVolume(image), Labels: map[string]string{LabelPackages: image}})
	if err != nil {
		return fmt.Errorf("create package volume: %w", e.wrap(err))
	}
	return nil
}
