// Package containertest holds helpers for tests that need the container
// backend: the local test image and a local package index.
package containertest

import (
	"archive/zip"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// RunThen is a test binary's run followed by cleanup, for
// goleak.VerifyTestMain: TestMain passes RunThen(m, container.CloseShared)
// so that the shared engine clients' idle connections are closed before
// goroutines are counted.
func RunThen(m *testing.M, cleanup func()) interface{ Run() int } {
	return runThen{m, cleanup}
}

type runThen struct {
	m       *testing.M
	cleanup func()
}

func (r runThen) Run() int {
	code := r.m.Run()
	r.cleanup()
	return code
}

// Image is the locally built test image (scripts/build-test-image.sh);
// $BACKYARD_TEST_IMAGE overrides it. Tests never pull.
func Image() string {
	if img := os.Getenv("BACKYARD_TEST_IMAGE"); img != "" {
		return img
	}
	return "backyard-python:test"
}

// WheelDir writes a pure-Python wheel of module name (version 1.0,
// exporting ANSWER = 42) into a new directory, to serve as a local package
// index (pip --find-links).
func WheelDir(t testing.TB, name string) string {
	t.Helper()
	dir := t.TempDir()
	dist := name + "-1.0.dist-info"
	f, err := os.Create(filepath.Join(dir, name+"-1.0-py3-none-any.whl"))
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	files := [][2]string{
		{name + "/__init__.py", "ANSWER = 42\n"},
		{dist + "/METADATA", "Metadata-Version: 2.1\nName: " + strings.ReplaceAll(name, "_", "-") + "\nVersion: 1.0\n"},
		{dist + "/WHEEL", "Wheel-Version: 1.0\nGenerator: backyard-ls-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"},
	}
	var record strings.Builder
	for _, file := range files {
		w, err := z.Create(file[0])
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(file[1]))
		record.WriteString(file[0] + ",,\n")
	}
	record.WriteString(dist + "/RECORD,,\n")
	w, _ := z.Create(dist + "/RECORD")
	w.Write([]byte(record.String()))
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	// The installer container reads it as another user.
	os.Chmod(dir, 0o755)
	return dir
}

// IsolatedImage tags the test image under a name of its own, so that the
// test gets its own package volume (volumes are per image); the tag and the
// volume are removed when the test ends.
func IsolatedImage(t testing.TB) string {
	t.Helper()
	img := fmt.Sprintf("backyard-python:isolated-%d", rand.Uint32())
	if out, err := exec.Command("docker", "tag", Image(), img).CombinedOutput(); err != nil {
		t.Fatalf("docker tag: %v %s", err, out)
	}
	t.Cleanup(func() {
		exec.Command("docker", "rmi", img).Run()
		// The package volume carries its image in this label
		// (container.LabelPackages).
		out, _ := exec.Command("docker", "volume", "ls", "-q", "--filter", "label=dev.backyard-ls.packages="+img).Output()
		for _, v := range strings.Fields(string(out)) {
			exec.Command("docker", "volume", "rm", "-f", v).Run()
		}
	})
	return img
}

// OOMSnippet passes a fork-server container's memory limit for snippets of
// 256 MiB (512 MiB with the server's headroom) while each of its processes
// stays within its own: it holds 200 MiB, and each of four children lets go
// of its copy and takes 100 MiB. The OOM killer takes the largest, the
// snippet's own process.
const OOMSnippet = `import os, time
big = b"x" * (200 << 20)
for _ in range(4):
    if os.fork() == 0:
        del big
        mine = b"y" * (100 << 20)
        time.sleep(600)
        os._exit(0)
time.sleep(600)
`
