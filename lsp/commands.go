package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/notebook"
)

var _ contract.Commands = (*server)(nil)

// ExecuteCommand runs a contract command (contract.Dispatch decodes and
// checks its argument). Its ordered part runs on the read loop, so a run
// takes the document text current when it was asked for; then the loop is
// released and the reply finishes. A run that drains an idle document's
// queue keeps the loop instead until it ends, the watchdog releases it or the
// server calls the client (callContext.keep): a trivial cell is answered
// without a hand-off. Bad arguments are InvalidParams errors with a message
// for a person; a Python exception is a result.
func (s *server) ExecuteCommand(ctx context.Context, p *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	if p.Command == "" {
		// A status lens is a label with an empty command; a client that
		// executes it anyway (Neovim's codelens.run) gets nothing done.
		return protocol.LSPAny("null"), nil
	}
	if p.WorkDoneToken != nil {
		ctx = context.WithValue(ctx, tokenKey{}, p.WorkDoneToken)
	}
	fin, err := contract.Dispatch(ctx, s, p.Command, p.Arguments)
	if err != nil {
		return nil, err
	}
	if c, ok := ctx.Value(callKey{}).(*callContext); ok && c.drains {
		c.keep()
	} else {
		release(ctx)
	}
	v, err := fin(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, protocol.ErrRequestCancelled
		}
		return nil, err
	}
	raw, err := codec{}.Marshal(v)
	return protocol.LSPAny(raw), err
}

type tokenKey struct{}

// workDoneToken is the run request's workDoneToken, or nil.
func workDoneToken(ctx context.Context) protocol.ProgressToken {
	t, _ := ctx.Value(tokenKey{}).(protocol.ProgressToken)
	return t
}

// document finds the open document a command names.
func (s *server) document(cmd, uri string) (*notebook.Document, error) {
	d := s.nb.Document(uri)
	if d == nil {
		return nil, &contract.ArgError{Msg: fmt.Sprintf("%s: no open document has uri %q (send textDocument/didOpen first)", cmd, uri)}
	}
	return d, nil
}

func (s *server) RunCell(ctx context.Context, a *contract.LineArg) (contract.Reply[*contract.RunResult], error) {
	return s.run(ctx, contract.CmdRunCell, a.URI, notebook.RunRequest{Kind: notebook.RunCell, Line: int(*a.Line)}, a.Wait)
}

func (s *server) RunAbove(ctx context.Context, a *contract.LineArg) (contract.Reply[*contract.RunResult], error) {
	return s.run(ctx, contract.CmdRunAbove, a.URI, notebook.RunRequest{Kind: notebook.RunAbove, Line: int(*a.Line)}, a.Wait)
}

func (s *server) RunBelow(ctx context.Context, a *contract.LineArg) (contract.Reply[*contract.RunResult], error) {
	return s.run(ctx, contract.CmdRunBelow, a.URI, notebook.RunRequest{Kind: notebook.RunBelow, Line: int(*a.Line)}, a.Wait)
}

func (s *server) RunAll(ctx context.Context, a *contract.AllArg) (contract.Reply[*contract.RunResult], error) {
	return s.run(ctx, contract.CmdRunAll, a.URI, notebook.RunRequest{Kind: notebook.RunAll}, a.Wait)
}

func (s *server) RunRange(ctx context.Context, a *contract.RangeArg) (contract.Reply[*contract.RunResult], error) {
	return s.run(ctx, contract.CmdRunRange, a.URI, notebook.RunRequest{Kind: notebook.RunRange, Range: *a.Range}, a.Wait)
}

