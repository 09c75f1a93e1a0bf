package auto

import (
	"bufio"
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/monty"
)

// The probe corpus: kernel/probes/README.md says how it is made.
//
//go:embed probes/stdlib-modules.txt probes/divergence.py probes/expected.json
var probeFS embed.FS

// Capabilities is what one Monty worker release supports, learned by probing
// the worker itself rather than from a list that goes stale: which standard
// library modules it ships, and which constructs of the probe corpus it
// rejects or runs differently from CPython.
type Capabilities struct {
	Version string `json:"version"`
	// Modules maps a standard library module to whether Monty imports it.
	Modules map[string]bool `json:"modules"`
	// Divergent maps a construct (a pysrc.Features or pysrc.Uses name, or
	// a shim's) to how Monty's run of its probe differed from CPython's.
	Divergent map[string]string `json:"divergent"`
	// Shimmed lists the divergent constructs whose probe, rewritten with
	// the construct's shim, prints what CPython printed.
	Shimmed map[string]bool `json:"shimmed"`
}

// shims are the shims the worker was found to need and to accept.
func (c *Capabilities) shims() []shim {
	var out []shim
	for _, s := range shims {
		if c.Shimmed[s.Construct] {
			out = append(out, s)
		}
	}
	return out
}

// SupportsModule reports whether Monty can import module (dotted names are
// judged by their top-level package; a missing submodule is caught when the
// cell fails). Modules outside the standard library are never supported.
func (c *Capabilities) SupportsModule(module string) bool {
	if c.Modules[module] {
		return true
	}
	top, _, _ := strings.Cut(module, ".")
	return c.Modules[top]
}

var (
	capMu    sync.Mutex
	capCache = map[string]*Capabilities{} // by worker version + corpus hash
)

// MontyCapabilities probes the worker once per release and corpus, caching
// the answer in memory and in $XDG_CACHE_HOME/backyard-ls (or
// ~/.cache/backyard-ls).
func MontyCapabilities(ctx context.Context, binary string) (*Capabilities, error) {
	version, err := monty.Version(binary)
	if err != nil {
		return nil, err
	}
	key := version + "-" + corpusHash()
	capMu.Lock()
	defer capMu.Unlock()
	if c := capCache[key]; c != nil {
		return c, nil
	}
	file := capabilityFile(key)
	if data, err := os.ReadFile(file); err == nil {
		var c Capabilities
		if json.Unmarshal(data, &c) == nil && c.Version == version && len(c.Modules) > 0 && c.Shimmed != nil {
			capCache[key] = &c
			return &c, nil
		}
	}
	c, err := probeMonty(ctx, binary, version)
	if err != nil {
		return nil, err
	}
	capCache[key] = c
	if data, err := json.MarshalIndent(c, "", " "); err == nil && file != "" {
		if os.MkdirAll(filepath.Dir(file), 0o755) == nil {
			_ = os.WriteFile(file, data, 0o644)
		}
	}
	return c, nil
}

func capabilityFile(key string) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "backyard-ls", "monty-capabilities-"+key+".json")
}

func corpusHash() string {
	h := sha256.New()
	for _, name := range []string{"probes/stdlib-modules.txt", "probes/divergence.py", "probes/expected.json"} {
		data, _ := probeFS.ReadFile(name)
		h.Write(data)
	}
	return hex.EncodeToString(h.Sum(nil))[:12]
}

// probeCells splits the corpus into construct name → code.
func probeCells() (map[string]string, error) {
	src, err := probeFS.ReadFile("probes/divergence.py")
	if err != nil {
		return nil, err
	}
	parts := regexp.MustCompile(`(?m)^# %% (\S+)\n`).Split(string(src), -1)
	names := regexp.MustCompile(`(?m)^# %% (\S+)\n`).FindAllStringSubmatch(string(src), -1)
	cells := map[string]string{}
	for i, m := range names {
		cells[m[1]] = parts[i+1]
	}
	return cells, nil
}

// expectedProbes is what CPython printed for each probe.
func expectedProbes() (map[string]string, error) {
	data, err := probeFS.ReadFile("probes/expected.json")
	if err != nil {
		return nil, err
	}
	var exp struct {
		Probes map[string]string `json:"probes"`
	}
	return exp.Probes, json.Unmarshal(data, &exp)
}

func stdlibModules() []string {
	data, _ := probeFS.ReadFile("probes/stdlib-modules.txt")
	var out []string
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// probeOutput is a probe's record, formatted like the CPython side:
// stdout, then "EXC <type>: <message>" when it raised.
func probeOutput(ctx context.Context, w *monty.Worker, code string) (string, error) {
	var out strings.Builder
	o, err := w.Feed(ctx, code, monty.FeedOptions{Fresh: true, OnPrint: func(_ monty.Stream, s string) { out.WriteString(s) }})
	if err != nil {
		return "", err
	}
	if e := o.Exception; e != nil {
		if e.Type == "SyntaxError" {
			fmt.Fprintf(&out, "EXC SyntaxError\n")
		} else {
			fmt.Fprintf(&out, "EXC %s: %s\n", e.Type, e.Message)
		}
	}
	return out.String(), nil
}

func probeMonty(ctx context.Context, binary, version string) (*Capabilities, error) {
	cfg := monty.Config{Binary: binary, Limits: monty.Limits{CellTime: kernel.DefaultLimits.Timeout, MemoryBytes: kernel.DefaultLimits.MemoryBytes}}
	w, err := monty.Start(ctx, cfg)
	if err != nil {
		return nil, err
	}
	defer func() { w.Close() }()
	// A probe that kills the worker must not stop the others.
	feed := func(code string) (string, error) {
		out, err := probeOutput(ctx, w, code)
		if err != nil && ctx.Err() == nil {
			if w2, serr := monty.Start(ctx, cfg); serr == nil {
				w.Close()
				w = w2
			}
		}
		return out, err
	}
	c := &Capabilities{Version: version, Modules: map[string]bool{}, Divergent: map[string]string{}}
	for _, m := range stdlibModules() {
		out, err := feed("import " + m)
		c.Modules[m] = err == nil && out == ""
	}
	cells, err := probeCells()
	if err != nil {
		return nil, err
	}
	want, err := expectedProbes()
	if err != nil {
		return nil, err
	}
	for name, code := range cells {
		got, err := feed(code)
		switch {
		case err != nil:
			c.Divergent[name] = "the worker failed: " + err.Error()
		case got != want[name]:
			c.Divergent[name] = fmt.Sprintf("Monty printed %q, CPython %q", got, want[name])
		}
	}
	c.Shimmed = map[string]bool{}
	for _, s := range shims {
		code, ok := cells[s.Construct]
		if _, diverges := c.Divergent[s.Construct]; !ok || !diverges {
			continue
		}
		rewritten, _ := applyShims(analyze(code), []shim{s})
		got, err := feed(s.Prelude + rewritten)
		c.Shimmed[s.Construct] = err == nil && got == want[s.Construct]
	}
	return c, ctx.Err()
}
