package lsp_test

import (
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

func containerOptions(t *testing.T) lsp.Options {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a container engine and the test image")
	}
	return lsp.Options{Logger: testLogger(), Flags: contract.Overrides{"container.image": containertest.Image()}}
}

// A document moves from Monty to the container when a cell needs it, with
// its state, and kernelInfo says why.
func TestAutoModeOverLSP(t *testing.T) {
	c := startWith(t, containerOptions(t), lsptest.VSCode, nil)
	uri := open(t, c, "auto.py", "# %%\ndata = [1, 2, 3]\n# %%\nimport numpy as np\nint(np.array(data).sum())\n")
	ex := run(t, c, contract.CmdRunAll, lsptest.AllArg(uri))
	if len(ex) != 2 || ex[0].Backend != "monty" || ex[1].Backend != "container" || ex[1].Result == nil || ex[1].Result.Text != "6" {
		t.Fatalf("%s", mustJSON(ex))
	}
	info := infoCommand(t, c, contract.CmdKernelInfo, lsptest.URIArg(uri))
	if info.Backend != contract.BackendContainer || info.Mode != contract.BackendAuto || !strings.Contains(info.Reason, "numpy") {
		t.Fatalf("%+v", info)
	}
}

// autoInstall "ask": the server asks with window/showMessageRequest; the
// answer decides.
func TestAutoInstallAskOverLSP(t *testing.T) {
	for _, answer := range []string{"Install", "Not now"} {
		t.Run(answer, func(t *testing.T) {
			mod := fmt.Sprintf("backyard_lsp%d", rand.Uint32())
			img := containertest.IsolatedImage(t)
			opts := containerOptions(t)
			opts.Flags["container.image"] = img
			c := startWith(t, opts, lsptest.VSCode, map[string]any{"backyard": map[string]any{
				"backend": "container", "autoInstall": "ask", "findLinks": containertest.WheelDir(t, mod)}})
			c.OnShowMessageRequest(func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
				for _, a := range p.Actions {
					if a.Title == answer {
						return &a
					}
				}
				return nil
			})
			uri := open(t, c, "install.py", "# %%\nimport "+mod+"\n"+mod+".ANSWER\n")
			x := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 1))[0]
			asked := lsptest.ParamsOf[protocol.ShowMessageRequestParams](c, protocol.MethodWindowShowMessageRequest)
			if len(asked) != 1 || !strings.Contains(asked[0].Message, mod) || len(asked[0].Actions) != 2 {
				t.Fatalf("asked %s", mustJSON(asked))
			}
			if answer == "Install" && (x.Status != "ok" || x.Result == nil || x.Result.Text != "42") {
				t.Fatalf("%+v %+v", x, x.Error)
			}
			if answer != "Install" && (x.Status != "error" || x.Error.EValue != "No module named '"+mod+"'" || len(x.Notes) != 1 || !strings.Contains(x.Notes[0], "declined")) {
				t.Fatalf("%+v %+v", x, x.Error)
			}
		})
	}
}

// Opening a document whose cells will need the container starts it early.
func TestPrewarmOnOpen(t *testing.T) {
	c := startWith(t, containerOptions(t), lsptest.VSCode, nil)
	ctx := testCtx(t)
	uri := open(t, c, "prewarm.py", "# %%\nx = 1\n# %%\nimport numpy\n")
	for {
		if info := infoCommand(t, c, contract.CmdKernelInfo, lsptest.URIArg(uri)); strings.Contains(strings.Join(info.Notes, " "), "pre-warmed") {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the container was not pre-warmed")
		case <-time.After(50 * time.Millisecond):
		}
	}
	if ex := run(t, c, contract.CmdRunAll, lsptest.AllArg(uri)); len(ex) != 2 || ex[1].Backend != "container" || ex[1].Status != contract.StatusOK {
		t.Fatalf("%s", mustJSON(ex))
	}
}

// Containers do not outlive their server: closing removes them, and a
// server that was killed leaves them to the next server start, which
// removes them.
func TestContainersReapedAfterKilledServer(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine")
	}
	ctx := testCtx(t)
	// No warm pool: the server's only container is the document's.
	settings := map[string]any{"backyard": map[string]any{"backend": "container", "container": map[string]any{"image": containertest.Image(), "warmPool": 0}}}
	c, cmd := startBinary(t)
	if _, err := c.Initialize(ctx, lsptest.VSCode, settings); err != nil {
		t.Fatal(err)
	}
	uri := open(t, c, "reap.py", "# %%\nimport os\nos.getpid()\n")
	if ex := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 1)); ex[0].Status != contract.StatusOK || ex[0].Backend != "container" {
		t.Fatalf("%s", mustJSON(ex))
	}
	owned := func(pid int) []string {
		out, _ := exec.Command("docker", "ps", "-aq", "--filter", "label=dev.backyard-ls.pid="+strconv.Itoa(pid)).Output()
		return strings.Fields(string(out))
	}
	pid := cmd.Process.Pid
	if len(owned(pid)) != 1 {
		t.Fatalf("the server owns %v", owned(pid))
	}
	cmd.Process.Kill()
	cmd.Wait()
	if len(owned(pid)) != 1 {
		t.Fatal("the container went with the server; the reaping below proves nothing")
	}
	c2, _ := startBinary(t)
	if _, err := c2.Initialize(ctx, lsptest.VSCode, nil); err != nil {
		t.Fatal(err)
	}
	for len(owned(pid)) > 0 {
		select {
		case <-ctx.Done():
			t.Fatalf("orphan %v not removed", owned(pid))
		case <-time.After(100 * time.Millisecond):
		}
	}
}
