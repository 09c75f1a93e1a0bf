package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/notebook"
)

// DidOpen adds a document. Its kernel is created by the first run.
// Reopening an open URI replaces the text and keeps the kernel.
func (s *server) DidOpen(_ context.Context, p *protocol.DidOpenTextDocumentParams) error {
	s.nb.Open(string(p.TextDocument.URI), p.TextDocument.Version, p.TextDocument.Text)
	s.log.Debug("didOpen", zap.String("uri", string(p.TextDocument.URI)), zap.Int("bytes", len(p.TextDocument.Text)))
	return nil
}

// DidChange applies full or incremental changes in order.
func (s *server) DidChange(_ context.Context, p *protocol.DidChangeTextDocumentParams) error {
	changes := make([]notebook.Change, 0, len(p.ContentChanges))
	for _, c := range p.ContentChanges {
		switch c := c.(type) {
		case *protocol.TextDocumentContentChangeWholeDocument:
			changes = append(changes, notebook.Change{Text: c.Text})
		case *protocol.TextDocumentContentChangePartial:
			r := contractRange(c.Range)
			changes = append(changes, notebook.Change{Range: &r, Text: c.Text})
		case nil:
			return fmt.Errorf("didChange %s: empty content change", p.TextDocument.URI)
		default:
			return fmt.Errorf("didChange %s: unknown content change %T", p.TextDocument.URI, c)
		}
	}
	if err := s.nb.Change(string(p.TextDocument.URI), p.TextDocument.Version, changes); err != nil {
		return fmt.Errorf("didChange %s: %w", p.TextDocument.URI, err)
	}
	return nil
}

// DidClose closes the document's kernel (a running cell is interrupted,
// queued ones are dropped) and clears its diagnostics.
func (s *server) DidClose(_ context.Context, p *protocol.DidCloseTextDocumentParams) error {
	s.nb.Close(string(p.TextDocument.URI))
	return nil
}
