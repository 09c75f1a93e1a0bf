package lsp_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

var montyOnly = map[string]any{"backyard": map[string]any{"backend": "monty"}}

// input() asks a client that advertises backyard/input; the answer is
// the line, the prompt and the answer are in stdout. A client that does
// not advertise it gets no request: on Monty too, IPython's
// StdinNotImplementedError at once, before the prompt.
func TestInputAsksTheClient(t *testing.T) {
	caps := lsptest.Neovim07
	caps.Input = true
	c := start(t, caps, montyOnly)
	var asked []contract.InputParams
	c.Answer(contract.RequestInput, func(raw json.RawMessage) any {
		var p contract.InputParams
		json.Unmarshal(raw, &p)
		asked = append(asked, p)
		if p.Prompt == "skip? " {
			return map[string]any{"value": nil}
		}
		return map[string]any{"value": "Ada"}
	})
	uri := open(t, c, "input.py", "# %%\nname = input('name? ')\nprint('hello', name)\nname\n# %%\ninput('skip? ')\n")
	ex := run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 1})
	if len(ex) != 1 || ex[0].Status != "ok" || ex[0].Result == nil || ex[0].Result.Text != "'Ada'" || ex[0].Stdout != "name? Ada\nhello Ada\n" {
		t.Fatalf("%s", mustJSON(ex))
	}
	if len(asked) != 1 || asked[0].Prompt != "name? " || asked[0].URI != uri || asked[0].ExecutionID != ex[0].ID {
		t.Fatalf("asked %+v", asked)
	}
	// Dismissed: KeyboardInterrupt, as an interrupt during input() gives.
	ex = run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 5})
	if len(ex) != 1 || ex[0].Status != "interrupted" || ex[0].Error.EName != "KeyboardInterrupt" {
		t.Fatalf("%s", mustJSON(ex))
	}

	plain := start(t, lsptest.Neovim07, montyOnly)
	uri = open(t, plain, "noinput.py", "# %%\ninput('name? ')\n")
	ex = run(t, plain, contract.CmdRunCell, map[string]any{"uri": uri, "line": 1})
	if len(ex) != 1 || ex[0].Status != "error" || ex[0].Error.EName != "StdinNotImplementedError" || ex[0].Stdout != "" {
		t.Fatalf("%s", mustJSON(ex))
	}
	for _, m := range plain.Messages() {
		if m.Method == contract.RequestInput {
			t.Fatal("backyard/input sent to a client that did not advertise it")
		}
	}
}

// A client that does not advertise backyard/input is a front end that
// gives no stdin: in an auto document input() moves to the container,
// whose kernel raises StdinNotImplementedError before any prompt, as
// IPython's does.
func TestInputWithoutStdinIsIPythons(t *testing.T) {
	c := startWith(t, containerOptions(t), lsptest.Neovim07, nil)
	uri := open(t, c, "nostdin.py", "# %%\nname = input('name? ')\n")
	ex := run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 1})
	if len(ex) != 1 || ex[0].Backend != "container" || ex[0].Status != "error" || ex[0].Error.EName != "StdinNotImplementedError" ||
		ex[0].Error.EValue != "raw_input was called, but this frontend does not support input requests." || ex[0].Stdout != "" {
		t.Fatalf("%s", mustJSON(ex))
	}
	for _, m := range c.Messages() {
		if m.Method == contract.RequestInput {
			t.Fatal("backyard/input sent to a client that did not advertise it")
		}
	}
}

