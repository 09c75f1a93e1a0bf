package lsp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/monty"
)

// Settings are the backyard.* settings a client sends in initializationOptions
// and workspace/didChangeConfiguration. Zero fields keep the server's
// defaults (its command-line flags). New settings apply to kernels created
// afterwards: a document's running kernel keeps the settings it started with
// until it is restarted with setBackend or its document is reopened.
type Settings struct {
	Backend        string        // "auto", "monty" or "container"
	Timeout        time.Duration // per cell (setting: seconds)
	MemoryBytes    uint64        // per kernel (setting: MiB)
	RecursionLimit int
	MontyPath      string // the Monty worker executable
	MaxOutputBytes int    // per stream and execution
	// NoPrewarm turns off starting the container early for a document
	// that will need it (setting backyard.prewarm, default true).
	NoPrewarm bool
	Container ContainerSettings
}

// ContainerSettings are the backyard.container.* settings.
type ContainerSettings struct {
	Image          string
	Runtime        string // "runc" or "runsc"; "" picks runsc when the engine has it
	Network        *bool  // true/"bridge": the kernel has a network; false/"none" (default): none
	MountWorkspace *bool  // mount the workspace read-only at /workspace
	AutoInstall    string // backyard.autoInstall: "off", "ask" or "on"
	IndexURL       string // backyard.indexUrl
	FindLinks      string // backyard.findLinks: a directory of wheels
}

// settingsWarning is one ignored setting: its key (without "backyard.")
// and why.
type settingsWarning struct{ key, reason string }

func (w settingsWarning) String() string {
	return fmt.Sprintf("ignoring setting backyard.%s: %s", w.key, w.reason)
}

// parseSettings reads a settings object, either nested under "backyard"
// ({"backyard": {"backend": "monty"}}) or flat ({"backend": "monty"}); nested
// objects and dotted keys are equivalent ("container": {"image": …} is
// "container.image"). It starts from prev and replaces what the object sets;
// an invalid value keeps the previous one and yields a warning. Unknown keys
// are ignored (clients send whole sections, e.g. backyard.trace.server).
func parseSettings(raw []byte, prev Settings) (Settings, []settingsWarning) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return prev, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var top any
	if err := dec.Decode(&top); err != nil {
		return prev, []settingsWarning{{"*", "settings are not valid JSON: " + err.Error()}}
	}
	obj, ok := top.(map[string]any)
	if !ok {
		return prev, []settingsWarning{{"*", fmt.Sprintf("settings must be a JSON object, got %s", describe(top))}}
	}
	if nested, ok := obj["backyard"]; ok {
		if n, ok := nested.(map[string]any); ok {
			obj = n
		} else if nested != nil {
			return prev, []settingsWarning{{"*", fmt.Sprintf("\"backyard\" must be an object, got %s", describe(nested))}}
		}
	}
	flat := map[string]any{}
	flatten("", obj, flat)

	s := prev
	var warns []settingsWarning
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, key := range keys {
		if reason := s.set(key, flat[key]); reason != "" {
			warns = append(warns, settingsWarning{key, reason})
		}
	}
	return s, warns
}

func flatten(prefix string, obj map[string]any, out map[string]any) {
	for k, v := range obj {
		k = strings.TrimPrefix(prefix+k, "backyard.")
		if m, ok := v.(map[string]any); ok {
			flatten(k+".", m, out)
			continue
		}
		out[k] = v
	}
}

