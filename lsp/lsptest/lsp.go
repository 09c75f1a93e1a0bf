package lsptest

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp"
)

// Capabilities chooses the client capabilities Initialize declares.
type Capabilities struct {
	CodeLensRefresh  bool // workspace.codeLens.refreshSupport (VS Code; not Neovim 0.7)
	InlayHintRefresh bool // workspace.inlayHint.refreshSupport
	InlayHints       bool // textDocument.inlayHint
	WorkDoneProgress bool // window.workDoneProgress (both)
	// Configuration: workspace.configuration, the server pulls settings
	// (answered from SetSettings).
	Configuration bool
	// ConfigurationRegistration:
	// workspace.didChangeConfiguration.dynamicRegistration.
	ConfigurationRegistration bool
	// Input: experimental.backyard.input, the client answers backyard/input
	// (both editors do).
	Input bool
	// ApplyEdit: workspace.applyEdit, the client applies the server's
	// edits to its documents and sends didChange, as both editors do.
	ApplyEdit bool
	// VersionedEdits: workspace.workspaceEdit.documentChanges, edits name
	// the version they apply to (vscode-languageclient; not Neovim 0.7).
	VersionedEdits bool
	// ShowDocument: window.showDocument.support, the client opens the
	// files the server shows (vscode-languageclient, Neovim 0.8+).
	ShowDocument bool
}

// VSCode are the capabilities of vscode-languageclient that the contract
// cases declare (testdata/contract/README.md).
var VSCode = Capabilities{CodeLensRefresh: true, InlayHintRefresh: true, InlayHints: true, WorkDoneProgress: true}

// Neovim07 are those of Neovim 0.7.2: no code lens capability at all, no
// inlay hints, work-done progress yes.
var Neovim07 = Capabilities{WorkDoneProgress: true}

// Protocol is caps as LSP client capabilities.
func (caps Capabilities) Protocol() protocol.ClientCapabilities {
	yes := func(b bool) *bool { return &b }
	c := protocol.ClientCapabilities{
		Workspace: &protocol.WorkspaceClientCapabilities{
			CodeLens:  &protocol.CodeLensWorkspaceClientCapabilities{RefreshSupport: yes(caps.CodeLensRefresh)},
			InlayHint: &protocol.InlayHintWorkspaceClientCapabilities{RefreshSupport: yes(caps.InlayHintRefresh)},
		},
		Window: &protocol.WindowClientCapabilities{WorkDoneProgress: yes(caps.WorkDoneProgress)},
	}
	if caps.InlayHints {
		c.TextDocument = &protocol.TextDocumentClientCapabilities{InlayHint: &protocol.InlayHintClientCapabilities{}}
	}
	if caps.Configuration {
		c.Workspace.Configuration = yes(true)
	}
	if caps.ConfigurationRegistration {
		c.Workspace.DidChangeConfiguration = &protocol.DidChangeConfigurationClientCapabilities{DynamicRegistration: yes(true)}
	}
	if caps.ApplyEdit {
		c.Workspace.ApplyEdit = yes(true)
	}
	if caps.VersionedEdits {
		c.Workspace.WorkspaceEdit = &protocol.WorkspaceEditClientCapabilities{DocumentChanges: yes(true)}
	}
	if caps.ShowDocument {
		c.Window.ShowDocument = &protocol.ShowDocumentClientCapabilities{Support: true}
	}
	if caps.Input {
		c.Experimental = protocol.LSPAny(`{"backyard":{"input":true}}`)
	}
	return c
}

// Initialize sends initialize (processId and rootUri null) and
// initialized. options are the initializationOptions (nil for none).
func (c *Client) Initialize(ctx context.Context, caps Capabilities, options any) (*protocol.InitializeResult, error) {
	return c.InitializeIn(ctx, caps, options)
}

// InitializeIn is Initialize by an editor opened on folders (host paths):
// the workspace folders, the first one the rootUri.
func (c *Client) InitializeIn(ctx context.Context, caps Capabilities, options any, folders ...string) (*protocol.InitializeResult, error) {
	p := &protocol.InitializeParams{Capabilities: caps.Protocol()}
	if len(folders) > 0 {
		var ws []protocol.WorkspaceFolder
		for _, f := range folders {
			ws = append(ws, protocol.WorkspaceFolder{URI: uri.File(f), Name: filepath.Base(f)})
		}
		root := uri.File(folders[0])
		//lint:ignore SA1019 editors still send rootUri beside the folders
		p.RootURI = &root
		p.WorkspaceFolders = protocol.NewNullable(ws)
	}
	if options != nil {
		raw, err := encode(options)
		if err != nil {
			return nil, err
		}
		p.InitializationOptions = raw
	}
	res, err := c.server.Initialize(ctx, p)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.state.Initialize = res
	c.changedLocked()
	c.mu.Unlock()
	return res, c.server.Initialized(ctx, &protocol.InitializedParams{})
}

// encode encodes v as the server encodes it (raw JSON passes as is).
func encode(v any) (jsontext.Value, error) {
	b, err := lsp.Codec{}.Marshal(v)
	return jsontext.Value(b), err
}

// CodeLens requests textDocument/codeLens.
func (c *Client) CodeLens(ctx context.Context, docURI string) ([]protocol.CodeLens, error) {
	return c.server.CodeLens(ctx, &protocol.CodeLensParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.URI(docURI)}})
}

