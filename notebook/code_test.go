package notebook_test

import (
	"context"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/notebook"
)

type quiet struct{}

func (quiet) Output(*contract.OutputParams)                 {}
func (quiet) ExecutionState(*contract.ExecutionStateParams) {}
func (quiet) KernelState(*contract.KernelStateParams)       {}
func (quiet) Diagnostics(*notebook.Document)                {}
func (quiet) Refresh(bool)                                  {}
func (quiet) StartProgress(string, func()) notebook.Progress {
	return nil
}
func (quiet) Message(notebook.Level, string)                        {}
func (quiet) ConfirmInstall(context.Context, string, []string) bool { return false }

// A document without text runs code given with the request; the kernel
// keeps its state, and the document shows no result.
func TestRunCodeOnADocumentWithoutText(t *testing.T) {
	s := contract.DefaultSettings()
	s.Backend, s.Timeout = contract.BackendMonty, 1
	nb := notebook.New(notebook.Options{Config: func(string) kernel.Config { return kernel.Config{Settings: s} }, Events: quiet{}})
	defer nb.CloseAll()
	d := nb.Open("session:a", 1, "")
	run := func(code string, lim kernel.Limits) *contract.Execution {
		r, err := d.Start(notebook.RunRequest{Kind: notebook.RunCode, Code: code, Limits: lim})
		if err != nil {
			t.Fatal(err)
		}
		x := r.Wait(context.Background())
		if len(x) != 1 {
			t.Fatalf("%d records", len(x))
		}
		return x[0]
	}
	run("n = 41", kernel.Limits{})
	if x := run("import time\ntime.sleep(1.2)\nn + 1", kernel.Limits{Timeout: 5 * time.Second}); x.Status != contract.StatusOK || x.Result.Text != "42" || x.ExecutionCount != 2 {
		t.Fatalf("%+v", x)
	}
	if x := run("1/0", kernel.Limits{}); x.Error == nil || x.Error.Traceback[0].Line != 0 {
		t.Fatalf("line 1 of the code is document line 0: %+v", x.Error)
	}
	if diags, _ := d.Diagnostics(); len(d.Cells()) != 0 || len(diags) != 0 {
		t.Fatal("code runs show nothing in the document")
	}
	reply, err := d.Install([]string{"numpy"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reply(context.Background()); err == nil {
		t.Fatal("Monty installs no packages")
	}
}
