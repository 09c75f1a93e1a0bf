package container

import (
	"fmt"
	"slices"
	"strings"
)

// Runtime is the OCI runtime a kernel container runs on.
type Runtime struct {
	// Name is what to show: "runsc", "runc", or the engine's default (e.g.
	// "crun" on Podman).
	Name string
	// engine is the value for HostConfig.Runtime; "" means the engine's
	// default.
	engine string
	// Warning is set when the kernel runs without gVisor although nobody
	// asked for that.
	Warning string
}

// RuncWarning is the warning given when gVisor is not available.
const RuncWarning = "gVisor (runsc) is not available on this container engine, so kernels run with %s: " +
	"cell code shares the host's kernel, which isolates it less; install gVisor and register runsc " +
	"(scripts/docker-setup.sh), or set the runtime to runc to silence this warning"

// chooseRuntime picks the runtime for forced ("" = best available) on an
// engine that lists runtimes.
func chooseRuntime(info EngineInfo, forced string) (Runtime, error) {
	has := func(n string) bool { return slices.Contains(info.Runtimes, n) }
	def := info.DefaultRuntime
	if def == "" {
		def = RuntimeRunc
	}
	switch forced {
	case "":
		if has(RuntimeRunsc) {
			return Runtime{Name: RuntimeRunsc, engine: RuntimeRunsc}, nil
		}
		return Runtime{Name: def, Warning: fmt.Sprintf(RuncWarning, def)}, nil
	case RuntimeRunsc, RuntimeRunc:
		if has(forced) {
			return Runtime{Name: forced, engine: forced}, nil
		}
		if forced == RuntimeRunc && def == RuntimeRunc {
			return Runtime{Name: RuntimeRunc}, nil
		}
		hint := ""
		if forced == RuntimeRunsc {
			hint = " (install gVisor and register runsc in /etc/docker/daemon.json: scripts/docker-setup.sh)"
		}
		return Runtime{}, fmt.Errorf("the container engine at %s has no %s runtime (it has %s)%s",
			info.Host, forced, strings.Join(info.Runtimes, ", "), hint)
	}
	return Runtime{}, fmt.Errorf("unknown container runtime %q (want runc, runsc or empty)", forced)
}