// A kernel whose worker dies between cells: backyard/kernelState dead at
// once, and the next run is a crash saying the state is lost, with the
// count starting again.
func TestKernelDeathWhileIdleIsReported(t *testing.T) {
	before := map[int]bool{} // earlier tests' workers may still be ending
	for _, pid := range lsptest.Children(os.Getpid()) {
		before[pid] = true
	}
	c := start(t, lsptest.Neovim07, montyOnly)
	uri := open(t, c, "dies.py", "# %%\nlost = 1\n# %%\nlost\n")
	run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 1})
	run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 1})
	// The kernel's worker, and the keeper of its snapshot if it took one.
	var workers []int
	for _, pid := range lsptest.Children(os.Getpid()) {
		if !before[pid] {
			workers = append(workers, pid)
		}
	}
	if len(workers) == 0 {
		t.Fatal("the kernel has no worker process")
	}
	from := c.Len()
	for _, pid := range workers {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
	}
	if _, _, err := c.Wait(testCtx(t), from, func(m lsptest.Message) bool {
		var p contract.KernelStateParams
		return m.Method == contract.MethodKernelState && m.Decode(&p) == nil && p.URI == uri && p.State == contract.KernelDead
	}); err != nil {
		t.Fatalf("no kernelState dead: %v", err)
	}
	ex := run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 3})
	if len(ex) != 1 || ex[0].Status != "crashed" || ex[0].ExecutionCount != 0 || !strings.Contains(ex[0].Error.EValue, "the kernel died while idle: state lost") {
		t.Fatalf("%s", mustJSON(ex))
	}
	ex = run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 1})
	if len(ex) != 1 || ex[0].Status != "ok" || ex[0].ExecutionCount != 1 {
		t.Fatalf("%s", mustJSON(ex))
	}
}

// Interrupt, through the command, as Jupyter does it: a cell that catches
// the KeyboardInterrupt keeps running (the kernel stays busy, nothing
// kills it), a second interrupt sends another SIGINT.
func TestInterruptTwiceInContainer(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine")
	}
	c := start(t, lsptest.Neovim07, map[string]any{"backyard": map[string]any{"backend": "container", "container": map[string]any{"image": containertest.Image()}}})
	uri := open(t, c, "twice.py", "# %%\nkept = 1\n# %%\ntry:\n    print('looping', flush=True)\n    while True:\n        pass\nexcept KeyboardInterrupt:\n    kept = 2\n    print('caught', flush=True)\n    while True:\n        pass\n# %%\nkept\n")
	run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 1})
	var res runResult
	if err := c.Command(testCtx(t), contract.CmdRunCell, map[string]any{"uri": uri, "line": 3, "wait": false}, &res); err != nil {
		t.Fatal(err)
	}
	id := res.Queued[0]
	// Each interrupt waits for the cell to show it is where the interrupt
	// is meant to land: one sent before the cell reaches its try, or the
	// second before the handler runs, would end the cell at once.
	await(t, c, lsptest.OutputContains(id, contract.Stdout, "looping\n"))
	interrupt := func() {
		var r contract.InterruptResult
		if err := c.Command(testCtx(t), contract.CmdInterrupt, map[string]any{"uri": uri}, &r); err != nil || !r.Interrupted {
			t.Fatalf("%+v %v", r, err)
		}
	}
	interrupt()
	await(t, c, lsptest.OutputContains(id, contract.Stdout, "caught\n"))
	time.Sleep(4 * time.Second) // past the old 3 s grace period: nothing may end the cell
	var info contract.KernelInfo
	if err := c.Command(testCtx(t), contract.CmdKernelInfo, map[string]any{"uri": uri}, &info); err != nil || info.State != contract.KernelBusy {
		t.Fatalf("%+v %v", info, err)
	}
	if len(states(c, id)) != 2 { // queued, running: not done
		t.Fatalf("%+v", states(c, id))
	}
	interrupt()
	done := waitDone(t, c, id)
	if done.Execution == nil || done.Execution.Status != "interrupted" {
		t.Fatalf("%s", mustJSON(done))
	}
	ex := run(t, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": 13})
	if len(ex) != 1 || ex[0].Result == nil || ex[0].Result.Text != "2" || ex[0].ExecutionCount != 3 {
		t.Fatalf("%s", mustJSON(ex))
	}
}
