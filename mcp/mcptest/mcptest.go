// Package mcptest has helpers for tests of the MCP server: the built
// server binary and a Python with the pinned MCP client.
package mcptest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// root is the repository's root directory.
func root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// Binary builds the server once per test process (into the directory
// Cleanup removes) and returns its path.
func Binary(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "backyard-ls-mcptest-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "backyard-ls")
		out, err := exec.Command("go", "build", "-o", binPath, filepath.Join(root(), "cmd", "backyard-ls")).CombinedOutput()
		if err != nil {
			binErr = &exec.Error{Name: "go build: " + string(out), Err: err}
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// Cleanup removes the binary Binary built; call it from TestMain.
func Cleanup() {
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
}

// Requirements is the pinned requirements file of the Python side.
func Requirements() string { return filepath.Join(root(), "mcp", "testdata", "requirements.txt") }

// VenvDir is where the Python side's virtual environment is kept between
// runs (an ignored directory of the checkout; CI can cache it).
func VenvDir() string { return filepath.Join(root(), ".cache", "mcp-client") }

var pyMu sync.Mutex

// Python returns the venv's python (see EnsurePython); the test fails
// without it.
func Python(t testing.TB) string {
	t.Helper()
	py, err := EnsurePython()
	if err != nil {
		t.Fatal(err)
	}
	return py
}

// EnsurePython returns the venv's python, creating the venv (python3 -m
// venv, pip install -r Requirements()) when it is missing or was made from
// other requirements.
func EnsurePython() (string, error) {
	pyMu.Lock()
	defer pyMu.Unlock()
	req, err := os.ReadFile(Requirements())
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(req)
	want := hex.EncodeToString(sum[:])
	dir := VenvDir()
	py := filepath.Join(dir, "bin", "python")
	stamp := filepath.Join(dir, ".requirements-sha256")
	if got, _ := os.ReadFile(stamp); strings.TrimSpace(string(got)) == want {
		if _, err := os.Stat(py); err == nil {
			return py, nil
		}
	}
	os.RemoveAll(dir)
	base, err := basePython()
	if err != nil {
		return "", err
	}
	for _, argv := range [][]string{
		{base, "-m", "venv", dir},
		{py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", Requirements()},
	} {
		if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
			return "", fmt.Errorf("%v: %v\n%s", argv, err, out)
		}
	}
	if err := os.WriteFile(stamp, []byte(want+"\n"), 0o644); err != nil {
		return "", err
	}
	return py, nil
}

// basePython is a python3 of at least 3.10 (the MCP client needs it).
func basePython() (string, error) {
	for _, name := range []string{"python3", "python3.13", "python3.12", "python3.11", "python3.10"} {
		p, err := exec.LookPath(name)
		if err != nil {
			continue
		}
		if exec.Command(p, "-c", "import sys; sys.exit(sys.version_info < (3, 10))").Run() == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no python3 >= 3.10 on PATH for the MCP client")
}
