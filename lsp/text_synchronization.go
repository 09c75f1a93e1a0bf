package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// didOpen adds a document. Its kernel is created by the first run.
// Reopening an open URI replaces the text and keeps the kernel.
func (s *server) didOpen(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p protocol.DidOpenTextDocumentParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	uri := string(p.TextDocument.URI)
	s.docs.mu.Lock()
	d := s.docs.m[uri]
	if d == nil {
		d = &document{uri: uri}
		d.sess = newSession(s, d)
		s.docs.m[uri] = d
	}
	s.docs.mu.Unlock()
	d.mu.Lock()
	d.version, d.text, d.snap = p.TextDocument.Version, p.TextDocument.Text, nil
	d.mu.Unlock()
	s.log.Debug("didOpen", zap.String("uri", uri), zap.Int("bytes", len(p.TextDocument.Text)))
	d.sess.schedulePrewarm()
	return nil, nil
}

// didChange applies full or incremental changes in order. When the change
// alters the code of a cell with a result, its status lens turns stale and
// its diagnostic goes.
func (s *server) didChange(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p protocol.DidChangeTextDocumentParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	uri := string(p.TextDocument.URI)
	d := s.docs.get(uri)
	if d == nil {
		return nil, fmt.Errorf("didChange for a document that is not open: %s", uri)
	}
	d.mu.Lock()
	text, err := applyChanges(d.text, p.ContentChanges)
	if err != nil {
		d.mu.Unlock()
		return nil, fmt.Errorf("didChange %s: %w", uri, err)
	}
	d.version, d.text, d.snap = p.TextDocument.Version, text, nil
	changed := false
	if !d.results.empty() {
		changed = d.results.remap(d.snapshotLocked())
	}
	d.mu.Unlock()
	if changed {
		s.publishDiagnostics(d)
		s.refreshLenses()
		s.refreshInlayHints()
	}
	d.sess.schedulePrewarm()
	return nil, nil
}

// didClose closes the document's kernel (a running cell is interrupted,
// queued ones are dropped) and clears its diagnostics.
func (s *server) didClose(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p protocol.DidCloseTextDocumentParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	uri := string(p.TextDocument.URI)
	s.docs.mu.Lock()
	d := s.docs.m[uri]
	delete(s.docs.m, uri)
	s.docs.mu.Unlock()
	if d == nil {
		return nil, nil
	}
	hadDiags := d.markClosed()
	// Closing waits for the kernel; do not hold up the read loop.
	s.closing.Add(1)
	go func() {
		defer s.closing.Done()
		d.sess.close()
		if hadDiags {
			s.notify("textDocument/publishDiagnostics", &protocol.PublishDiagnosticsParams{URI: p.TextDocument.URI, Diagnostics: []protocol.Diagnostic{}})
		}
	}()
	return nil, nil
}

// markClosed marks the document closed and reports whether it had
// diagnostics published.
func (d *document) markClosed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	had := d.diagKey != ""
	d.diagKey = ""
	return had
}
