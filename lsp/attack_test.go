package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/internal/canary"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

// TestAttack: the real server over stdio, with a canary secret in its
// environment and in the credential files of its home, is opened on / (or
// on the home with backyard.files.broadWorkspace). A notebook's cells read
// /proc, /dev, /sys, the server's stdin and the credentials, and the
// variables view meets values it must cut (Monty, auto, container). The
// broad folder is warned about (and left out unless the setting says so);
// the reads get CPython's missing-file answer on Monty; stdin is not the
// protocol stream; the view is cut with markers; the secret is in nothing
// the server sent or logged.
func TestAttack(t *testing.T) {
	c := canary.New(t)
	c.Setenv(t) // the server's environment, HOME included
	cells := []string{c.Probe(), "open('data.csv').read()\n", canary.BigValues, "open('/dev/stdin').read()\n", "6 * 7\n"}
	text := ""
	var lines []int
	for _, cell := range cells {
		lines = append(lines, strings.Count(text, "\n"))
		text += "# %%\n" + cell
	}
	doc := string(uri.File(filepath.Join(c.Project, "nb.py")))
	for _, tc := range []struct {
		name, backend, folder string
		broad                 bool
		warning               string
	}{
		{"monty/root", "monty", "/", false, "kernels see each document's project folder instead"},
		{"monty/home-shown", "monty", c.Home, true, "kernels see all of " + c.Home},
		{"auto/root", "auto", "/", false, "kernels see each document's project folder instead"},
		{"container/root", "container", "/", false, "kernels see each document's project folder instead"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logFile := filepath.Join(t.TempDir(), "server.log")
			cl, _ := startBinary(t, "--log-file", logFile, "--log-level", "debug")
			ctx := testCtx(t)
			settings := map[string]any{"backyard": map[string]any{"backend": tc.backend, "files": map[string]any{"broadWorkspace": tc.broad},
				"container": map[string]any{"image": containertest.Image(), "warmPool": 0}}}
			if _, err := cl.InitializeIn(ctx, lsptest.VSCode, settings, tc.folder); err != nil {
				t.Fatal(err)
			}
			if err := cl.Open(ctx, doc, text); err != nil {
				t.Fatal(err)
			}
			var ex [][]*contract.Execution
			for i := range cells {
				if i == 2 {
					continue // the big values: run below
				}
				ex = append(ex, run(t, cl, contract.CmdRunCell, lsptest.LineArg(doc, lines[i])))
			}
			await(t, cl, lsptest.ShownMessage(protocol.MessageTypeWarning, tc.warning))
			probe, data, stdin, after := ex[0][0], ex[1][0], ex[2][0], ex[3][0]
			if probe.Backend == string(contract.BackendMonty) {
				c.CheckMonty(t, probe.Stdout)
			} else if tc.backend == "monty" {
				t.Fatalf("the probe ran on %s", probe.Backend)
			}
			if data.Result == nil || data.Result.Text != `'a,b\n1,2\n'` {
				t.Errorf("the project's data.csv: %s", mustJSON(data))
			}
			if tc.backend == "monty" && (stdin.Error == nil || stdin.Error.EName != "FileNotFoundError") {
				t.Errorf("open('/dev/stdin').read(): %s", mustJSON(stdin))
			}
			if after.Result == nil || after.Result.Text != "42" {
				t.Errorf("the cell after: %s", mustJSON(after))
			}

			if big := run(t, cl, contract.CmdRunCell, lsptest.LineArg(doc, lines[2])); big[0].Status != contract.StatusOK {
				t.Fatalf("%s", mustJSON(big))
			}
			var vars contract.VariablesResult
			if err := cl.Command(ctx, contract.CmdVariables, map[string]any{"uri": doc}, &vars); err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, v := range vars.Variables {
				got[v.Name] = v.Repr
			}
			canary.CheckVariables(t, got)
			if kept := run(t, cl, contract.CmdRunCell, lsptest.LineArg(doc, lines[4])); kept[0].Result == nil || kept[0].Result.Text != "42" {
				t.Errorf("after the listing: %s", mustJSON(kept))
			}

			var sent []string
			for _, m := range cl.Messages() {
				sent = append(sent, string(m.Params))
			}
			c.CheckNoSecret(t, "what the server sent", sent...)
			cl.Close()
			c.CheckFileNoSecret(t, logFile)
			if log, _ := os.ReadFile(logFile); !strings.Contains(string(log), tc.warning) {
				t.Errorf("the log has no warning %q", tc.warning)
			}
		})
	}
}
