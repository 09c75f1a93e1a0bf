package lsptest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/lsp"
)

// An expectation that is not met fails Await with what the client holds:
// the documents as edited, the messages, what is pending.
func TestAwaitFailureDumpsState(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a guard
	defer cancel()
	c := Pipe(lsp.Options{})
	defer c.Close()
	if _, err := c.Initialize(ctx, VSCode, nil); err != nil {
		t.Fatal(err)
	}
	uri := "file:///tmp/dump.py"
	if err := c.Open(ctx, uri, "x = 1\n# %%\ny = 2\n"); err != nil {
		t.Fatal(err)
	}
	if err := c.EditDocument(ctx, uri, Edit(2, 4, 2, 5, "3")); err != nil {
		t.Fatal(err)
	}
	if err := c.Change(ctx, uri, 7, Edit(0, 0, 0, 0, "")); err == nil || !strings.Contains(err.Error(), "at version 2") {
		t.Fatalf("a change at a wrong version: %v", err)
	}
	// The lenses' answer comes after the edit was handled.
	if _, err := c.CodeLens(ctx, uri); err != nil {
		t.Fatal(err)
	}
	done, stop := context.WithCancel(ctx)
	stop()
	err := c.Await(done, ExecutionDone("e999"))
	if err == nil {
		t.Fatal("Await met an expectation nothing can meet")
	}
	for _, want := range []string{"unmet: execution e999 done", "context canceled", "file:///tmp/dump.py version 2", "  2| y = 3", "pending server requests:", "messages ("} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the failure lacks %q:\n%s", want, err)
		}
	}
	if err := c.Await(ctx, Not(Sent("textDocument/publishDiagnostics"))); err != nil {
		t.Fatal(err)
	}
	if err := c.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Serve: %v", err)
	}
}
