package lsp_test

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

// Cells that do not end by themselves, each in its own way; each says
// "ready" once it is in its loop.
var endless = []struct{ name, code string }{
	// Catches every KeyboardInterrupt, in a sleep loop (an interrupt
	// first: it says "caught"). It says "ready" inside the try: an
	// interrupt that lands just after "ready" must be caught too.
	{"swallows", "import time\nwhile True:\n    try:\n        print('ready')\n        while True:\n            time.sleep(0.05)\n    except KeyboardInterrupt:\n        print('caught')\n"},
	{"busy", "print('ready')\nwhile True:\n    pass\n"},
	{"sleeps", "import time\nprint('ready')\nwhile True:\n    time.sleep(0.1)\n"},
	// Waits on the editor's answer to input(), which never comes, and
	// asks again when interrupted (an interrupt first).
	{"blocked", "print('ready')\nwhile True:\n    try:\n        input('? ')\n    except KeyboardInterrupt:\n        print('caught')\n"},
}

// livenessBackends are the document's kernels: Monty, a container on each
// runtime, and auto (on Monty, and moved to the container).
var livenessBackends = []struct {
	name     string
	settings map[string]any
	move     bool // auto: a first cell moves the document to the container
}{
	{"monty", map[string]any{"backend": "monty"}, false},
	{"runc", map[string]any{"backend": "container", "container": map[string]any{"runtime": "runc", "image": containertest.Image()}}, false},
	{"runsc", map[string]any{"backend": "container", "container": map[string]any{"runtime": "runsc", "image": containertest.Image()}}, false},
	{"auto", map[string]any{"backend": "auto", "container": map[string]any{"image": containertest.Image()}}, false},
	{"auto-moved", map[string]any{"backend": "auto", "container": map[string]any{"image": containertest.Image()}}, true},
}

// tookFor collects how long each end took, for the log.
var tookFor = struct {
	sync.Mutex
	d map[string][]time.Duration
}{d: map[string][]time.Duration{}}

// Restart, close (didClose) and shutdown end a document's kernel whatever
// its running cell does: it catches every KeyboardInterrupt, it never
// leaves the interpreter, it sleeps in a loop, it waits on the editor.
// The kernel is killed, not waited for (the cells never end by
// themselves).
func TestKernelEndsWhateverTheCellDoes(t *testing.T) {
	for _, b := range livenessBackends {
		if b.name != "monty" && testing.Short() {
			continue
		}
		t.Run(b.name, func(t *testing.T) {
			for _, cell := range endless {
				// A container ends the same way whatever the cell does:
				// every cell on Monty, two in a container.
				if b.name != "monty" && b.name != "auto" && cell.name != "swallows" && cell.name != "blocked" {
					continue
				}
				t.Run(cell.name, func(t *testing.T) {
					for _, op := range []string{"restart", "close", "shutdown"} {
						t.Run(op, func(t *testing.T) { endWhileRunning(t, b.settings, b.move, cell.code, op) })
					}
				})
			}
		})
	}
	tookFor.Lock()
	defer tookFor.Unlock()
	for _, op := range slices.Sorted(maps.Keys(tookFor.d)) {
		d := tookFor.d[op]
		slices.Sort(d)
		t.Logf("%s: median %s, max %s over %d", op, d[len(d)/2], d[len(d)-1], len(d))
	}
}

func endWhileRunning(t *testing.T, settings map[string]any, move bool, code, op string) {
	caps := lsptest.Neovim07
	caps.Input = true
	c := start(t, caps, map[string]any{"backyard": settings})
	release := c.Hold(contract.RequestInput) // the editor never answers
	defer release()
	text := "x = 1\n# %%\n" + code
	if move {
		text = "import json, csv, decimal, uuid\n# %%\n" + code
	}
	// A folder of its own: the container copies the document's folder.
	uri := "file://" + filepath.ToSlash(filepath.Join(t.TempDir(), "endless.py"))
	if err := c.Open(testCtx(t), uri, text); err != nil {
		t.Fatal(err)
	}
	if move {
		if ex := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0)); len(ex) != 1 || ex[0].Backend != "container" {
			t.Fatalf("did not move: %s", mustJSON(ex))
		}
	} else {
		run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0))
	}
	id := queue(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 2))
	await(t, c, lsptest.OutputContains(id, contract.Stdout, "ready\n"))
	if strings.Contains(code, "input(") {
		await(t, c, lsptest.Requested(contract.RequestInput))
	}
	if strings.Contains(code, "caught") {
		// A first interrupt, which the cell survives.
		interrupt(t, c, uri)
		await(t, c, lsptest.OutputContains(id, contract.Stdout, "caught\n"))
	}
	from := c.Mark()
	start := time.Now()
	switch op {
	case "restart":
		info := infoCommand(t, c, contract.CmdRestart, lsptest.URIArg(uri))
		if info.ExecutionCount != 0 {
			t.Fatalf("after restart: %+v", info)
		}
	case "close":
		if err := c.CloseDoc(testCtx(t), uri); err != nil {
			t.Fatal(err)
		}
		await(t, c, lsptest.After(from, lsptest.KernelState(uri, contract.KernelDead)))
	case "shutdown":
		// Its answer also waits for the warm pool's containers to go.
		answered := make(chan error, 1)
		go func() { answered <- c.Server().Shutdown(testCtx(t)) }()
		await(t, c, lsptest.After(from, lsptest.KernelState(uri, contract.KernelDead)))
		defer func() {
			if err := <-answered; err != nil {
				t.Fatal(err)
			}
			t.Logf("shutdown answered after %s", time.Since(start))
		}()
	}
	took := time.Since(start)
	done := waitDone(t, c, id)
	if x := done.Execution; x != nil && x.Status != contract.StatusInterrupted {
		t.Fatalf("the endless cell ended %s", mustJSON(x))
	}
	t.Logf("%s ended the kernel in %s", op, took)
	tookFor.Lock()
	tookFor.d[op] = append(tookFor.d[op], took)
	tookFor.Unlock()
}
