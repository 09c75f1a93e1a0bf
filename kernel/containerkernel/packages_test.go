package containerkernel

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
)

func installKernel(t *testing.T, policy contract.InstallPolicy, confirm func(context.Context, []string) bool) (*Kernel, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a container engine")
	}
	img := containertest.IsolatedImage(t)
	mod := fmt.Sprintf("backyard_wheel%d", rand.Uint32())
	k, err := New(Options{Limits: kernel.Limits{Timeout: time.Minute}, Container: contract.ContainerSettings{Image: img}, Pull: "never",
		Install: contract.InstallSettings{AutoInstall: policy, FindLinks: containertest.WheelDir(t, mod)}, Confirm: confirm})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k, mod
}

func TestAutoInstallFromLocalIndex(t *testing.T) {
	k, mod := installKernel(t, contract.InstallOn, nil)
	kerneltest.Run(t, k, "before = 1")
	var streamed strings.Builder
	r, err := k.Execute(context.Background(), kernel.Request{Code: "import " + mod + "\n" + mod + ".ANSWER + before", OnOutput: func(_ kernel.Stream, s string) { streamed.WriteString(s) }})
	if err != nil || r.Status != kernel.StatusOK || r.Value == nil || r.Value.Text != "43" {
		t.Fatalf("%+v %v %+v", r, err, r.Error)
	}
	if !strings.Contains(streamed.String(), "installing "+mod) {
		t.Fatalf("streamed %q", streamed.String())
	}
	// The kernel container itself stays offline and cannot write packages.
	r = kerneltest.Run(t, k, "import socket, os\ntry:\n    socket.create_connection(('1.1.1.1', 53), timeout=2)\n    net = 'online'\nexcept OSError:\n    net = 'offline'\nnet, os.access("+mod+".__file__, os.W_OK)")
	if r.Value == nil || r.Value.Text != "('offline', False)" {
		t.Fatalf("%+v %+v", r, r.Error)
	}
}

func TestAutoInstallAskDeclined(t *testing.T) {
	asked := []string{}
	k, mod := installKernel(t, contract.InstallAsk, func(_ context.Context, pkgs []string) bool {
		asked = append(asked, pkgs...)
		return false
	})
	r := kerneltest.Run(t, k, "import "+mod)
	if r.Status != kernel.StatusError || r.Error.EName != "ModuleNotFoundError" || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "declined") {
		t.Fatalf("%+v %+v", r, r.Error)
	}
	if len(asked) != 1 || asked[0] != mod {
		t.Fatalf("asked %v", asked)
	}
	// Asked once per package and kernel.
	kerneltest.Run(t, k, "import "+mod)
	if len(asked) != 1 {
		t.Fatalf("asked again: %v", asked)
	}
}

func TestAutoInstallOffExplains(t *testing.T) {
	k, mod := installKernel(t, contract.InstallOff, nil)
	r := kerneltest.Run(t, k, "import "+mod)
	if r.Status != kernel.StatusError || r.Error.EValue != "No module named '"+mod+"'" || len(r.Notes) != 1 || !strings.Contains(r.Notes[0], "backyard.autoInstall") {
		t.Fatalf("%+v", r.Error)
	}
}

// A cell that raises ModuleNotFoundError naming what is not a package,
// and a script block that declares a URL, get nothing installed and no
// question asked.
func TestAutoInstallTakesOnlyNames(t *testing.T) {
	var asked []string
	k, _ := installKernel(t, contract.InstallAsk, func(_ context.Context, pkgs []string) bool {
		asked = append(asked, pkgs...)
		return true
	})
	r := kerneltest.Run(t, k, "raise ModuleNotFoundError(\"No module named 'x @ file:///etc/passwd'\")")
	if r.Status != kernel.StatusError || r.Error.EName != "ModuleNotFoundError" || len(asked) != 0 {
		t.Fatalf("%+v asked %v", r.Error, asked)
	}
	r, err := k.Execute(context.Background(), kernel.Request{Code: "1", Requirements: []string{"x @ https://evil.example/x.whl"}})
	if err != nil || r.Status != kernel.StatusOK || !strings.Contains(r.Stderr, "not a requirement") || len(asked) != 0 {
		t.Fatalf("%+v %v %+v asked %v", r, err, r.Error, asked)
	}
}

func TestScriptRequirementsInstalledFirst(t *testing.T) {
	k, mod := installKernel(t, contract.InstallOn, nil)
	r, err := k.Execute(context.Background(), kernel.Request{Code: "import " + mod + "\n" + mod + ".ANSWER", Requirements: []string{mod}})
	if err != nil || r.Status != kernel.StatusOK || r.Value.Text != "42" {
		t.Fatalf("%+v %v %+v", r, err, r.Error)
	}
}

// %pip install runs where the cell has it: the package is missing before
// the line and importable after it, in the same cell; the installer's
// message comes at that line. A replayed (silent) cell installs nothing.
func TestPipInstallAtItsLine(t *testing.T) {
	k, mod := installKernel(t, contract.InstallOn, nil)
	var order streamed
	code := "import importlib.util\nprint(importlib.util.find_spec('" + mod + "') is None)\n%pip install -q " + mod + "\nimport " + mod + "\nprint(" + mod + ".ANSWER)"
	r, err := k.Execute(context.Background(), kernel.Request{Code: code, OnOutput: order.add})
	if err != nil || r.Status != kernel.StatusOK || r.Stdout != "True\n"+pipNote+"42\n" || !strings.Contains(r.Stderr, "installing "+mod) {
		t.Fatalf("%v %s %q %q %+v", err, r.Status, r.Stdout, r.Stderr, r.Error)
	}
	if len(order) != 3 || order[0] != "stdout:True\n" || !strings.HasPrefix(order[1], "stderr:[backyard: installing "+mod) || order[2] != "stdout:"+pipNote+"42\n" {
		t.Fatalf("streamed %q", order)
	}
	r, err = k.Execute(context.Background(), kernel.Request{Code: "%pip install -q other_wheel_xyz", Silent: true})
	if err != nil || r.Status != kernel.StatusOK || r.Stderr != "" {
		t.Fatalf("silent: %v %s %q %+v", err, r.Status, r.Stderr, r.Error)
	}
}

// The time a %pip install takes on the host, with its question under
// "ask", is not the cell's: a question answered after the cell's time
// limit leaves the cell running, and the cell ends well.
func TestPipInstallOutsideTheTimeLimit(t *testing.T) {
	const limit = time.Second
	k, mod := installKernel(t, contract.InstallAsk, func(ctx context.Context, _ []string) bool {
		select { // answered only once the cell's limit has passed
		case <-time.After(2 * limit):
			return true
		case <-ctx.Done():
			return false
		}
	})
	r, err := k.Execute(context.Background(), kernel.Request{Code: "%pip install -q " + mod + "\nimport " + mod + "\n" + mod + ".ANSWER", Limits: kernel.Limits{Timeout: limit}})
	if err != nil || r.Status != kernel.StatusOK || r.Value == nil || r.Value.Text != "42" {
		t.Fatalf("%v %s %+v %+v", err, r.Status, r.Value, r.Error)
	}
	r, err = k.Execute(context.Background(), kernel.Request{Code: "while True: pass", Limits: kernel.Limits{Timeout: limit}})
	if err != nil || r.Status != kernel.StatusTimeout {
		t.Fatalf("the limit holds again: %v %s %+v", err, r.Status, r.Error)
	}
}
