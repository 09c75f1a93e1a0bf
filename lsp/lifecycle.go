package lsp

import (
	"context"
	"time"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/internal/proc"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"
)

// parentPollInterval is how often the editor process is checked.
const parentPollInterval = 500 * time.Millisecond

// Initialize records the client's capabilities and workspace, applies its
// initializationOptions and advertises the server's capabilities.
func (s *server) Initialize(_ context.Context, p *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	s.mu.Lock()
	if s.state != stateUninitialized {
		s.mu.Unlock()
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already received")
	}
	s.state = stateInitialized
	s.caps = capsOf(p.Capabilities)
	s.folders = workspaceFolders(p)
	s.mu.Unlock()

	if len(p.InitializationOptions) > 0 {
		s.applySettings(p.InitializationOptions)
	}
	if s.opts.ClientProcessID == 0 && p.ProcessID != nil && *p.ProcessID > 0 {
		s.watchParent(int(*p.ProcessID))
	}
	s.log.Info("initialize", zap.String("client", p.ClientInfo.Name), zap.Any("caps", s.clientCaps()))

	sync := protocol.TextDocumentSyncKindIncremental
	yes, no := true, false
	res := &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			PositionEncoding:       protocol.PositionEncodingKindUTF16,
			TextDocumentSync:       &protocol.TextDocumentSyncOptions{OpenClose: &yes, Change: &sync},
			CodeLensProvider:       &protocol.CodeLensOptions{ResolveProvider: &no},
			ExecuteCommandProvider: protocol.ExecuteCommandOptions{Commands: contract.CommandIDs},
			InlayHintProvider:      &protocol.InlayHintOptions{ResolveProvider: &no},
		},
		ServerInfo: protocol.ServerInfo{Name: "backyard-ls"},
	}
	if s.opts.Version != "" {
		res.ServerInfo.Version = protocol.NewOptional(s.opts.Version)
	}
	return res, nil
}

// clientCaps are the client capabilities the server acts on.
type clientCaps struct {
	codeLensRefresh  bool // workspace.codeLens.refreshSupport
	inlayHintRefresh bool // workspace.inlayHint.refreshSupport
	workDoneProgress bool // window.workDoneProgress
	showDocument     bool // window.showDocument.support
	configuration    bool // workspace.configuration: settings are pulled
	applyEdit        bool // workspace.applyEdit
	// workspace.workspaceEdit.documentChanges: edits name the document
	// version they apply to.
	versionedEdits bool
	// workspace.didChangeConfiguration.dynamicRegistration: the server
	// registers for change notifications (then pulls).
	configChangeRegistration bool
	// experimental.backyard: what the client does beyond LSP.
	backyard contract.ClientCapabilities
}

func capsOf(c protocol.ClientCapabilities) clientCaps {
	var caps clientCaps
	if w := c.Workspace; w != nil {
		caps.codeLensRefresh = w.CodeLens != nil && isTrue(w.CodeLens.RefreshSupport)
		caps.inlayHintRefresh = w.InlayHint != nil && isTrue(w.InlayHint.RefreshSupport)
		caps.configuration = isTrue(w.Configuration)
		caps.applyEdit = isTrue(w.ApplyEdit)
		caps.versionedEdits = w.WorkspaceEdit != nil && isTrue(w.WorkspaceEdit.DocumentChanges)
		caps.configChangeRegistration = w.DidChangeConfiguration != nil && isTrue(w.DidChangeConfiguration.DynamicRegistration)
	}
	if w := c.Window; w != nil {
		caps.workDoneProgress = isTrue(w.WorkDoneProgress)
		caps.showDocument = w.ShowDocument != nil && w.ShowDocument.Support
	}
	if len(c.Experimental) > 0 {
		var x struct {
			Backyard contract.ClientCapabilities `json:"backyard"`
		}
		if err := (codec{}).Unmarshal(c.Experimental, &x); err == nil {
			caps.backyard = x.Backyard
		}
	}
	return caps
}

func isTrue(b *bool) bool { return b != nil && *b }

// workspaceFolders are the local paths of the workspace folders (or of the
// root uri), in order; none when there is none.
func workspaceFolders(p *protocol.InitializeParams) []string {
	var uris []uri.URI
	//lint:ignore SA1019 clients without workspace folders send only rootUri
	root := p.RootURI
	if f, ok := p.WorkspaceFolders.Get(); ok && len(f) > 0 {
		for _, w := range f {
			uris = append(uris, w.URI)
		}
	} else if root != nil {
		uris = append(uris, *root)
	}
	var out []string
	for _, u := range uris {
		if u.Scheme() == "file" {
			out = append(out, u.FsPath())
		}
	}
	return out
}

// Initialized starts reading settings by workspace/configuration when the
// client offers it.
func (s *server) Initialized(context.Context, *protocol.InitializedParams) error {
	s.startPulling()
	return nil
}

// Shutdown closes every kernel; the process lives on until exit.
func (s *server) Shutdown(context.Context) error {
	s.mu.Lock()
	s.state = stateShutdown
	s.mu.Unlock()
	s.nb.CloseAll()
	return nil
}

// Exit ends Serve.
func (s *server) Exit(context.Context) error {
	s.mu.Lock()
	clean := s.state == stateShutdown
	s.mu.Unlock()
	if clean {
		s.finish(nil)
	} else {
		s.finish(ErrExitWithoutShutdown)
	}
	return nil
}

// watchParent makes the server exit when process pid dies (it polls, as
// the process need not be our parent).
func (s *server) watchParent(pid int) {
	s.mu.Lock()
	if s.watching {
		s.mu.Unlock()
		return
	}
	s.watching = true
	s.mu.Unlock()
	s.log.Info("watching client process", zap.Int("pid", pid))
	go func() {
		t := time.NewTicker(parentPollInterval)
		defer t.Stop()
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-t.C:
				if !proc.Alive(pid) {
					s.log.Info("client process is gone", zap.Int("pid", pid))
					s.finish(ErrClientGone)
					return
				}
			}
		}
	}()
}
