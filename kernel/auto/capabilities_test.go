package auto

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/monty"
)

func capabilities(t *testing.T) *Capabilities {
	t.Helper()
	bin, err := monty.Find("")
	if err != nil {
		t.Fatal(err)
	}
	c, err := MontyCapabilities(context.Background(), bin)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// Facts of the pinned worker (1.4.0) that the router relies on.
func TestCapabilitiesOfPinnedWorker(t *testing.T) {
	c := capabilities(t)
	for _, m := range []string{"json", "re", "math", "collections", "dataclasses", "datetime"} {
		if !c.SupportsModule(m) {
			t.Errorf("%s should be importable", m)
		}
	}
	for _, m := range []string{"socket", "subprocess", "sqlite3", "numpy", "pandas", "urllib"} {
		if c.SupportsModule(m) {
			t.Errorf("%s should not be importable", m)
		}
	}
	for _, d := range []string{"class-inheritance", "yield", "dunder:__bool__", "dunder:__lt__", "set", "generator-expression", "is-literal", "annotations"} {
		if _, ok := c.Divergent[d]; !ok {
			t.Errorf("%s should diverge on Monty %s", d, c.Version)
		}
	}
	for _, same := range []string{"dunder:__add__", "dunder:__repr__", "percent-format", "global"} {
		if why, ok := c.Divergent[same]; ok {
			t.Errorf("%s should match CPython: %s", same, why)
		}
	}
}

// Every probe's construct must be recognised in its own code, or routing by
// construct could never move it.
func TestEveryProbeIsDetected(t *testing.T) {
	cells, err := probeCells()
	if err != nil {
		t.Fatal(err)
	}
	for name, code := range cells {
		found := constructs(analyze(code))
		if !slices.Contains(found, name) {
			t.Errorf("probe %s: constructs found %v", name, found)
		}
	}
}

// The expected outputs are what the reference CPython prints today.
func TestExpectedProbesAreCurrent(t *testing.T) {
	py, err := exec.LookPath("/usr/bin/python3")
	if err != nil {
		t.Fatal("the reference CPython (/usr/bin/python3) is missing")
	}
	out, err := exec.Command(py, "-c", "import sys; print(sys.version.split()[0])").Output()
	if err != nil {
		t.Fatal(err)
	}
	data, _ := probeFS.ReadFile("probes/expected.json")
	if !strings.Contains(string(data), `"python": "`+strings.TrimSpace(string(out))+`"`) {
		t.Fatalf("probes/expected.json was made with another CPython than %s: run scripts/gen-probe-expected.py", out)
	}
}
