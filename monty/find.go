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
	Source string // "flag", "MONTY_BIN", "next to backyard-ls", "install dir", "PATH"
	Path   string
	Found  bool
}

// executable is the running backyard-ls; a variable so tests can place it.
var executable = os.Executable

// Lookup lists the places searched for the worker binary, in order: the
// explicit path (a --monty flag or setting), MONTY_BIN, the directory of the
// running executable (symlinks resolved), the project's install directory,
// then PATH. The explicit two are instructions and win; of the places
// searched, the executable's own directory comes first because that is the
// Python environment's scripts folder when backyard-ls came as a wheel, and
// the worker there is the release that wheel depends on.
func Lookup(explicit string) []Candidate {
	var out []Candidate
	add := func(source, path string) {
		if path == "" {
			return
		}
		p, ok := probe(path)
		out = append(out, Candidate{Source: source, Path: p, Found: ok})
	}
	add("flag", explicit)
	add(EnvBinary, os.Getenv(EnvBinary))
	if exe, err := executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		add("next to backyard-ls", filepath.Join(filepath.Dir(exe), "monty"))
	}
	if dir := InstallDir(); dir != "" {
		add("install dir", filepath.Join(dir, "bin", "monty"))
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
	return "", fmt.Errorf("%w: set --monty or %s, or install pydantic-monty-runtime==%s", ErrNotFound, EnvBinary, RuntimeVersion)
}

// InstallHint says how to get the pinned worker where Lookup finds it: one
// line per way, for doctor and the editors' messages.
func InstallHint() string {
	pin := "pydantic-monty-runtime==" + RuntimeVersion
	return strings.Join([]string{
		"get it, one of:",
		"  pip install backyard-ls          the server with its worker, in one environment (or: uv tool install backyard-ls)",
		"  uv tool install " + pin + "   the worker alone, on PATH",
		"  python3 -m pip install --target " + InstallDir() + " " + pin,
		"  make setup                       in a checkout of backyard-ls",
	}, "\n")
}

// probe reports whether path names an executable file, through
// exec.LookPath: it checks a path with a separator as it is, adds the
// suffixes of PATHEXT on Windows (monty.exe) and searches PATH for a bare
// name.
func probe(path string) (string, bool) {
	p, err := exec.LookPath(path)
	if err != nil {
		return path, false
	}
	st, err := os.Stat(p)
	return p, err == nil && st.Mode().IsRegular()
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