// run queues a run request's executions and, unless "wait" is false, waits
// for them. Cancelling the request ($/cancelRequest, or
// window/workDoneProgress/cancel of its workDoneToken) interrupts its
// running execution and drops its queued ones; the request still gets its
// normal answer, with the interrupted execution and without the dropped
// ones.
func (s *server) run(ctx context.Context, cmd, uri string, req notebook.RunRequest, wait *bool) (contract.Reply[*contract.RunResult], error) {
	d, err := s.document(cmd, uri)
	if err != nil {
		return nil, err
	}
	req.Command = cmd
	waits := contract.Waits(wait)
	if token := workDoneToken(ctx); waits && token != nil {
		// A request's workDoneToken lives until its response: no progress
		// on it when the response comes at once.
		req.Progress = func(n int, cancel func()) notebook.Progress {
			if t := s.clientProgress(token, runTitle(cmd, n), cancel); t != nil {
				return t
			}
			return nil
		}
	}
	r, err := d.Start(req)
	if err != nil {
		return nil, err
	}
	if !waits {
		r.Detach()
		return contract.Done(&contract.RunResult{Queued: r.IDs()}), nil
	}
	if c, ok := ctx.Value(callKey{}).(*callContext); ok && r.Drains() {
		c.drains = true // its executions run on this goroutine, at once
	}
	return func(ctx context.Context) (*contract.RunResult, error) {
		return &contract.RunResult{Executions: r.Wait(ctx)}, nil
	}, nil
}

func runTitle(cmd string, n int) string {
	if cmd == contract.CmdRunRange {
		return "Running selection"
	}
	if n == 1 {
		return "Running cell"
	}
	return "Running cells"
}

func (s *server) Interrupt(_ context.Context, a *contract.URIArg) (contract.Reply[*contract.InterruptResult], error) {
	d, err := s.document(contract.CmdInterrupt, a.URI)
	if err != nil {
		return nil, err
	}
	return contract.Done(&contract.InterruptResult{Interrupted: d.Interrupt()}), nil
}

func (s *server) Restart(_ context.Context, a *contract.URIArg) (contract.Reply[*contract.KernelInfo], error) {
	d, err := s.document(contract.CmdRestart, a.URI)
	if err != nil {
		return nil, err
	}
	wait, err := d.Restart()
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (*contract.KernelInfo, error) {
		info, err := wait(ctx)
		if err == nil {
			s.showMessage(protocol.MessageTypeInfo, "backyard: kernel restarted for %s; the namespace is empty", notebook.DisplayName(a.URI))
		}
		return info, err
	}, nil
}

func (s *server) SetBackend(_ context.Context, a *contract.BackendArg) (contract.Reply[*contract.KernelInfo], error) {
	d, err := s.document(contract.CmdSetBackend, a.URI)
	if err != nil {
		return nil, err
	}
	wait, err := d.SetBackend(a.Backend)
	if err != nil {
		return nil, jsonrpc2.NewError(codeRequestFailed, contract.CmdSetBackend+": "+err.Error())
	}
	return wait, nil
}

func (s *server) KernelInfo(_ context.Context, a *contract.URIArg) (contract.Reply[*contract.KernelInfo], error) {
	d, err := s.document(contract.CmdKernelInfo, a.URI)
	if err != nil {
		return nil, err
	}
	// Info may ask the worker binary its version: not on the read loop.
	return func(context.Context) (*contract.KernelInfo, error) { return d.KernelInfo(), nil }, nil
}

func (s *server) Variables(_ context.Context, a *contract.URIArg) (contract.Reply[*contract.VariablesResult], error) {
	d, err := s.document(contract.CmdVariables, a.URI)
	if err != nil {
		return nil, err
	}
	return d.Variables()
}

func (s *server) Files(_ context.Context, a *contract.URIArg) (contract.Reply[*contract.FilesResult], error) {
	d, err := s.document(contract.CmdFiles, a.URI)
	if err != nil {
		return nil, err
	}
	return d.Files()
}

func (s *server) SaveFiles(_ context.Context, a *contract.SaveFilesArg) (contract.Reply[*contract.SaveFilesResult], error) {
	d, err := s.document(contract.CmdSaveFiles, a.URI)
	if err != nil {
		return nil, err
	}
	wait, err := d.SaveFiles(a.Paths)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (*contract.SaveFilesResult, error) {
		r, err := wait(ctx)
		if err != nil {
			return nil, jsonrpc2.NewError(codeRequestFailed, contract.CmdSaveFiles+": "+err.Error())
		}
		return r, nil
	}, nil
}
