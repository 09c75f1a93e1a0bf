package kernel

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/pypkg"
	"go.uber.org/zap"
)

var noModule = regexp.MustCompile(`^No module named '([^']+)'`)

// installable reports the distribution that would provide the module a
// cell failed to import, when the policy allows installing it and it was not
// tried before in this kernel.
func (k *Container) installable(r Result) (string, bool) {
	policy := k.opts.Container.AutoInstall
	if r.Status != StatusError || r.Error == nil || r.Error.EName != "ModuleNotFoundError" {
		return "", false
	}
	m := noModule.FindStringSubmatch(r.Error.EValue)
	if m == nil {
		return "", false
	}
	dist := pypkg.Distribution(m[1])
	if policy == "" || policy == InstallOff {
		r.Error.EValue += fmt.Sprintf("; the container image lacks it: set backyard.autoInstall to \"ask\" or \"on\" to install %s", dist)
		return "", false
	}
	if k.tried[dist] {
		return "", false
	}
	return dist, true
}

// installMissing installs dist (asking first under "ask"); it returns why
// nothing was installed, "" on success.
func (k *Container) installMissing(ctx context.Context, dist string, out *output) string {
	k.tried[dist] = true
	if k.opts.Container.AutoInstall == InstallAsk {
		confirm := k.opts.Container.Confirm
		if confirm == nil || !confirm(ctx, []string{dist}) {
			return fmt.Sprintf("not installed: autoInstall is \"ask\" and installing %s was declined", dist)
		}
	}
	if err := k.install(ctx, []string{dist}, out); err != nil {
		return err.Error()
	}
	return ""
}

// ensurePackages installs the declared requirements not installed yet.
func (k *Container) ensurePackages(ctx context.Context, reqs []string, out *output) error {
	var missing []string
	for _, r := range reqs {
		if !k.tried[r] {
			missing = append(missing, r)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	for _, r := range missing {
		k.tried[r] = true
	}
	switch k.opts.Container.AutoInstall {
	case InstallOn:
	case InstallAsk:
		if c := k.opts.Container.Confirm; c == nil || !c(ctx, missing) {
			return fmt.Errorf("the script block's dependencies were not installed (%s): declined", strings.Join(missing, ", "))
		}
	default:
		return fmt.Errorf("the script block's dependencies are not installed (%s): set backyard.autoInstall to \"ask\" or \"on\"", strings.Join(missing, ", "))
	}
	return k.install(ctx, missing, out)
}

func (k *Container) install(ctx context.Context, reqs []string, out *output) error {
	c := k.opts.Container
	out.write(Stderr, fmt.Sprintf("[backyard: installing %s into the container's package volume]\n", strings.Join(reqs, " ")))
	if c.OnProgress != nil {
		c.OnProgress("Installing packages", strings.Join(reqs, " "), -1, false)
		defer c.OnProgress("Installing packages", "", 100, true)
	}
	e, err := container.Shared(ctx, c.DockerHost, k.log)
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
