package monty

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tree lays out the places Lookup searches, each with a worker, and puts
// the running executable in env/bin, as a wheel install does.
type tree struct{ root, env, install, path, explicit, envVar string }

func newTree(t *testing.T) tree {
	t.Helper()
	r := t.TempDir()
	tr := tree{
		root:     r,
		env:      filepath.Join(r, "env", "bin", "monty"),
		install:  filepath.Join(r, "data", "backyard-ls", "monty", "bin", "monty"),
		path:     filepath.Join(r, "path", "monty"),
		explicit: filepath.Join(r, "flag", "monty"),
		envVar:   filepath.Join(r, "var", "monty"),
	}
	for _, p := range []string{tr.env, tr.install, tr.path, tr.explicit, tr.envVar} {
		worker(t, p)
	}
	worker(t, filepath.Join(r, "env", "bin", "backyard-ls"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(r, "data"))
	t.Setenv("PATH", filepath.Dir(tr.path))
	t.Setenv(EnvBinary, "")
	setExecutable(t, filepath.Join(r, "env", "bin", "backyard-ls"))
	return tr
}

func worker(t *testing.T, p string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("#!/bin/sh\necho monty-runtime 1.4.0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func setExecutable(t *testing.T, p string) {
	t.Helper()
	old := executable
	executable = func() (string, error) { return p, nil }
	t.Cleanup(func() { executable = old })
}

func found(t *testing.T, explicit string) string {
	t.Helper()
	p, err := Find(explicit)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLookupOrder(t *testing.T) {
	tr := newTree(t)
	var sources []string
	for _, c := range Lookup(tr.explicit) {
		sources = append(sources, c.Source)
		if !c.Found {
			t.Errorf("%s %s not found", c.Source, c.Path)
		}
	}
	if got := strings.Join(sources, ", "); got != "flag, next to backyard-ls, install dir, PATH" {
		t.Errorf("sources: %s", got)
	}

	if got := found(t, tr.explicit); got != tr.explicit {
		t.Errorf("with a flag: %s", got)
	}
	t.Setenv(EnvBinary, tr.envVar)
	if got := found(t, ""); got != tr.envVar {
		t.Errorf("with MONTY_BIN: %s", got)
	}
	t.Setenv(EnvBinary, "")
	// The environment's worker comes before the install dir and PATH.
	if got := found(t, ""); got != tr.env {
		t.Errorf("searched first: %s, want the one beside backyard-ls", got)
	}
	os.Remove(tr.env)
	if got := found(t, ""); got != tr.install {
		t.Errorf("without the environment's worker: %s", got)
	}
	os.Remove(tr.install)
	if got := found(t, ""); got != tr.path {
		t.Errorf("only on PATH: %s", got)
	}
	os.Remove(tr.path)
	_, err := Find("")
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "pydantic-monty-runtime=="+RuntimeVersion) {
		t.Errorf("nothing anywhere: %v", err)
	}
}

// uv tool install and pipx link the executable from a bin directory into
// the tool's environment: the worker is beside the link's target.
func TestLookupResolvesSymlinks(t *testing.T) {
	tr := newTree(t)
	link := filepath.Join(tr.root, "local", "bin", "backyard-ls")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(tr.root, "env", "bin", "backyard-ls"), link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	setExecutable(t, link)
	if got := found(t, ""); got != tr.env {
		t.Errorf("through a symlink: %s, want %s", got, tr.env)
	}
}

func TestExplicitPathIsNotSkipped(t *testing.T) {
	tr := newTree(t)
	for _, tc := range []struct{ flag, env, source string }{
		{filepath.Join(tr.root, "typo"), "", "flag"},
		{"", filepath.Join(tr.root, "typo"), EnvBinary},
		{tr.root, "", "flag"}, // a directory
	} {
		t.Setenv(EnvBinary, tc.env)
		_, err := Find(tc.flag)
		if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), tc.source) {
			t.Errorf("%+v: %v", tc, err)
		}
	}
	notExec := filepath.Join(tr.root, "plain")
	if err := os.WriteFile(notExec, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvBinary, "")
	if _, err := Find(notExec); !errors.Is(err, ErrNotFound) {
		t.Errorf("a file without the executable bit: %v", err)
	}
}

func TestInstallHintNamesThePin(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/data")
	h := InstallHint()
	for _, want := range []string{"pip install backyard-ls", "pydantic-monty-runtime==" + RuntimeVersion, filepath.Join("/data", "backyard-ls", "monty"), "make setup"} {
		if !strings.Contains(h, want) {
			t.Errorf("hint lacks %q:\n%s", want, h)
		}
	}
}
