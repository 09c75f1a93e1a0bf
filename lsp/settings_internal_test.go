package lsp

import (
	"strings"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/kernel"
)

func TestParseSettings(t *testing.T) {
	nested := `{"backyard": {"backend": "monty", "timeout": 2.5, "memory": 64, "recursionLimit": 200, "maxOutputBytes": 4096,
		"container": {"image": "python:3.13-slim", "network": "none", "mountWorkspace": false}, "trace": {"server": "off"}}}`
	s, warns := parseSettings([]byte(nested), Settings{})
	if len(warns) != 0 {
		t.Fatalf("warnings: %v", warns)
	}
	if s.Backend != "monty" || s.Timeout != 2500*time.Millisecond || s.MemoryBytes != 64<<20 || s.RecursionLimit != 200 || s.MaxOutputBytes != 4096 {
		t.Errorf("nested: %+v", s)
	}
	if s.Container.Image != "python:3.13-slim" || s.Container.Network == nil || *s.Container.Network || s.Container.MountWorkspace == nil || *s.Container.MountWorkspace {
		t.Errorf("container: %+v", s.Container)
	}
	cfg := kernelConfig(kernel.Config{}, s, "")
	if cfg.Container.Image != "python:3.13-slim" || cfg.Container.Network || cfg.Container.WorkspaceMount {
		t.Errorf("container config: %+v", cfg.Container)
	}
	if _, warns := parseSettings([]byte(`{"container": {"runtime": "kata", "network": "host"}}`), Settings{}); len(warns) != 2 {
		t.Errorf("bad container settings: %v", warns)
	}

	flat, warns := parseSettings([]byte(`{"backend": "container", "container.image": "img", "backyard.timeout": 3}`), Settings{})
	if len(warns) != 0 || flat.Backend != "container" || flat.Container.Image != "img" || flat.Timeout != 3*time.Second {
		t.Errorf("flat: %+v %v", flat, warns)
	}

	// Invalid values are reported by key and keep the previous value.
	prev := Settings{Backend: "monty", Timeout: time.Second}
	got, warns := parseSettings([]byte(`{"backend": "docker", "timeout": "abc", "memory": -1, "recursionLimit": 1.5, "montyPath": "/no/such/monty", "unknown": 1}`), prev)
	if got.Backend != "monty" || got.Timeout != time.Second || got.MemoryBytes != 0 || got.RecursionLimit != 0 || got.MontyPath != "" {
		t.Errorf("invalid values were applied: %+v", got)
	}
	var keys []string
	for _, w := range warns {
		keys = append(keys, w.key)
		if !strings.Contains(w.String(), "backyard."+w.key) || w.reason == "" {
			t.Errorf("warning does not name the key and reason: %q", w)
		}
	}
	if strings.Join(keys, ",") != "backend,memory,montyPath,recursionLimit,timeout" {
		t.Errorf("warned keys = %v", keys)
	}

	// null resets to the server default; not-an-object is a warning.
	reset, _ := parseSettings([]byte(`{"backend": null}`), prev)
	if reset.Backend != "" || reset.Timeout != time.Second {
		t.Errorf("reset: %+v", reset)
	}
	if _, warns := parseSettings([]byte(`[1]`), prev); len(warns) != 1 {
		t.Errorf("an array gave warnings %v", warns)
	}
	if s, warns := parseSettings([]byte(`null`), prev); len(warns) != 0 || s != prev {
		t.Errorf("null settings: %+v %v", s, warns)
	}
}

func TestKernelConfig(t *testing.T) {
	base := kernel.Config{Backend: "auto", MontyBinary: "/flag/monty", Limits: kernel.Limits{Timeout: 30 * time.Second}}
	cfg := kernelConfig(base, Settings{Timeout: time.Second, MemoryBytes: 1 << 20}, "")
	if cfg.Backend != "auto" || cfg.Limits.Timeout != time.Second || cfg.Limits.MemoryBytes != 1<<20 || cfg.MontyBinary != "/flag/monty" {
		t.Errorf("settings over flags: %+v", cfg)
	}
	if cfg.Limits.MaxOutputBytes != kernel.DefaultLimits.MaxOutputBytes {
		t.Errorf("defaults not filled: %+v", cfg.Limits)
	}
	if cfg := kernelConfig(base, Settings{Backend: "monty"}, "container"); cfg.Backend != "container" {
		t.Errorf("setBackend does not win over settings: %s", cfg.Backend)
	}
}

func TestPackageSettings(t *testing.T) {
	dir := t.TempDir()
	s, warns := parseSettings([]byte(`{"autoInstall": "ask", "indexUrl": "https://pypi.example/simple", "findLinks": "`+dir+`", "prewarm": false}`), Settings{})
	if len(warns) != 0 || s.Container.AutoInstall != "ask" || s.Container.IndexURL == "" || s.Container.FindLinks != dir || !s.NoPrewarm {
		t.Fatalf("%+v %v", s, warns)
	}
	cfg := kernelConfig(kernel.Config{}, s, "")
	if cfg.Container.AutoInstall != "ask" || cfg.Container.FindLinks != dir || cfg.Container.IndexURL != "https://pypi.example/simple" {
		t.Fatalf("%+v", cfg.Container)
	}
	// Booleans are on and off.
	if s, warns := parseSettings([]byte(`{"autoInstall": true}`), Settings{}); len(warns) != 0 || s.Container.AutoInstall != "on" {
		t.Fatalf("%+v %v", s.Container, warns)
	}
	_, warns = parseSettings([]byte(`{"autoInstall": "always", "indexUrl": "not a url", "findLinks": "/no/such/dir", "prewarm": "yes"}`), Settings{})
	if len(warns) != 4 {
		t.Fatalf("%v", warns)
	}
}
