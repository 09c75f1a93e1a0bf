package monty

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// EnvBinary names the environment variable that points at the worker binary.
const EnvBinary = "MONTY_BIN"

// ErrNotFound is returned when no worker binary can be found.
var ErrNotFound = errors.New("monty worker binary not found")

// InstallDir is where `make setup` (the README's setup step) installs the
// pinned worker: $XDG_DATA_HOME/backyard-ls/monty, or
// ~/.local/share/backyard-ls/monty. The binary is in its bin directory.
func InstallDir() string {
	base := os.Getenv("XDG_DATA_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		base = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(base, "backyard-ls", "monty")
}

// Candidate is one place the worker binary was looked for.
type Candidate struct {
	Source string // "flag", "MONTY_BIN", "install dir", "next to backyard-ls", "PATH"
	Path   string
	Found  bool
}

// Lookup lists the places searched for the worker binary, in order: the
// explicit path (a --monty flag or setting), MONTY_BIN, the project's install
// directory, the directory of the running executable, then PATH.
func Lookup(explicit string) []Candidate {
	var out []Candidate
	add := func(source, path string) {
		if path == "" {
			return
		}
		out = append(out, Candidate{Source: source, Path: path, Found: isExecutable(path)})
	}
	add("flag", explicit)
	add(EnvBinary, os.Getenv(EnvBinary))
	if dir := InstallDir(); dir != "" {
		add("install dir", filepath.Join(dir, "bin", "monty"))
	}
	if exe, err := os.Executable(); err == nil {
		add("next to backyard-ls", filepath.Join(filepath.Dir(exe), "monty"))
	}
	if p, err := exec.LookPath("monty"); err == nil {
		add("PATH", p)
	} else {
		out = append(out, Candidate{Source: "PATH", Path: "monty"})
	}
	return out
}

// Find returns the first worker binary found by Lookup. An explicit path or
// MONTY_BIN that does not exist is an error rather than silently skipped, so
// a typo in a setting is reported.
func Find(explicit string) (string, error) {
	for _, c := range Lookup(explicit) {
		if c.Found {
			return c.Path, nil
		}
		if c.Source == "flag" || c.Source == EnvBinary {
			return "", fmt.Errorf("%w: %s %q is not an executable file", ErrNotFound, c.Source, c.Path)
		}
	}
	return "", fmt.Errorf("%w: set --monty or %s, or install pydantic-monty-runtime==%s (make setup)", ErrNotFound, EnvBinary, RuntimeVersion)
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

var versions sync.Map // binary path → version string

// Version runs `monty --version` once per binary and returns the release,
// e.g. "1.4.0".
func Version(binary string) (string, error) {
	if v, ok := versions.Load(binary); ok {
		return v.(string), nil
	}
	out, err := exec.Command(binary, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("monty --version: %w", err)
	}
	// "monty-runtime 1.4.0"
	fields := strings.Fields(string(out))
	if len(fields) == 0 {
		return "", fmt.Errorf("monty --version printed nothing")
	}
	v := fields[len(fields)-1]
	versions.Store(binary, v)
	return v, nil
}
