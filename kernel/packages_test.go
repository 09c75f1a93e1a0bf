package kernel

import (
	"archive/zip"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/container"
)

// wheelDir writes a pure-Python wheel of module name (exporting ANSWER = 42)
// into a new directory: the local package index of the install tests.
func wheelDir(t *testing.T, name string) string {
	t.Helper()
	dir := t.TempDir()
	dist := name + "-1.0.dist-info"
	f, err := os.Create(filepath.Join(dir, name+"-1.0-py3-none-any.whl"))
	if err != nil {
		t.Fatal(err)
	}
	z := zip.NewWriter(f)
	files := map[string]string{
		name + "/__init__.py": "ANSWER = 42\n",
		dist + "/METADATA":    "Metadata-Version: 2.1\nName: " + strings.ReplaceAll(name, "_", "-") + "\nVersion: 1.0\n",
		dist + "/WHEEL":       "Wheel-Version: 1.0\nGenerator: backyard-ls-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
	}
	var record strings.Builder
	for path, body := range files {
		w, _ := z.Create(path)
		w.Write([]byte(body))
		record.WriteString(path + ",,\n")
	}
	record.WriteString(dist + "/RECORD,,\n")
	w, _ := z.Create(dist + "/RECORD")
	w.Write([]byte(record.String()))
	if err := z.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	os.Chmod(dir, 0o755)
	return dir
}

// installImage tags the test image under a name of its own, so the test
// gets a package volume of its own, removed afterwards.
func installImage(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a container engine")
	}
	img := fmt.Sprintf("backyard-python:install-%d", rand.Uint32())
	if out, err := exec.Command("docker", "tag", testImage(), img).CombinedOutput(); err != nil {
		t.Fatalf("docker tag: %v %s", err, out)
	}
	t.Cleanup(func() {
		exec.Command("docker", "rmi", img).Run()
		vol := strings.TrimSpace(run2(t, "sh", "-c", "docker volume ls -q | grep -x \"$0\" || true", container.PackagesVolume(img)))
		if vol != "" {
			exec.Command("docker", "volume", "rm", "-f", vol).Run()
		}
	})
	return img
}

func run2(t *testing.T, name string, args ...string) string {
	out, _ := exec.Command(name, args...).Output()
	return string(out)
}

func installKernel(t *testing.T, policy string, confirm func(context.Context, []string) bool) (*Container, string) {
	t.Helper()
	img := installImage(t)
	mod := fmt.Sprintf("backyard_wheel%d", rand.Uint32())
	k, err := NewContainer(ContainerOptions{Limits: Limits{Timeout: time.Minute}, Container: ContainerConfig{
		Image: img, Pull: "never", AutoInstall: policy, FindLinks: wheelDir(t, mod), Confirm: confirm,
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k, mod
}

func TestAutoInstallFromLocalIndex(t *testing.T) {
	k, mod := installKernel(t, InstallOn, nil)
	run(t, k, "before = 1")
	var streamed strings.Builder
	r, err := k.Execute(context.Background(), Request{Code: "import " + mod + "\n" + mod + ".ANSWER + before", OnOutput: func(_ Stream, s string) { streamed.WriteString(s) }})
	if err != nil || r.Status != StatusOK || r.Value == nil || r.Value.Text != "43" {
		t.Fatalf("%+v %v %+v", r, err, r.Error)
	}
	if !strings.Contains(streamed.String(), "installing "+mod) {
		t.Fatalf("streamed %q", streamed.String())
	}
	// The kernel container itself stays offline and cannot write packages.
	r = run(t, k, "import socket, os\ntry:\n    socket.create_connection(('1.1.1.1', 53), timeout=2)\n    net = 'online'\nexcept OSError:\n    net = 'offline'\nnet, os.access("+mod+".__file__, os.W_OK)")
	if r.Value == nil || r.Value.Text != "('offline', False)" {
		t.Fatalf("%+v %+v", r, r.Error)
	}
}

func TestAutoInstallAskDeclined(t *testing.T) {
	asked := []string{}
	k, mod := installKernel(t, InstallAsk, func(_ context.Context, pkgs []string) bool {
		asked = append(asked, pkgs...)
		return false
	})
	r := run(t, k, "import "+mod)
	if r.Status != StatusError || r.Error.EName != "ModuleNotFoundError" || !strings.Contains(r.Error.EValue, "declined") {
		t.Fatalf("%+v %+v", r, r.Error)
	}
	if len(asked) != 1 || asked[0] != mod {
		t.Fatalf("asked %v", asked)
	}
	// Asked once per package and kernel.
	run(t, k, "import "+mod)
	if len(asked) != 1 {
		t.Fatalf("asked again: %v", asked)
	}
}

func TestAutoInstallOffExplains(t *testing.T) {
	k, mod := installKernel(t, InstallOff, nil)
	r := run(t, k, "import "+mod)
	if r.Status != StatusError || !strings.Contains(r.Error.EValue, "backyard.autoInstall") {
		t.Fatalf("%+v", r.Error)
	}
}

func TestScriptRequirementsInstalledFirst(t *testing.T) {
	k, mod := installKernel(t, InstallOn, nil)
	r, err := k.Execute(context.Background(), Request{Code: "import " + mod + "\n" + mod + ".ANSWER", Requirements: []string{mod}})
	if err != nil || r.Status != StatusOK || r.Value.Text != "42" {
		t.Fatalf("%+v %v %+v", r, err, r.Error)
	}
}

// Auto mode: the cell moves to the container (Monty lacks the module), and
// the package is installed there.
func TestAutoModeInstallsOnTheContainer(t *testing.T) {
	img := installImage(t)
	mod := fmt.Sprintf("backyard_wheel%d", rand.Uint32())
	a, err := NewAuto(Config{Limits: Limits{Timeout: time.Minute}, Container: ContainerConfig{Image: img, Pull: "never", AutoInstall: InstallOn, FindLinks: wheelDir(t, mod)}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	run(t, a, "x = 1")
	r := run(t, a, "import "+mod+"\n"+mod+".ANSWER + x")
	if r.Backend != BackendContainer || r.Status != StatusOK || r.Value.Text != "43" {
		t.Fatalf("%+v %+v", r, r.Error)
	}
}
