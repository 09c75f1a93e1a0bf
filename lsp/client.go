package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/notebook"
)

// client is the typed face of the editor: its calls (the library's
// ClientDispatcher) and the notifications the server sends, which go to
// the write coalescer and leave with the next response (or within its
// delay) instead of one write each.
type client struct {
	protocol.Client
	w   *coalescer
	log *zap.Logger
}

func newClient(conn jsonrpc2.Conn, w *coalescer, log *zap.Logger) *client {
	return &client{Client: protocol.ClientDispatcher(conn), w: w, log: log}
}

// notify queues a notification.
func (c *client) notify(method string, params any) {
	raw, err := codec{}.Marshal(params)
	if err != nil {
		c.log.Error("cannot encode a notification", zap.String("method", method), zap.Error(err))
		return
	}
	c.w.notify(method, raw)
}

// PublishDiagnostics implements protocol.Client, coalesced.
func (c *client) PublishDiagnostics(_ context.Context, p *protocol.PublishDiagnosticsParams) error {
	c.notify(protocol.MethodTextDocumentPublishDiagnostics, p)
	return nil
}

// ShowMessage implements protocol.Client, coalesced.
func (c *client) ShowMessage(_ context.Context, p *protocol.ShowMessageParams) error {
	c.notify(protocol.MethodWindowShowMessage, p)
	return nil
}

// Progress implements protocol.Client, coalesced.
func (c *client) Progress(_ context.Context, p *protocol.ProgressParams) error {
	c.notify(protocol.MethodProgress, p)
	return nil
}

// Output sends backyard/output.
func (c *client) Output(p *contract.OutputParams) { c.notify(contract.MethodOutput, p) }

// Display sends backyard/display.
func (c *client) Display(p *contract.DisplayParams) { c.notify(contract.MethodDisplay, p) }

// ExecutionState sends backyard/executionState.
func (c *client) ExecutionState(p *contract.ExecutionStateParams) {
	c.notify(contract.MethodExecutionState, p)
}

// KernelState sends backyard/kernelState.
func (c *client) KernelState(p *contract.KernelStateParams) { c.notify(contract.MethodKernelState, p) }

// showMessage sends window/showMessage (and logs it).
func (s *server) showMessage(typ protocol.MessageType, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.log.Info("showMessage", zap.String("message", msg))
	_ = s.client.ShowMessage(s.ctx, &protocol.ShowMessageParams{Type: typ, Message: msg})
}

// events is what the notebook tells the server, forwarded to the client.
type events struct{ s *server }

func (e events) Output(p *contract.OutputParams) { e.s.client.Output(p) }

func (e events) Display(p *contract.DisplayParams) { e.s.client.Display(p) }

func (e events) ExecutionState(p *contract.ExecutionStateParams) {
	s := e.s
	s.client.ExecutionState(p)
	// Show "running…" only for cells that take a while: most are done
	// before a refreshed lens could be drawn.
	switch p.State {
	case contract.PhaseRunning:
		if s.clientCaps().codeLensRefresh {
			s.running.Store(p.ExecutionID, time.AfterFunc(runningLensDelay, s.refreshLenses))
		}
	case contract.PhaseDone:
		if t, ok := s.running.LoadAndDelete(p.ExecutionID); ok {
			t.(*time.Timer).Stop()
		}
	}
}

// runningLensDelay is how long a cell runs before its lens shows it.
const runningLensDelay = 200 * time.Millisecond

func (e events) KernelState(p *contract.KernelStateParams) { e.s.client.KernelState(p) }

// Flush writes the notifications a call kept on the read loop holds for
// its response (coalescer.hold): the client reads a run's first ones
// while the kernel runs it. Those that follow wait for the response.
func (e events) Flush() { e.s.stream.flush() }

func (e events) Diagnostics(d *notebook.Document) { e.s.publishDiagnostics(d) }

func (e events) Refresh(hints bool) {
	e.s.refreshLenses()
	if hints {
		e.s.refreshInlayHints()
	}
}

func (e events) StartProgress(title string, cancel func()) notebook.Progress {
	if t := e.s.startProgress(title, cancel); t != nil {
		return t
	}
	return nil
}

func (e events) Message(level notebook.Level, text string) {
	typ := map[notebook.Level]protocol.MessageType{notebook.Info: protocol.MessageTypeInfo, notebook.Warning: protocol.MessageTypeWarning, notebook.Error: protocol.MessageTypeError}[level]
	e.s.showMessage(typ, "%s", text)
}

// Edit asks the client to apply an edit of a document (a cell whose run
// set its next input), with workspace/applyEdit when it advertises it. The
// request goes from a goroutine of its own: the answer comes through the
// read loop, which the execution may hold. An edit names the version it
// applies to, so the editor refuses it after a change; a client that takes
// no versions gets it only while the document is at that version.
func (e events) Edit(docURI string, version int32, edits []notebook.TextEdit) {
	s := e.s
	caps := s.clientCaps()
	if !caps.applyEdit {
		return
	}
	te := make([]protocol.TextEdit, len(edits))
	for i, ed := range edits {
		te[i] = protocol.TextEdit{Range: lspRange(ed.Range), NewText: ed.Text}
	}
	var we protocol.WorkspaceEdit
	if caps.versionedEdits {
		elems := make([]protocol.TextDocumentEditElement, len(te))
		for i := range te {
			elems[i] = &te[i]
		}
		we.DocumentChanges = []protocol.DocumentChange{&protocol.TextDocumentEdit{
			TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.URI(docURI)}, Version: &version},
			Edits:        elems,
		}}
	} else {
		we.Changes = map[uri.URI][]protocol.TextEdit{uri.URI(docURI): te}
	}
	s.edits.Go(func() {
		if d := s.nb.Document(docURI); d == nil || !caps.versionedEdits && d.Version() != version {
			return
		}
		ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
		defer cancel()
		res, err := s.client.ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Edit: we})
		switch {
		case err != nil:
			s.log.Info("workspace/applyEdit failed", zap.String("uri", docURI), zap.Error(err))
		case res == nil || !res.Applied:
			s.log.Info("the client did not apply an edit", zap.String("uri", docURI), zap.Int32("version", version))
		}
	})
}

