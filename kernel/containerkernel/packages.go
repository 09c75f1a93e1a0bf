package containerkernel

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/internal/kcore"
	"github.com/backyard-ls/backyard-ls/pypkg"
	"github.com/backyard-ls/backyard-ls/pysrc/ipysyntax"
	"go.uber.org/zap"
)

var noModule = regexp.MustCompile(`^No module named '([^']+)'`)

// installable reports the distribution that would provide the module a
// cell failed to import, when the policy allows installing it and it was not
// tried before in this kernel. When the policy is off, r gets a note that
// says how to turn installs on (the exception stays CPython's).
func (k *Kernel) installable(r *kernel.Result) (string, bool) {
	policy := k.opts.Install.AutoInstall
	if r.Status != kernel.StatusError || r.Error == nil || r.Error.EName != "ModuleNotFoundError" {
		return "", false
	}
	m := noModule.FindStringSubmatch(r.Error.EValue)
	if m == nil {
		return "", false
	}
	dist := pypkg.Distribution(m[1])
	if pypkg.CheckRequirement(dist) != nil {
		return "", false // not an import of a package: the cell raised it itself
	}
	if policy != contract.InstallAsk && policy != contract.InstallOn {
		r.Notes = append(r.Notes, fmt.Sprintf("the container image lacks %s: set backyard.autoInstall to \"ask\" or \"on\" to install %s", m[1], dist))
		return "", false
	}
	k.triedMu.Lock()
	defer k.triedMu.Unlock()
	if k.tried[dist] {
		return "", false
	}
	return dist, true
}

// installMissing installs dist (asking first under "ask"); it returns why
// nothing was installed, "" on success.
func (k *Kernel) installMissing(ctx context.Context, dist string, out *kcore.Output) string {
	k.triedMu.Lock()
	k.tried[dist] = true
	k.triedMu.Unlock()
	if k.opts.Install.AutoInstall == contract.InstallAsk {
		confirm := k.opts.Confirm
		if confirm == nil || !confirm(ctx, []string{dist}) {
			return fmt.Sprintf("not installed: autoInstall is \"ask\" and installing %s was declined", dist)
		}
	}
	if err := k.install(ctx, []string{dist}, out); err != nil {
		return err.Error()
	}
	return ""
}

// ensurePackages installs the requirements not installed yet under the
// install policy; what names them in errors (the script block's
// dependencies, %pip install's packages).
func (k *Kernel) ensurePackages(ctx context.Context, reqs []string, out *kcore.Output, what string) error {
	var missing []string
	k.triedMu.Lock()
	for _, r := range reqs {
		if !k.tried[r] {
			missing = append(missing, r)
			k.tried[r] = true
		}
	}
	k.triedMu.Unlock()
	if len(missing) == 0 {
		return nil
	}
	if err := pypkg.CheckRequirements(missing); err != nil {
		return fmt.Errorf("%s were not installed: %w", what, err)
	}
	switch k.opts.Install.AutoInstall {
	case contract.InstallOn:
	case contract.InstallAsk:
		if c := k.opts.Confirm; c == nil || !c(ctx, missing) {
			return fmt.Errorf("%s were not installed (%s): declined", what, strings.Join(missing, ", "))
		}
	default:
		return fmt.Errorf("%s are not installed (%s): set backyard.autoInstall to \"ask\" or \"on\"", what, strings.Join(missing, ", "))
	}
	return k.install(ctx, missing, out)
}

func (k *Kernel) install(ctx context.Context, reqs []string, out *kcore.Output) error {
	c := k.opts.Install
	out.Write(kernel.Stderr, fmt.Sprintf("[backyard: installing %s into the container's package volume]\n", strings.Join(reqs, " ")))
	if p := k.opts.OnProgress; p != nil {
		p("Installing packages", strings.Join(reqs, " "), -1, false)
		defer p("Installing packages", "", 100, true)
	}
	e, err := container.Shared(ctx, k.opts.DockerHost, k.log)
	if err != nil {
		return err
	}
	req := container.InstallRequest{Requirements: reqs, IndexURL: c.IndexURL, FindLinks: c.FindLinks, Offline: c.FindLinks != "" && c.IndexURL == ""}
	log, err := e.Install(ctx, k.config(), req)
	k.log.Info("package install", zap.Strings("packages", reqs), zap.Error(err), zap.String("output", lastLine(log)))
	return err
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// Install implements kernel.Installer: the packages go into the image's
// package volume through the installer container (whatever the install
// policy: the caller decided), and the running kernel, if any, sees them
// at its next import.
func (k *Kernel) Install(ctx context.Context, packages []string) error {
	ctx, cancel := k.Bound(ctx)
	defer cancel()
	if err := k.Acquire(ctx); err != nil {
		return err
	}
	defer k.Q.Release()
	out := kcore.NewOutput(k.limits.MaxOutputBytes, kernel.Request{})
	if err := k.install(ctx, packages, out); err != nil {
		return err
	}
	k.triedMu.Lock()
	for _, p := range packages {
		k.tried[p] = true
	}
	k.triedMu.Unlock()
	if k.s != nil && k.s.Alive() {
		k.s.Exec(k.Life(), container.ExecRequest{Code: invalidateCaches, Silent: true}, nil)
	}
	return nil
}

// invalidateCaches makes a running interpreter see packages installed
// after it started.
const invalidateCaches = "__import__('importlib').invalidate_caches()"

// pipInstall runs a cell's %pip install line when the cell reaches it, as
// IPython does, but through the install policy and the host's installer,
// never pip inside the sandbox. What it has to say (the install, or why
// nothing was installed) is returned for the cell to print to stderr at
// that line.
func (k *Kernel) pipInstall(ctx context.Context, line string, maxOutput int) string {
	pkgs := ipysyntax.Transform("%pip " + line).PipInstalls()
	if len(pkgs) == 0 {
		return ""
	}
	out := kcore.NewOutput(maxOutput, kernel.Request{})
	if err := k.ensurePackages(ctx, pkgs, out, "%pip install's packages"); err != nil {
		out.Write(kernel.Stderr, "[backyard: "+err.Error()+"]\n")
	}
	out.End()
	return out.Stderr()
}
