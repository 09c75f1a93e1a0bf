package lsp

import (
	"strconv"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// diagnosticSource names backyard's diagnostics.
const diagnosticSource = "backyard"

// publishDiagnostics publishes the document's runtime errors (one per cell
// or selection whose last run failed, on the line its traceback points at)
// when they differ from what was last published. A cell's diagnostic goes
// when it runs clean or its code changes.
func (s *server) publishDiagnostics(d *document) {
	d.pubMu.Lock()
	defer d.pubMu.Unlock()
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return
	}
	snap := d.snapshotLocked()
	d.results.remap(snap)
	diags := d.diagnostics(snap)
	key := diagnosticsKey(diags)
	if key == d.diagKey {
		d.mu.Unlock()
		return
	}
	d.diagKey = key
	d.mu.Unlock()
	if diags == nil {
		diags = []protocol.Diagnostic{}
	}
	s.notify("textDocument/publishDiagnostics", &protocol.PublishDiagnosticsParams{URI: uri.URI(d.uri), Diagnostics: diags})
}

// diagnostics computes the document's diagnostics; d.mu is held and the
// results are mapped onto snap.
func (d *document) diagnostics(snap *snapshot) []protocol.Diagnostic {
	var out []protocol.Diagnostic
	add := func(line int, x *Execution) {
		if line < 0 || line >= snap.LineCount() {
			return
		}
		out = append(out, protocol.Diagnostic{
			Range:    snap.lineRange(line),
			Severity: protocol.DiagnosticSeverityError,
			Source:   protocol.NewOptional(diagnosticSource),
			Message:  protocol.String(errorMessage(x.Error)),
		})
	}
	for _, c := range d.results.cells {
		if c.state == stateDone && !c.stale && c.diagLine >= 0 && showsError(c.exec) {
			add(c.startLine+c.diagLine, c.exec)
		}
	}
	for _, r := range d.results.ranges {
		if r.diagLine >= 0 && showsError(r.exec) {
			add(r.startLine+r.diagLine, r.exec)
		}
	}
	return out
}

func diagnosticsKey(diags []protocol.Diagnostic) string {
	if len(diags) == 0 {
		return ""
	}
	var b strings.Builder
	for _, d := range diags {
		b.WriteString(strconv.Itoa(int(d.Range.Start.Line)))
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(int(d.Range.Start.Character)))
		b.WriteByte('-')
		b.WriteString(strconv.Itoa(int(d.Range.End.Character)))
		b.WriteByte(' ')
		if m, ok := d.Message.(protocol.String); ok {
			b.WriteString(string(m))
		}
		b.WriteByte('\n')
	}
	return b.String()
}
