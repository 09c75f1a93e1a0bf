package lsptest

import (
	"context"
	"encoding/json"
	"fmt"
)

// Capabilities chooses the client capabilities Initialize declares.
type Capabilities struct {
	CodeLensRefresh  bool // workspace.codeLens.refreshSupport (VS Code; not Neovim 0.7)
	InlayHintRefresh bool // workspace.inlayHint.refreshSupport
	InlayHints       bool // textDocument.inlayHint
	WorkDoneProgress bool // window.workDoneProgress (both)
	Input            bool // experimental.backyard.input: answers backyard/input (both editors)
}

// VSCode are the capabilities of vscode-languageclient that matter here.
var VSCode = Capabilities{CodeLensRefresh: true, InlayHintRefresh: true, InlayHints: true, WorkDoneProgress: true}

// Neovim07 are those of Neovim 0.7.2: no code lens capability at all, no
// inlay hints, work-done progress yes.
var Neovim07 = Capabilities{WorkDoneProgress: true}

// Initialize sends initialize and initialized. options are the
// initializationOptions (nil for none).
func (c *Client) Initialize(ctx context.Context, caps Capabilities, options any) (json.RawMessage, error) {
	capObj := map[string]any{
		"workspace": map[string]any{
			"codeLens":  map[string]any{"refreshSupport": caps.CodeLensRefresh},
			"inlayHint": map[string]any{"refreshSupport": caps.InlayHintRefresh},
		},
		"window": map[string]any{"workDoneProgress": caps.WorkDoneProgress},
	}
	if caps.InlayHints {
		capObj["textDocument"] = map[string]any{"inlayHint": map[string]any{}}
	}
	if caps.Input {
		capObj["experimental"] = map[string]any{"backyard": map[string]any{"input": true}}
	}
	params := map[string]any{"processId": nil, "rootUri": nil, "capabilities": capObj}
	if options != nil {
		params["initializationOptions"] = options
	}
	var res json.RawMessage
	if err := c.Call(ctx, "initialize", params, &res); err != nil {
		return nil, err
	}
	return res, c.Notify(ctx, "initialized", map[string]any{})
}

// Open sends didOpen (version 1, language python).
func (c *Client) Open(ctx context.Context, uri, text string) error {
	return c.Notify(ctx, "textDocument/didOpen", map[string]any{
		"textDocument": map[string]any{"uri": uri, "languageId": "python", "version": 1, "text": text},
	})
}

// ChangeFull sends didChange replacing the whole text.
func (c *Client) ChangeFull(ctx context.Context, uri string, version int, text string) error {
	return c.Change(ctx, uri, version, map[string]any{"text": text})
}

// Edit is an incremental change: replace lines/characters [start, end).
func Edit(startLine, startChar, endLine, endChar int, text string) map[string]any {
	return map[string]any{
		"range": map[string]any{
			"start": map[string]any{"line": startLine, "character": startChar},
			"end":   map[string]any{"line": endLine, "character": endChar},
		},
		"text": text,
	}
}

// Change sends didChange with the given content changes.
func (c *Client) Change(ctx context.Context, uri string, version int, changes ...map[string]any) error {
	return c.Notify(ctx, "textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": uri, "version": version},
		"contentChanges": changes,
	})
}

// CloseDoc sends didClose.
func (c *Client) CloseDoc(ctx context.Context, uri string) error {
	return c.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
}

// Command sends workspace/executeCommand with one argument and decodes the
// result into result.
func (c *Client) Command(ctx context.Context, command string, arg, result any) error {
	return c.Call(ctx, "workspace/executeCommand", map[string]any{"command": command, "arguments": []any{arg}}, result)
}

// Lens is a code lens, flattened.
type Lens struct {
	Line    int
	Title   string
	Command string
	Args    []json.RawMessage
}

// CodeLenses requests textDocument/codeLens.
func (c *Client) CodeLenses(ctx context.Context, uri string) ([]Lens, error) {
	var raw []struct {
		Range struct {
			Start struct{ Line int } `json:"start"`
		} `json:"range"`
		Command struct {
			Title     string            `json:"title"`
			Command   string            `json:"command"`
			Arguments []json.RawMessage `json:"arguments"`
		} `json:"command"`
	}
	if err := c.Call(ctx, "textDocument/codeLens", map[string]any{"textDocument": map[string]any{"uri": uri}}, &raw); err != nil {
		return nil, err
	}
	out := make([]Lens, len(raw))
	for i, l := range raw {
		out[i] = Lens{Line: l.Range.Start.Line, Title: l.Command.Title, Command: l.Command.Command, Args: l.Command.Arguments}
	}
	return out, nil
}

// Diagnostic is a published diagnostic, flattened.
type Diagnostic struct {
	Line, StartChar, EndChar int
	Severity                 int
	Source, Message          string
}

// Diagnostics returns the last textDocument/publishDiagnostics for uri,
// and false when there was none.
func (c *Client) Diagnostics(uri string) ([]Diagnostic, bool) {
	msgs := c.Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		if m.Method != "textDocument/publishDiagnostics" {
			continue
		}
		var p struct {
			URI         string `json:"uri"`
			Diagnostics []struct {
				Range struct {
					Start struct{ Line, Character int } `json:"start"`
					End   struct{ Line, Character int } `json:"end"`
				} `json:"range"`
				Severity int    `json:"severity"`
				Source   string `json:"source"`
				Message  string `json:"message"`
			} `json:"diagnostics"`
		}
		if m.Decode(&p) != nil || p.URI != uri {
			continue
		}
		out := make([]Diagnostic, len(p.Diagnostics))
		for j, d := range p.Diagnostics {
			out[j] = Diagnostic{Line: d.Range.Start.Line, StartChar: d.Range.Start.Character, EndChar: d.Range.End.Character, Severity: d.Severity, Source: d.Source, Message: d.Message}
		}
		return out, true
	}
	return nil, false
}

// Shutdown sends shutdown then exit.
func (c *Client) Shutdown(ctx context.Context) error {
	if err := c.Call(ctx, "shutdown", nil, nil); err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	return c.Notify(ctx, "exit", nil)
}

// Method matches messages by method.
func Method(method string) func(Message) bool {
	return func(m Message) bool { return m.Method == method }
}

// ExecutionState matches a backyard/executionState with the given state
// ("" for any) for execution id ("" for any).
func ExecutionState(id, state string) func(Message) bool {
	return func(m Message) bool {
		if m.Method != "backyard/executionState" {
			return false
		}
		var p struct {
			ExecutionID string `json:"executionId"`
			State       string `json:"state"`
		}
		return m.Decode(&p) == nil && (id == "" || p.ExecutionID == id) && (state == "" || p.State == state)
	}
}
