package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/cells"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// codeLens answers textDocument/codeLens: on each code cell's header line
// (the first line of an implicit first cell) "▶ Run Cell", "Run Above"
// (not on the first code cell), "Run Below", and after a run a status lens
// such as "[3] ✓ 1.2 ms · monty" or "[4] ✗ ZeroDivisionError", suffixed
// "(stale)" once the cell's code is not the code that ran (or the kernel
// was restarted since). Lens commands carry one argument {uri, line}; the
// status lens has an empty command (a label).
//
// Lenses do not depend on the client's textDocument.codeLens capability:
// Neovim 0.7 asks for lenses without declaring it.
func (s *server) codeLens(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p protocol.CodeLensParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	d := s.docs.get(string(p.TextDocument.URI))
	if d == nil {
		return []protocol.CodeLens{}, nil
	}
	gen := d.sess.generation()
	d.mu.Lock()
	snap := d.snapshotLocked()
	d.results.remap(snap)
	status := make(map[int]string, len(d.results.cells))
	for _, c := range d.results.cells {
		status[c.index] = statusTitle(c, gen)
	}
	d.mu.Unlock()

	quri, _ := json.Marshal(d.uri)
	lenses := []protocol.CodeLens{}
	first := true
	for _, c := range snap.Cells() {
		if c.Kind != cells.Code {
			continue
		}
		line := lensLine(c)
		arg := lensArg(quri, line)
		rng := protocol.Range{Start: protocol.Position{Line: uint32(line)}, End: protocol.Position{Line: uint32(line)}}
		add := func(title, cmd string, args []protocol.LSPAny) {
			lenses = append(lenses, protocol.CodeLens{Range: rng, Command: protocol.Command{Title: title, Command: cmd, Arguments: args}})
		}
		args := []protocol.LSPAny{arg}
		add("▶ Run Cell", CmdRunCell, args)
		if !first {
			add("Run Above", CmdRunAbove, args)
		}
		add("Run Below", CmdRunBelow, args)
		if t, ok := status[c.Index]; ok {
			add(t, "", nil)
		}
		first = false
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
func statusTitle(c *cellResult, gen int) string {
	switch c.state {
	case stateQueued:
		return "[ ] queued"
	case stateRunning:
		return "[*] running…"
	}
	x := c.exec
	if x == nil {
		return ""
	}
	count := "[ ]"
	if x.ExecutionCount > 0 {
		count = "[" + strconv.Itoa(x.ExecutionCount) + "]"
	}
	var t string
	switch x.Status {
	case kernel.StatusOK:
		t = fmt.Sprintf("%s ✓ %s · %s", count, formatDuration(x.DurationMs), backendLabel(x))
	case kernel.StatusInterrupted:
		t = count + " ■ interrupted"
	case kernel.StatusTimeout:
		t = count + " ⏱ timed out"
	case kernel.StatusCrashed:
		t = count + " ✗ kernel crashed"
	default:
		name := "error"
		if x.Error != nil {
			name = x.Error.EName
		}
		t = count + " ✗ " + name
	}
	if c.stale || c.gen != gen {
		t += " (stale)"
	}
	return t
}

func backendLabel(x *Execution) string {
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
