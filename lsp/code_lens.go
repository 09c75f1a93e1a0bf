package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/notebook"
)

// CodeLens answers textDocument/codeLens: on each code cell's header line
// (the first line of an implicit first cell) "▶ Run Cell", "Run Above"
// (not on the first code cell), "Run Below", and after a run a status lens
// such as "[3] ✓ 1.2 ms · monty" or "[4] ✗ ZeroDivisionError" (with the
// files the run changed, "· +1 ~2"), suffixed
// "(stale)" once the cell's code is not the code that ran (or the kernel
// was restarted since). Lens commands carry one argument {uri, line}; the
// status lens has an empty command (a label).
//
// Lenses do not depend on the client's textDocument.codeLens capability:
// Neovim 0.7 asks for lenses without declaring it.
func (s *server) CodeLens(_ context.Context, p *protocol.CodeLensParams) ([]protocol.CodeLens, error) {
	lenses := []protocol.CodeLens{}
	d := s.nb.Document(string(p.TextDocument.URI))
	if d == nil {
		return lenses, nil
	}
	quri, _ := json.Marshal(d.URI())
	for i, c := range d.Cells() {
		line := c.LensLine
		rng := protocol.Range{Start: protocol.Position{Line: uint32(line)}, End: protocol.Position{Line: uint32(line)}}
		add := func(title, cmd string, args []protocol.LSPAny) {
			lenses = append(lenses, protocol.CodeLens{Range: rng, Command: protocol.Command{Title: title, Command: cmd, Arguments: args}})
		}
		args := []protocol.LSPAny{lensArg(quri, line)}
		add("▶ Run Cell", contract.CmdRunCell, args)
		if i > 0 {
			add("Run Above", contract.CmdRunAbove, args)
		}
		add("Run Below", contract.CmdRunBelow, args)
		if c.Ran {
			if t := statusTitle(c); t != "" {
				add(t, "", nil)
			}
		}
	}
	return lenses, nil
}

func lensArg(quotedURI []byte, line int) protocol.LSPAny {
	b := make([]byte, 0, len(quotedURI)+24)
	b = append(b, `{"uri":`...)
	b = append(b, quotedURI...)
	b = append(b, `,"line":`...)
	b = strconv.AppendInt(b, int64(line), 10)
	return append(b, '}')
}

// statusTitle is a cell's status lens.
func statusTitle(c notebook.CellStatus) string {
	switch c.State {
	case contract.PhaseQueued:
		return "[ ] queued"
	case contract.PhaseRunning:
		return "[*] running…"
	}
	x := c.Exec
	if x == nil {
		return ""
	}
	count := "[ ]"
	if x.ExecutionCount > 0 {
		count = "[" + strconv.Itoa(x.ExecutionCount) + "]"
	}
	var t string
	switch x.Status {
	case contract.StatusOK:
		t = fmt.Sprintf("%s ✓ %s · %s", count, formatDuration(x.DurationMs), backendLabel(x))
	case contract.StatusInterrupted:
		t = count + " ■ interrupted"
	case contract.StatusTimeout:
		t = count + " ⏱ timed out"
	case contract.StatusCrashed:
		t = count + " ✗ kernel crashed"
	default:
		name := "error"
		if x.Error != nil {
			name = x.Error.EName
		}
		t = count + " ✗ " + name
	}
	if f := notebook.FileSummary(x.Files); f != "" {
		t += " · " + f
	}
	if c.Stale {
		t += " (stale)"
	}
	return t
}

func backendLabel(x *contract.Execution) string {
	if x.Runtime == "" || x.Runtime == x.Backend {
		return x.Backend
	}
	return x.Backend + "/" + x.Runtime
}

// formatDuration renders milliseconds for a person: "0.04 ms", "1.2 ms",
// "120 ms", "1.5 s", "2 min 5 s".
func formatDuration(ms float64) string {
	switch {
	case ms < 1:
		return strconv.FormatFloat(ms, 'f', 2, 64) + " ms"
	case ms < 10:
		return strconv.FormatFloat(ms, 'f', 1, 64) + " ms"
	case ms < 1000:
		return strconv.FormatFloat(ms, 'f', 0, 64) + " ms"
	case ms < 60_000:
		return strconv.FormatFloat(ms/1000, 'f', 1, 64) + " s"
	}
	sec := int(ms / 1000)
	return fmt.Sprintf("%d min %d s", sec/60, sec%60)
}