// Show asks the client to open a file a run's kernel named (IPython's
// %edit), with window/showDocument when it advertises it: the cursor at
// the payload's line. The request goes from a goroutine of its own, as an
// edit does.
func (e events) Show(docURI, file string, line int) {
	s := e.s
	if !s.clientCaps().showDocument {
		return
	}
	focus := true
	p := &protocol.ShowDocumentParams{URI: uri.File(file), TakeFocus: &focus}
	if line > 0 {
		at := protocol.Position{Line: uint32(line - 1)}
		p.Selection = &protocol.Range{Start: at, End: at}
	}
	s.edits.Go(func() {
		ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
		defer cancel()
		res, err := s.client.ShowDocument(ctx, p)
		switch {
		case err != nil:
			s.log.Info("window/showDocument failed", zap.String("uri", docURI), zap.String("file", file), zap.Error(err))
		case res == nil || !res.Success:
			s.log.Info("the client did not show a document", zap.String("uri", docURI), zap.String("file", file))
		}
	})
}

// errNoInput is the answer for a client that cannot answer input().
var errNoInput = errors.New("the client does not answer backyard/input")

// AnswersInput says whether the client advertises backyard/input.
func (e events) AnswersInput() bool { return e.s.clientCaps().backyard.Input }

// Input asks the client for a line a cell's input() wants, with
// backyard/input, when the client advertises it. A cancelled wait (the cell
// was interrupted) cancels the request.
func (e events) Input(ctx context.Context, p *contract.InputParams) (string, error) {
	s := e.s
	if !s.clientCaps().backyard.Input {
		return "", errNoInput
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	stopWithServer := context.AfterFunc(s.ctx, stop)
	defer stopWithServer()
	var res contract.InputResult
	id, err := s.conn.Call(ctx, contract.RequestInput, p, &res)
	if err != nil {
		if ctx.Err() != nil {
			if n, ok := id.Number(); ok {
				s.client.notify(protocol.MethodCancelRequest, &protocol.CancelParams{ID: protocol.Integer(n)})
			}
		}
		s.log.Info("input request failed", zap.Error(err))
		return "", err
	}
	if res.Value == nil {
		return "", kernel.ErrInputDismissed
	}
	return *res.Value, nil
}

// Install actions offered by window/showMessageRequest.
const (
	actionInstall = "Install"
	actionNotNow  = "Not now"
)

// ConfirmInstall asks the user whether to install packages a document's
// cell needs (setting backyard.autoInstall "ask"). No answer, an error or a
// dismissed message means no.
func (e events) ConfirmInstall(ctx context.Context, docURI string, packages []string) bool {
	params := &protocol.ShowMessageRequestParams{
		Type: protocol.MessageTypeInfo,
		Message: fmt.Sprintf("backyard: %s needs %s, which the container image lacks. Install into the container's package volume (the kernel stays offline)?",
			notebook.DisplayName(docURI), strings.Join(packages, ", ")),
		Actions: []protocol.MessageActionItem{{Title: actionInstall}, {Title: actionNotNow}},
	}
	choice, err := e.s.client.ShowMessageRequest(ctx, params)
	if err != nil {
		e.s.log.Info("install question failed", zap.Error(err))
		return false
	}
	return choice != nil && choice.Title == actionInstall
}

// publishDiagnostics publishes the document's runtime errors when they
// differ from what was last published.
func (s *server) publishDiagnostics(d *notebook.Document) {
	diags, changed := d.Diagnostics()
	if !changed {
		return
	}
	out := make([]protocol.Diagnostic, len(diags))
	for i, x := range diags {
		out[i] = protocol.Diagnostic{
			Range:    lspRange(x.Range),
			Severity: protocol.DiagnosticSeverityError,
			Source:   protocol.NewOptional(diagnosticSource),
			Message:  protocol.String(x.Message),
		}
	}
	_ = s.client.PublishDiagnostics(s.ctx, &protocol.PublishDiagnosticsParams{URI: uri.URI(d.URI()), Diagnostics: out})
}

// diagnosticSource names backyard's diagnostics.
const diagnosticSource = "backyard"

func lspRange(r contract.Range) protocol.Range {
	return protocol.Range{Start: lspPosition(r.Start), End: lspPosition(r.End)}
}

func lspPosition(p contract.Position) protocol.Position {
	return protocol.Position{Line: p.Line, Character: p.Character}
}

func contractRange(r protocol.Range) contract.Range {
	return contract.Range{
		Start: contract.Position{Line: r.Start.Line, Character: r.Start.Character},
		End:   contract.Position{Line: r.End.Line, Character: r.End.Character},
	}
}
