package container

import (
	"context"
	"fmt"
	"strings"
)

// Report is what Probe found out about the container backend, for
// `backyard-ls doctor`.
type Report struct {
	Host      string // engine address tried
	Reachable bool
	Err       error // why the engine or the image check failed
	Engine    EngineInfo
	// Runtime is what a kernel would run on and Warning why it is not
	// gVisor; RuntimeErr when the configured runtime is not available.
	Runtime    string
	Warning    string
	RuntimeErr error
	Image      string
	ImageID    string // "" when the engine does not have the image
}

// Probe checks the container backend as cfg would use it: can the engine be
// reached, which version and runtimes it has, which runtime a kernel would
// get, and whether the image is there. It pulls and starts nothing.
func Probe(ctx context.Context, cfg Config) Report {
	cfg = cfg.WithDefaults()
	r := Report{Host: cfg.DockerHost, Image: cfg.Image}
	e, err := Connect(ctx, cfg.DockerHost, cfg.Logger)
	if err != nil {
		if u, ok := err.(*UnreachableError); ok {
			r.Host = u.Host
		}
		r.Err = err
		return r
	}
	defer e.Close()
	r.Host, r.Reachable = e.Host(), true
	if r.Engine, err = e.Info(ctx); err != nil {
		r.Err = err
		return r
	}
	rt, err := chooseRuntime(r.Engine, string(cfg.Runtime))
	r.Runtime, r.Warning, r.RuntimeErr = rt.Name, rt.Warning, err
	id, _, err := e.ImageID(ctx, cfg.Image)
	r.ImageID, r.Err = id, err
	return r
}

// OK reports whether a container kernel can start without pulling.
func (r Report) OK() bool {
	return r.Reachable && r.Err == nil && r.RuntimeErr == nil && r.ImageID != ""
}

// String is a few "name: value" lines for a person.
func (r Report) String() string {
	var b strings.Builder
	line := func(k, format string, a ...any) {
		fmt.Fprintf(&b, "%-16s"+format+"\n", append([]any{k + ":"}, a...)...)
	}
	line("engine", "%s", r.Host)
	if !r.Reachable {
		line("status", "unreachable: %v", r.Err)
		return b.String()
	}
	line("version", "%s %s (API %s, client API %s, %s)", r.Engine.Name, r.Engine.Version, r.Engine.APIVersion, r.Engine.ClientAPI, r.Engine.OS)
	line("runtimes", "%s (default %s)", strings.Join(r.Engine.Runtimes, ", "), r.Engine.DefaultRuntime)
	switch {
	case r.RuntimeErr != nil:
		line("kernel runtime", "error: %v", r.RuntimeErr)
	case r.Warning != "":
		line("kernel runtime", "%s (warning: %s)", r.Runtime, r.Warning)
	default:
		line("kernel runtime", "%s", r.Runtime)
	}
	switch {
	case r.ImageID != "":
		line("image", "%s (%s)", r.Image, shortID(strings.TrimPrefix(r.ImageID, "sha256:")))
	case r.Err != nil:
		line("image", "%s: %v", r.Image, r.Err)
	default:
		line("image", "%s: missing (pulled on first use)", r.Image)
	}
	return b.String()
}
