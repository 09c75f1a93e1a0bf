package auto

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
)

// Auto mode: the cell moves to the container (Monty lacks the module), and
// the package is installed there.
func TestAutoModeInstallsOnTheContainer(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine")
	}
	img := containertest.IsolatedImage(t)
	mod := fmt.Sprintf("backyard_wheel%d", rand.Uint32())
	a, err := New(testConfig(func(s *contract.Settings) {
		s.Timeout, s.Container.Image = 60, img
		s.Install = contract.InstallSettings{AutoInstall: contract.InstallOn, FindLinks: containertest.WheelDir(t, mod)}
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	kerneltest.Run(t, a, "x = 1")
	r := kerneltest.Run(t, a, "import "+mod+"\n"+mod+".ANSWER + x")
	if r.Backend != contract.BackendContainer || r.Status != kernel.StatusOK || r.Value.Text != "43" {
		t.Fatalf("%+v %+v", r, r.Error)
	}
}
