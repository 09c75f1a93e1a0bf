package lsp_test

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

// truncatedAt runs a cell printing 100 bytes in a new document and returns
// the output cap its kernel applied, from the marker.
func truncatedAt(t *testing.T, c *lsptest.Client, name string) string {
	t.Helper()
	uri := open(t, c, name, "print('x' * 100)\n")
	ex := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	return capOf(t, ex)
}

func capOf(t *testing.T, ex []*contract.Execution) string {
	t.Helper()
	if len(ex) != 1 || ex[0].Status != contract.StatusOK {
		t.Fatalf("%s", mustJSON(ex))
	}
	_, after, ok := strings.Cut(ex[0].Stdout, "output truncated at ")
	if !ok {
		return "none"
	}
	return strings.Fields(after)[0]
}

// A client with workspace.configuration and
// didChangeConfiguration.dynamicRegistration: the server registers for
// change notifications and pulls the "backyard" section; the answer
// applies. A change notification without settings makes it pull again, and
// a kernel created right after the change waits for the answer.
func TestSettingsPulled(t *testing.T) {
	c := lsptest.Pipe(lsp.Options{Logger: testLogger()})
	t.Cleanup(func() { c.Close() })
	ctx := testCtx(t)
	if err := c.SetSettings("backyard", map[string]any{"maxOutputBytes": 20}); err != nil {
		t.Fatal(err)
	}
	caps := lsptest.Capabilities{WorkDoneProgress: true, Configuration: true, ConfigurationRegistration: true}
	if _, err := c.Initialize(ctx, caps, nil); err != nil {
		t.Fatal(err)
	}
	await(t, c, lsptest.Registered(protocol.MethodWorkspaceDidChangeConfiguration),
		lsptest.Requested(protocol.MethodWorkspaceConfiguration), lsptest.NoPendingRequests)
	asked := lsptest.ParamsOf[protocol.ConfigurationParams](c, protocol.MethodWorkspaceConfiguration)
	if len(asked) != 1 || len(asked[0].Items) != 1 || asked[0].Items[0].Section == nil || *asked[0].Items[0].Section != "backyard" {
		t.Fatalf("workspace/configuration asked %s", mustJSON(asked))
	}
	if n := c.Requests(protocol.MethodClientRegisterCapability); n != 1 {
		t.Errorf("%d client/registerCapability, want 1", n)
	}
	if got := truncatedAt(t, c, "pulled.py"); got != "20" {
		t.Fatalf("the pulled maxOutputBytes did not apply: output cut at %s", got)
	}

	// The settings change; the client says so with null settings and
	// holds its answer until a run of a new document was asked for: the
	// new kernel must wait for the answer, not start with the old settings.
	if err := c.SetSettings("backyard", map[string]any{"maxOutputBytes": 30}); err != nil {
		t.Fatal(err)
	}
	release := c.Hold(protocol.MethodWorkspaceConfiguration)
	mark := c.Mark()
	if err := c.ChangeConfiguration(ctx, nil); err != nil {
		t.Fatal(err)
	}
	await(t, c, lsptest.After(mark, lsptest.Requested(protocol.MethodWorkspaceConfiguration)))
	uri := open(t, c, "changed.py", "print('x' * 100)\n")
	id := queue(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	release()
	done := waitDone(t, c, id)
	if got := capOf(t, []*contract.Execution{done.Execution}); got != "30" {
		t.Fatalf("a kernel created right after the change: output cut at %s, want the new 30", got)
	}
	if n := c.Requests(protocol.MethodWorkspaceConfiguration); n != 2 {
		t.Errorf("%d workspace/configuration requests, want 2", n)
	}
	// Settings apply to kernels created afterwards: the first document's
	// kernel keeps its cap.
	first := docURI(t, "pulled.py")
	if got := capOf(t, run(t, c, contract.CmdRunCell, lsptest.LineArg(first, 0))); got != "20" {
		t.Errorf("the running kernel changed its cap to %s", got)
	}
}

// A client without workspace.configuration is never asked: it pushes.
func TestSettingsPushedWithoutPull(t *testing.T) {
	c := start(t, lsptest.VSCode, nil)
	if err := c.SetSettings("backyard", map[string]any{"maxOutputBytes": 20}); err != nil {
		t.Fatal(err)
	}
	if err := c.ChangeConfiguration(testCtx(t), nil); err != nil {
		t.Fatal(err)
	}
	if got := truncatedAt(t, c, "unpulled.py"); got != "none" {
		t.Errorf("settings the client was never asked for applied: cut at %s", got)
	}
	if err := c.ChangeConfiguration(testCtx(t), map[string]any{"backyard": map[string]any{"maxOutputBytes": 25}}); err != nil {
		t.Fatal(err)
	}
	if got := truncatedAt(t, c, "pushed.py"); got != "25" {
		t.Errorf("pushed settings: cut at %s, want 25", got)
	}
	if n := c.Requests(protocol.MethodWorkspaceConfiguration) + c.Requests(protocol.MethodClientRegisterCapability); n != 0 {
		t.Errorf("%d configuration or registration requests to a client without the capabilities", n)
	}
}
