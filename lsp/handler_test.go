package lsp_test

import (
	"errors"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	lspuri "go.lsp.dev/uri"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

// rpcCode returns the JSON-RPC error code of err, or 0.
func rpcCode(err error) jsonrpc2.Code {
	var e *jsonrpc2.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// alive checks the connection still answers.
func alive(t *testing.T, c *lsptest.Client, uri string) {
	t.Helper()
	if _, err := c.CodeLens(testCtx(t), uri); err != nil {
		t.Fatalf("the server stopped answering: %v", err)
	}
}

func TestUnknownMessages(t *testing.T) {
	c := start(t, lsptest.VSCode, nil)
	ctx := testCtx(t)
	uri := open(t, c, "unknown.py", "x = 1\n")
	// Unknown methods and params of the wrong shape are what this test
	// sends, so they go as raw JSON.
	for _, m := range []string{"custom/notification", protocol.MethodSetTrace, "$/unknown", protocol.MethodTextDocumentDidSave, protocol.MethodWorkspaceDidChangeWatchedFiles} {
		if err := c.Notify(ctx, m, jsonrpc2.RawMessage(`{"x":1}`)); err != nil {
			t.Fatal(err)
		}
	}
	// A notification the server knows, with params it cannot decode.
	if err := c.Notify(ctx, protocol.MethodTextDocumentDidChange, jsonrpc2.RawMessage(`[1,2]`)); err != nil {
		t.Fatal(err)
	}
	alive(t, c, uri)
	for _, m := range []string{"custom/request", "$/unknownRequest", protocol.MethodTextDocumentHover} {
		err := c.Call(ctx, m, jsonrpc2.RawMessage(`{}`), nil)
		if rpcCode(err) != jsonrpc2.MethodNotFound {
			t.Errorf("%s: got %v, want MethodNotFound", m, err)
		}
	}
	alive(t, c, uri)
}

func TestPanicInHandlerKeepsConnection(t *testing.T) {
	defer lsp.SetTestHook(func(method string) {
		if method == "textDocument/codeLens" || method == "textDocument/didSave" {
			panic("boom")
		}
	})()
	c := start(t, lsptest.Neovim07, nil)
	ctx := testCtx(t)
	uri := open(t, c, "panic.py", "x = 1\n")
	if err := c.Server().DidSave(ctx, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: lspuri.URI(uri)}}); err != nil {
		t.Fatal(err)
	}
	_, err := c.CodeLens(ctx, uri)
	if rpcCode(err) != jsonrpc2.InternalError || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("got %v, want an InternalError naming the panic", err)
	}
	if ex := run(t, c, contract.CmdRunCell, lsptest.LineArg(uri, 0)); len(ex) != 1 || ex[0].Status != contract.StatusOK {
		t.Fatalf("after a panic: %+v", ex)
	}
}

func TestLifecycleErrors(t *testing.T) {
	c := lsptest.Pipe(lsp.Options{Logger: testLogger()})
	defer c.Close()
	ctx := testCtx(t)
	_, err := c.CodeLens(ctx, "file:///x.py")
	if rpcCode(err) != -32002 {
		t.Fatalf("before initialize: got %v, want ServerNotInitialized (-32002)", err)
	}
	if _, err := c.Initialize(ctx, lsptest.VSCode, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Initialize(ctx, lsptest.VSCode, nil); rpcCode(err) != jsonrpc2.InvalidRequest {
		t.Fatalf("second initialize: got %v, want InvalidRequest", err)
	}
	if err := c.Server().Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = c.CodeLens(ctx, "file:///x.py")
	if rpcCode(err) != jsonrpc2.InvalidRequest {
		t.Fatalf("after shutdown: got %v, want InvalidRequest", err)
	}
	if err := c.Server().Exit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatalf("Serve after shutdown+exit: %v", err)
	}
}

func TestExitWithoutShutdown(t *testing.T) {
	c := lsptest.Pipe(lsp.Options{Logger: testLogger()})
	ctx := testCtx(t)
	if _, err := c.Initialize(ctx, lsptest.VSCode, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Server().Exit(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); !errors.Is(err, lsp.ErrExitWithoutShutdown) {
		t.Fatalf("Serve: got %v, want ErrExitWithoutShutdown", err)
	}
}
