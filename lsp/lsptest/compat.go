package lsptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/backyard-ls/backyard-ls/contract"
)

// This file keeps the untyped API of the first version of this package
// working for tests written against it (message predicates, flattened
// lenses and diagnostics); tests on other branches use it. New tests use
// Await with expectations, CodeLens and PublishedDiagnostics.

// Wait returns the first message with Seq at or after from that matches,
// and its Seq.
//
// Deprecated: use Await with Received (and After).
func (c *Client) Wait(ctx context.Context, from int, match func(Message) bool) (Message, int, error) {
	for {
		c.mu.Lock()
		msgs := c.state.since(from)
		ch := c.changed
		c.mu.Unlock()
		for _, m := range msgs {
			if match(m) {
				return m, m.Seq, nil
			}
		}
		if len(msgs) > 0 {
			from = msgs[len(msgs)-1].Seq + 1
		}
		select {
		case <-ch:
		case <-c.conn.Done():
			return Message{}, -1, errors.New("connection closed")
		case <-ctx.Done():
			return Message{}, -1, fmt.Errorf("waiting for a message: %w", ctx.Err())
		}
	}
}

// Method matches messages by method.
//
// Deprecated: use the expectation Sent.
func Method(method string) func(Message) bool {
	return func(m Message) bool { return m.Method == method }
}

// ExecutionState matches a backyard/executionState with the given state
// ("" for any) for execution id ("" for any).
//
// Deprecated: use the expectation ExecutionPhase.
func ExecutionState(id, state string) func(Message) bool {
	return func(m Message) bool {
		p, ok := m.Value.(*contract.ExecutionStateParams)
		return ok && (id == "" || p.ExecutionID == id) && (state == "" || string(p.State) == state)
	}
}

// Lens is a code lens, flattened.
//
// Deprecated: use protocol.CodeLens (CodeLens).
type Lens struct {
	Line    int
	Title   string
	Command string
	Args    []json.RawMessage
}

// CodeLenses requests textDocument/codeLens, flattened.
//
// Deprecated: use CodeLens.
func (c *Client) CodeLenses(ctx context.Context, uri string) ([]Lens, error) {
	lenses, err := c.CodeLens(ctx, uri)
	if err != nil {
		return nil, err
	}
	out := make([]Lens, len(lenses))
	for i, l := range lenses {
		out[i] = Lens{Line: int(l.Range.Start.Line), Title: l.Command.Title, Command: l.Command.Command}
		for _, a := range l.Command.Arguments {
			out[i].Args = append(out[i].Args, json.RawMessage(a))
		}
	}
	return out, nil
}

// Diagnostic is a published diagnostic, flattened.
//
// Deprecated: use protocol.Diagnostic (PublishedDiagnostics).
type Diagnostic struct {
	Line, StartChar, EndChar int
	Severity                 int
	Source, Message          string
}

// Diagnostics returns the last diagnostics published for uri, flattened,
// and false when none were.
//
// Deprecated: use PublishedDiagnostics.
func (c *Client) Diagnostics(uri string) ([]Diagnostic, bool) {
	diags, ok := c.PublishedDiagnostics(uri)
	out := make([]Diagnostic, len(diags))
	for i, d := range diags {
		src, _ := d.Source.Get()
		out[i] = Diagnostic{Line: int(d.Range.Start.Line), StartChar: int(d.Range.Start.Character), EndChar: int(d.Range.End.Character),
			Severity: int(d.Severity), Source: src, Message: Plain(d.Message)}
	}
	return out, ok
}