// set applies one key; it returns why the value was rejected, or "". A
// null value resets the key to the server default.
func (s *Settings) set(key string, v any) string {
	var d Settings
	switch key {
	case "backend":
		if v == nil {
			s.Backend = d.Backend
			return ""
		}
		b, ok := v.(string)
		if !ok || !validBackend(b) {
			return fmt.Sprintf("must be \"auto\", \"monty\" or \"container\", got %s", describe(v))
		}
		s.Backend = b
	case "timeout":
		if v == nil {
			s.Timeout = d.Timeout
			return ""
		}
		f, ok := number(v)
		if !ok || f <= 0 || f > 24*3600 {
			return fmt.Sprintf("must be a number of seconds between 0 and 86400, got %s", describe(v))
		}
		s.Timeout = time.Duration(f * float64(time.Second))
	case "memory":
		if v == nil {
			s.MemoryBytes = d.MemoryBytes
			return ""
		}
		n, ok := integer(v)
		if !ok || n <= 0 || n > 1<<20 {
			return fmt.Sprintf("must be a whole number of MiB between 1 and 1048576, got %s", describe(v))
		}
		s.MemoryBytes = uint64(n) << 20
	case "recursionLimit":
		if v == nil {
			s.RecursionLimit = d.RecursionLimit
			return ""
		}
		n, ok := integer(v)
		if !ok || n <= 0 || n > 1<<30 {
			return fmt.Sprintf("must be a whole number between 1 and 1073741824, got %s", describe(v))
		}
		s.RecursionLimit = int(n)
	case "maxOutputBytes":
		if v == nil {
			s.MaxOutputBytes = d.MaxOutputBytes
			return ""
		}
		n, ok := integer(v)
		if !ok || n <= 0 || n > 1<<30 {
			return fmt.Sprintf("must be a whole number of bytes between 1 and 1073741824, got %s", describe(v))
		}
		s.MaxOutputBytes = int(n)
	case "montyPath":
		p, ok := v.(string)
		if v != nil && !ok {
			return fmt.Sprintf("must be a path, got %s", describe(v))
		}
		if p != "" {
			if _, err := monty.Find(p); err != nil {
				return fmt.Sprintf("%q is not an executable file", p)
			}
		}
		s.MontyPath = p
	case "container.image":
		str, ok := v.(string)
		if v != nil && !ok {
			return fmt.Sprintf("must be an image name, got %s", describe(v))
		}
		s.Container.Image = str
	case "container.runtime":
		str, ok := v.(string)
		if v != nil && (!ok || str != "" && str != "runc" && str != "runsc") {
			return fmt.Sprintf("must be \"runc\", \"runsc\" or \"\" (pick), got %s", describe(v))
		}
		s.Container.Runtime = str
	case "container.network":
		var on *bool
		switch v := v.(type) {
		case nil:
		case bool:
			on = &v
		case string:
			if v != "none" && v != "bridge" {
				return fmt.Sprintf("must be true, false, \"none\" or \"bridge\", got %s", describe(v))
			}
			b := v == "bridge"
			on = &b
		default:
			return fmt.Sprintf("must be true, false, \"none\" or \"bridge\", got %s", describe(v))
		}
		s.Container.Network = on
	case "container.mountWorkspace":
		var p *bool
		if v != nil {
			b, ok := v.(bool)
			if !ok {
				return fmt.Sprintf("must be true or false, got %s", describe(v))
			}
			p = &b
		}
		s.Container.MountWorkspace = p
	case "autoInstall", "container.autoInstall":
		// Booleans are accepted as on/off.
		switch v := v.(type) {
		case nil:
			s.Container.AutoInstall = ""
		case bool:
			s.Container.AutoInstall = map[bool]string{true: kernel.InstallOn, false: kernel.InstallOff}[v]
		case string:
			if v != kernel.InstallOff && v != kernel.InstallAsk && v != kernel.InstallOn {
				return fmt.Sprintf("must be \"off\", \"ask\" or \"on\", got %s", describe(v))
			}
			s.Container.AutoInstall = v
		default:
			return fmt.Sprintf("must be \"off\", \"ask\" or \"on\", got %s", describe(v))
		}
	case "indexUrl", "container.indexUrl":
		str, ok := v.(string)
		if v != nil && (!ok || str != "" && !strings.Contains(str, "://")) {
			return fmt.Sprintf("must be a URL, got %s", describe(v))
		}
		s.Container.IndexURL = str
	case "findLinks", "container.findLinks":
		str, ok := v.(string)
		if v != nil && !ok {
			return fmt.Sprintf("must be a directory, got %s", describe(v))
		}
		if str != "" {
			if st, err := os.Stat(str); err != nil || !st.IsDir() {
				return fmt.Sprintf("%q is not a directory", str)
			}
		}
		s.Container.FindLinks = str
	case "prewarm":
		b, ok := v.(bool)
		if v != nil && !ok {
			return fmt.Sprintf("must be true or false, got %s", describe(v))
		}
		if v == nil {
			b = true
		}
		s.NoPrewarm = !b
	}
	return ""
}

func validBackend(b string) bool {
	return b == kernel.BackendAuto || b == kernel.BackendMonty || b == kernel.BackendContainer
}

func number(v any) (float64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	return f, err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

func integer(v any) (int64, bool) {
	f, ok := number(v)
	if !ok || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return 0, false
	}
	return int64(f), true
}

// describe names a decoded JSON value for a message: `"abc"`, 12, true, an object.
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		return fmt.Sprintf("%q", v)
	case json.Number:
		return v.String()
	case bool:
		return fmt.Sprint(v)
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%v", v)
}

// kernelConfig returns the configuration of a new kernel: the server's
// defaults (flags), overridden by the settings, then by the document's
// backend choice (setBackend) when it has one.
func kernelConfig(base kernel.Config, s Settings, backend string) kernel.Config {
	cfg := base
	if s.Backend != "" {
		cfg.Backend = s.Backend
	}
	if backend != "" {
		cfg.Backend = backend
	}
	if cfg.Backend == "" {
		cfg.Backend = kernel.BackendAuto
	}
	if s.Timeout > 0 {
		cfg.Limits.Timeout = s.Timeout
	}
	if s.MemoryBytes > 0 {
		cfg.Limits.MemoryBytes = s.MemoryBytes
	}
	if s.RecursionLimit > 0 {
		cfg.Limits.RecursionDepth = s.RecursionLimit
	}
	if s.MaxOutputBytes > 0 {
		cfg.Limits.MaxOutputBytes = s.MaxOutputBytes
	}
	if s.MontyPath != "" {
		cfg.MontyBinary = s.MontyPath
	}
	applyContainerSettings(&cfg.Container, s.Container)
	cfg.Limits = cfg.Limits.WithDefaults()
	return cfg
}

// applyContainerSettings copies the backyard.container.* settings and the
// package-install ones into the kernel's container configuration.
func applyContainerSettings(cfg *kernel.ContainerConfig, s ContainerSettings) {
	if s.AutoInstall != "" {
		cfg.AutoInstall = s.AutoInstall
	}
	if s.IndexURL != "" {
		cfg.IndexURL = s.IndexURL
	}
	if s.FindLinks != "" {
		cfg.FindLinks = s.FindLinks
	}
	if s.Image != "" {
		cfg.Image = s.Image
	}
	if s.Runtime != "" {
		cfg.Runtime = s.Runtime
	}
	if s.Network != nil {
		cfg.Network = *s.Network
	}
	if s.MountWorkspace != nil {
		cfg.WorkspaceMount = *s.MountWorkspace
	}
}
