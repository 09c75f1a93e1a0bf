package lsptest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// Document is an open document as the client holds it.
type Document struct {
	URI        string
	LanguageID string
	// Version is the version of the last didOpen or didChange sent.
	Version int32
	Text    string
}

// Open sends didOpen of a Python document at version 1.
func (c *Client) Open(ctx context.Context, docURI, text string) error {
	c.mu.Lock()
	if _, open := c.state.Documents[docURI]; open {
		c.mu.Unlock()
		return fmt.Errorf("open %s: already open", docURI)
	}
	d := &Document{URI: docURI, LanguageID: "python", Version: 1, Text: text}
	c.state.Documents[docURI] = d
	c.changedLocked()
	c.mu.Unlock()
	return c.server.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: uri.URI(docURI), LanguageID: protocol.LanguageKind(d.LanguageID), Version: d.Version, Text: text,
	}})
}

// Edit is an incremental change: replace lines/characters (UTF-16 code
// units) [start, end) with text.
func Edit(startLine, startChar, endLine, endChar int, text string) *protocol.TextDocumentContentChangePartial {
	return &protocol.TextDocumentContentChangePartial{
		Range: protocol.Range{
			Start: protocol.Position{Line: uint32(startLine), Character: uint32(startChar)},
			End:   protocol.Position{Line: uint32(endLine), Character: uint32(endChar)},
		},
		Text: text,
	}
}

// Replace is a change of the whole text.
func Replace(text string) *protocol.TextDocumentContentChangeWholeDocument {
	return &protocol.TextDocumentContentChangeWholeDocument{Text: text}
}

// EditDocument applies changes, in order, to the document's text and sends
// them with didChange at the next version: afterwards Text is what the
// server should hold. A change the client cannot apply (a range that ends
// before it starts) is an error and nothing is sent.
func (c *Client) EditDocument(ctx context.Context, docURI string, changes ...protocol.TextDocumentContentChangeEvent) error {
	return c.Change(ctx, docURI, 0, changes...)
}

// Change is EditDocument for a caller that counts versions: version must
// be the next one (the current one plus 1), or 0 for "the next".
func (c *Client) Change(ctx context.Context, docURI string, version int, changes ...protocol.TextDocumentContentChangeEvent) error {
	c.mu.Lock()
	d, open := c.state.Documents[docURI]
	if !open {
		c.mu.Unlock()
		return fmt.Errorf("change %s: not open", docURI)
	}
	next := d.Version + 1
	if version != 0 && int32(version) != next {
		c.mu.Unlock()
		return fmt.Errorf("change %s: version %d given, the document is at version %d", docURI, version, d.Version)
	}
	text := d.Text
	for _, ch := range changes {
		var err error
		if text, err = ApplyChange(text, ch); err != nil {
			c.mu.Unlock()
			return fmt.Errorf("change %s: %w", docURI, err)
		}
	}
	if c.fullSyncLocked() {
		changes = []protocol.TextDocumentContentChangeEvent{Replace(text)}
	}
	d.Version, d.Text = next, text
	c.changedLocked()
	c.mu.Unlock()
	return c.server.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.URI(docURI)}, Version: next},
		ContentChanges: changes,
	})
}

// fullSyncLocked: the server asked for the whole text on each change.
func (c *Client) fullSyncLocked() bool {
	if c.state.Initialize == nil {
		return false
	}
	switch s := c.state.Initialize.Capabilities.TextDocumentSync.(type) {
	case protocol.TextDocumentSyncKind:
		return s == protocol.TextDocumentSyncKindFull
	case *protocol.TextDocumentSyncOptions:
		return s.Change != nil && *s.Change == protocol.TextDocumentSyncKindFull
	}
	return false
}

// ChangeFull sends didChange replacing the whole text (version: see
// Change).
func (c *Client) ChangeFull(ctx context.Context, docURI string, version int, text string) error {
	return c.Change(ctx, docURI, version, Replace(text))
}

// CloseDoc sends didClose; the client forgets the document.
func (c *Client) CloseDoc(ctx context.Context, docURI string) error {
	c.mu.Lock()
	delete(c.state.Documents, docURI)
	c.changedLocked()
	c.mu.Unlock()
	return c.server.DidClose(ctx, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: uri.URI(docURI)}})
}

// Text returns an open document's text as the client holds it.
func (c *Client) Text(docURI string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state.Text(docURI)
}