// InlayHint requests textDocument/inlayHint for lines [0, lines).
func (c *Client) InlayHint(ctx context.Context, docURI string, lines int) ([]protocol.InlayHint, error) {
	return c.server.InlayHint(ctx, &protocol.InlayHintParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.URI(docURI)},
		Range:        protocol.Range{End: protocol.Position{Line: uint32(lines)}},
	})
}

// ExecuteCommand sends workspace/executeCommand with arg as its one
// argument (a contract argument type, or any JSON value to send a wrong
// one) and decodes the result into an R (e.g. *contract.RunResult).
func ExecuteCommand[R any](ctx context.Context, c *Client, command string, arg any) (R, error) {
	var r R
	err := c.Command(ctx, command, arg, &r)
	return r, err
}

// Command sends workspace/executeCommand with one argument and decodes the
// result into result (a pointer; nil discards).
func (c *Client) Command(ctx context.Context, command string, arg, result any) error {
	raw, err := encode(arg)
	if err != nil {
		return fmt.Errorf("%s: encoding the argument: %w", command, err)
	}
	return c.ExecuteCommandParams(ctx, &protocol.ExecuteCommandParams{Command: command, Arguments: []protocol.LSPAny{raw}}, result)
}

// ExecuteCommandParams sends workspace/executeCommand with p as it is (any
// number of arguments, a workDoneToken) and decodes the result into result.
func (c *Client) ExecuteCommandParams(ctx context.Context, p *protocol.ExecuteCommandParams, result any) error {
	res, err := c.server.ExecuteCommand(ctx, p)
	if err != nil {
		return err
	}
	return decodeResult(res, result)
}

// Run sends a run command (backyard.runCell, runAll, …).
func (c *Client) Run(ctx context.Context, command string, arg any) (*contract.RunResult, error) {
	return ExecuteCommand[*contract.RunResult](ctx, c, command, arg)
}

// LineArg names the cell at a line of uri (runCell, runAbove, runBelow).
func LineArg(docURI string, line int) *contract.LineArg {
	l := uint32(line)
	return &contract.LineArg{URI: docURI, Line: &l}
}

// AllArg names a document (runAll).
func AllArg(docURI string) *contract.AllArg { return &contract.AllArg{URI: docURI} }

// RangeArg names a selection of uri (runRange).
func RangeArg(docURI string, startLine, startChar, endLine, endChar int) *contract.RangeArg {
	return &contract.RangeArg{URI: docURI, Range: &contract.Range{
		Start: contract.Position{Line: uint32(startLine), Character: uint32(startChar)},
		End:   contract.Position{Line: uint32(endLine), Character: uint32(endChar)},
	}}
}

// URIArg names a document (interrupt, restart, kernelInfo, variables).
func URIArg(docURI string) *contract.URIArg { return &contract.URIArg{URI: docURI} }

// NoWait is a run argument's "wait": false.
func NoWait() *bool { b := false; return &b }

// ChangeConfiguration sends workspace/didChangeConfiguration with settings
// (nil sends null: a client that is pulled from says only "changed").
func (c *Client) ChangeConfiguration(ctx context.Context, settings any) error {
	raw, err := encode(settings)
	if err != nil {
		return err
	}
	return c.server.DidChangeConfiguration(ctx, &protocol.DidChangeConfigurationParams{Settings: raw})
}

// Shutdown sends shutdown then exit.
func (c *Client) Shutdown(ctx context.Context) error {
	if err := c.server.Shutdown(ctx); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return c.server.Exit(ctx)
}

// ExecutionStates returns the backyard/executionState notifications of
// execution id, in order.
func (c *Client) ExecutionStates(id string) []*contract.ExecutionStateParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]*contract.ExecutionStateParams(nil), c.state.Executions[id]...)
}

// Execution returns the record of execution id, nil until it is done (and
// for one that was dropped).
func (c *Client) Execution(id string) *contract.Execution {
	st := c.ExecutionStates(id)
	if len(st) == 0 {
		return nil
	}
	return st[len(st)-1].Execution
}

// PublishedDiagnostics returns the last diagnostics published for uri,
// and false when none were.
func (c *Client) PublishedDiagnostics(docURI string) ([]protocol.Diagnostic, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d, ok := c.state.Diagnostics[docURI]
	return d, ok
}

// Requests counts the server's requests of method so far.
func (c *Client) Requests(method string) int {
	n := 0
	for _, m := range c.Messages() {
		if m.Call && m.Method == method {
			n++
		}
	}
	return n
}

// ParamsOf returns the decoded params (see Message.Value) of the messages
// of method received so far, in order: ParamsOf[contract.OutputParams](c,
// contract.MethodOutput).
func ParamsOf[T any](c *Client, method string) []*T {
	var out []*T
	for _, m := range c.Messages() {
		if p, ok := m.Value.(*T); ok && m.Method == method {
			out = append(out, p)
		}
	}
	return out
}

// WorkDone returns a copy of the work-done progress of token, false when
// there is none.
func (c *Client) WorkDone(token string) (Work, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	w, ok := c.state.Work[token]
	if !ok {
		return Work{}, false
	}
	return *w, true
}