// Version returns an open document's version (0 when it is not open).
func (c *Client) Version(docURI string) int32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	if d, ok := c.state.Documents[docURI]; ok {
		return d.Version
	}
	return 0
}

// ApplyChange applies one content change to text as LSP defines it:
// positions count UTF-16 code units; lines end at "\n", "\r\n" or "\r"; a
// character past the end of its line means the end of the line, a line
// past the last one the end of the text.
func ApplyChange(text string, change protocol.TextDocumentContentChangeEvent) (string, error) {
	switch ch := change.(type) {
	case *protocol.TextDocumentContentChangeWholeDocument:
		return ch.Text, nil
	case *protocol.TextDocumentContentChangePartial:
		start, end := offset(text, ch.Range.Start), offset(text, ch.Range.End)
		if end < start {
			return "", fmt.Errorf("range %d:%d-%d:%d ends before it starts", ch.Range.Start.Line, ch.Range.Start.Character, ch.Range.End.Line, ch.Range.End.Character)
		}
		return text[:start] + ch.Text + text[end:], nil
	}
	return "", fmt.Errorf("unknown content change %T", change)
}

// offset is the byte offset of p in text.
func offset(text string, p protocol.Position) int {
	i := 0
	for line := uint32(0); line < p.Line; line++ {
		j := eol(text, i)
		if j == len(text) {
			return len(text)
		}
		i = j + 1
		if text[j] == '\r' && j+1 < len(text) && text[j+1] == '\n' {
			i++
		}
	}
	end := eol(text, i)
	for units := uint32(0); i < end; {
		r, size := utf8.DecodeRuneInString(text[i:end])
		n := uint32(utf16.RuneLen(r))
		if r == utf8.RuneError || n > 2 {
			n = 1
		}
		if units+n > p.Character {
			break
		}
		units += n
		i += size
	}
	return i
}

// eol is the index of the line end at or after i, len(text) when none.
func eol(text string, i int) int {
	for ; i < len(text); i++ {
		if text[i] == '\n' || text[i] == '\r' {
			return i
		}
	}
	return len(text)
}

// applyEdit applies a workspace edit of the server to the open documents,
// each as one didChange, as an editor does; an edit that names another
// version than the document's, or a document that is not open, is refused.
func (c *Client) applyEdit(we protocol.WorkspaceEdit) *protocol.ApplyWorkspaceEditResult {
	type docEdit struct {
		uri     string
		version *int32
		edits   []protocol.TextEdit
	}
	var all []docEdit
	for u, edits := range we.Changes {
		all = append(all, docEdit{uri: string(u), edits: edits})
	}
	for _, ch := range we.DocumentChanges {
		te, ok := ch.(*protocol.TextDocumentEdit)
		if !ok {
			return refused("only text document edits are supported")
		}
		d := docEdit{uri: string(te.TextDocument.URI), version: te.TextDocument.Version}
		for _, e := range te.Edits {
			switch e := e.(type) {
			case *protocol.TextEdit:
				d.edits = append(d.edits, *e)
			case *protocol.AnnotatedTextEdit:
				d.edits = append(d.edits, e.TextEdit)
			default:
				return refused(fmt.Sprintf("unsupported edit %T", e))
			}
		}
		all = append(all, d)
	}
	ctx := context.Background()
	for _, d := range all {
		next := 0 // "the next version", whatever it is
		if d.version != nil {
			next = int(*d.version) + 1
		}
		// The edits refer to the text before any of them: applied from the
		// end, each as a change of its own.
		sorted := slices.Clone(d.edits)
		slices.SortStableFunc(sorted, func(a, b protocol.TextEdit) int {
			return -cmpPosition(a.Range.Start, b.Range.Start)
		})
		changes := make([]protocol.TextDocumentContentChangeEvent, len(sorted))
		for i, e := range sorted {
			changes[i] = &protocol.TextDocumentContentChangePartial{Range: e.Range, Text: e.NewText}
		}
		if err := c.Change(ctx, d.uri, next, changes...); err != nil {
			return refused(err.Error())
		}
	}
	return &protocol.ApplyWorkspaceEditResult{Applied: true}
}

func refused(reason string) *protocol.ApplyWorkspaceEditResult {
	return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason}
}

func cmpPosition(a, b protocol.Position) int {
	if a.Line != b.Line {
		return cmp.Compare(a.Line, b.Line)
	}
	return cmp.Compare(a.Character, b.Character)
}
