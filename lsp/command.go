package lsp

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/kernel"
)

// Command IDs. Each takes one JSON object argument (DESIGN.md).
const (
	CmdRunCell    = "backyard.runCell"    // {uri, line, wait?}: the cell containing line
	CmdRunAbove   = "backyard.runAbove"   // {uri, line, wait?}: every code cell above that cell
	CmdRunBelow   = "backyard.runBelow"   // {uri, line, wait?}: that cell and every code cell below
	CmdRunAll     = "backyard.runAll"     // {uri, wait?}: every code cell
	CmdRunRange   = "backyard.runRange"   // {uri, range, wait?}: the text in range, dedented
	CmdInterrupt  = "backyard.interrupt"  // {uri}
	CmdRestart    = "backyard.restart"    // {uri}
	CmdSetBackend = "backyard.setBackend" // {uri, backend}
	CmdKernelInfo = "backyard.kernelInfo" // {uri}
	CmdVariables  = "backyard.variables"  // {uri}
)

// usage is each command's argument, for error messages.
var usage = map[string]string{
	CmdRunCell:    `{"uri": string, "line": number, "wait"?: boolean}`,
	CmdRunAbove:   `{"uri": string, "line": number, "wait"?: boolean}`,
	CmdRunBelow:   `{"uri": string, "line": number, "wait"?: boolean}`,
	CmdRunAll:     `{"uri": string, "wait"?: boolean}`,
	CmdRunRange:   `{"uri": string, "range": {"start": {"line", "character"}, "end": {"line", "character"}}, "wait"?: boolean}`,
	CmdInterrupt:  `{"uri": string}`,
	CmdRestart:    `{"uri": string}`,
	CmdSetBackend: `{"uri": string, "backend": "auto" | "monty" | "container"}`,
	CmdKernelInfo: `{"uri": string}`,
	CmdVariables:  `{"uri": string}`,
}

// Results of the non-run commands.
type (
	// interruptResult: whether a running execution was stopped or queued
	// ones dropped.
	interruptResult struct {
		Interrupted bool `json:"interrupted"`
	}
	// kernelInfoResult is kernel.Info plus the document's uri.
	kernelInfoResult struct {
		URI         string `json:"uri"`
		kernel.Info `json:",inline"`
	}
	variablesResult struct {
		Variables []kernel.Variable `json:"variables"`
	}
)

// executeCommand runs on the read loop so a run takes the document text
// current when it was asked for; each command releases the loop (Async) as
// soon as its order-sensitive part is done. Bad arguments are InvalidParams
// errors with a message for a person; a Python exception is a result.
func (s *server) executeCommand(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	p, err := decodeCommand(req.Params())
	if err != nil {
		jsonrpc2.Async(ctx)
		return nil, invalidParams("invalid workspace/executeCommand params: %v", err)
	}
	if p.command == "" {
		// A status lens is a label with an empty command; a client that
		// executes it anyway (Neovim's codelens.run) gets nothing done.
		jsonrpc2.Async(ctx)
		return nil, nil
	}
	use, known := usage[p.command]
	if !known {
		jsonrpc2.Async(ctx)
		return nil, invalidParams("unknown command %q (this server runs %s)", p.command, strings.Join(Commands, ", "))
	}
	a, err := parseArgs(p.command, use, p.arguments)
	if err != nil {
		jsonrpc2.Async(ctx)
		return nil, err
	}
	switch p.command {
	case CmdRunCell, CmdRunAbove, CmdRunBelow, CmdRunAll, CmdRunRange:
		return s.run(ctx, a, p.token)
	case CmdInterrupt:
		return s.interruptCommand(ctx, a)
	case CmdRestart:
		return s.restartCommand(ctx, a)
	case CmdSetBackend:
		return s.setBackendCommand(ctx, a)
	case CmdKernelInfo:
		jsonrpc2.Async(ctx)
		d, err := s.document(a)
		if err != nil {
			return nil, err
		}
		return d.sess.info(), nil
	case CmdVariables:
		d, err := s.document(a)
		if err != nil {
			jsonrpc2.Async(ctx)
			return nil, err
		}
		return s.control(ctx, d, variablesJob)
	}
	jsonrpc2.Async(ctx)
	return nil, invalidParams("unknown command %q", p.command)
}

// control queues a control step behind the document's runs, releases the
// read loop and waits for it.
func (s *server) control(ctx context.Context, d *document, fn func(*session) (any, error)) (any, error) {
	j := newControlJob(fn)
	err := d.sess.enqueue(j)
	jsonrpc2.Async(ctx)
	if err != nil {
		return nil, requestFailed(err)
	}
	res, err := j.wait(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return nil, protocol.ErrRequestCancelled
		}
		return nil, requestFailed(err)
	}
	return res, nil
}

func requestFailed(err error) error {
	return jsonrpc2.NewError(codeRequestFailed, err.Error())
}

// interruptCommand stops the running cell at once (it does not wait behind
// the queue) and drops the queued ones.
func (s *server) interruptCommand(ctx context.Context, a *cmdArgs) (any, error) {
	jsonrpc2.Async(ctx)
	d, err := s.document(a)
	if err != nil {
		return nil, err
	}
	return &interruptResult{Interrupted: d.sess.interrupt()}, nil
}

// restartCommand interrupts the running cell, drops the queued ones, then
// empties the namespace (execution count back to 0). It answers with the
// kernel's info.
func (s *server) restartCommand(ctx context.Context, a *cmdArgs) (any, error) {
	d, err := s.document(a)
	if err != nil {
		jsonrpc2.Async(ctx)
		return nil, err
	}
	d.sess.interrupt()
	res, err := s.control(ctx, d, restartJob)
	if err == nil {
		s.showMessage(protocol.MessageTypeInfo, "backyard: kernel restarted for %s; the namespace is empty", displayName(d.uri))
	}
	return res, err
}

// setBackendCommand switches the document to another backend: once the
// runs queued before it are done, the kernel is closed and the next run
// starts one on the new backend. It answers with the new kernel's info.
func (s *server) setBackendCommand(ctx context.Context, a *cmdArgs) (any, error) {
	d, err := s.document(a)
	if err != nil {
		jsonrpc2.Async(ctx)
		return nil, err
	}
	backend, err := a.str("backend")
	if err == nil && !validBackend(backend) {
		err = invalidParams("%s: \"backend\" must be \"auto\", \"monty\" or \"container\", got %q", a.cmd, backend)
	}
	if err != nil {
		jsonrpc2.Async(ctx)
		return nil, err
	}
	// Fail now, not at the next run, when the backend cannot exist here.
	if k, err := kernel.New(s.kernelConfig(backend)); err != nil {
		jsonrpc2.Async(ctx)
		return nil, requestFailed(fmt.Errorf("%s: cannot use the %s backend: %w", a.cmd, backend, err))
	} else {
		_ = k.Close()
	}
	return s.control(ctx, d, switchBackendJob(backend))
}

// --- arguments ---

// cmdArgs is a command's single JSON object argument.
type cmdArgs struct {
	cmd, usage string
	m          map[string]jsontext.Value
}

func parseArgs(cmd, use string, args []jsontext.Value) (*cmdArgs, error) {
	if len(args) != 1 {
		return nil, invalidParams("%s takes one JSON object argument %s, got %d arguments", cmd, use, len(args))
	}
	m, err := decodeObject(args[0])
	if err != nil {
		return nil, invalidParams("%s takes one JSON object argument %s, got %s", cmd, use, short(args[0]))
	}
	return &cmdArgs{cmd: cmd, usage: use, m: m}, nil
}

func short(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}

func (a *cmdArgs) missing(key string) error {
	return invalidParams("%s: missing %q (the argument is %s)", a.cmd, key, a.usage)
}

func (a *cmdArgs) str(key string) (string, error) {
	raw, ok := a.m[key]
	if !ok {
		return "", a.missing(key)
	}
	v, ok := stringValue(raw)
	if !ok {
		return "", invalidParams("%s: %q must be a string, got %s", a.cmd, key, short(raw))
	}
	return v, nil
}

// nonNegative reads key of m as a whole number ≥ 0; what names it in
// messages.
func (a *cmdArgs) nonNegative(m map[string]jsontext.Value, key, what string) (int, error) {
	raw, ok := m[key]
	if !ok {
		return 0, a.missing(what)
	}
	f, ok := numberValue(raw)
	if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
		return 0, invalidParams("%s: %q must be a whole number ≥ 0, got %s", a.cmd, what, short(raw))
	}
	return int(f), nil
}

func (a *cmdArgs) line() (int, error) { return a.nonNegative(a.m, "line", "line") }

// wait reads the optional "wait" flag (default true).
func (a *cmdArgs) wait() (bool, error) {
	raw, ok := a.m["wait"]
	if !ok {
		return true, nil
	}
	w, ok := boolValue(raw)
	if !ok {
		return false, invalidParams("%s: \"wait\" must be true or false, got %s", a.cmd, short(raw))
	}
	return w, nil
}

func (a *cmdArgs) rng() (protocol.Range, error) {
	raw, ok := a.m["range"]
	if !ok {
		return protocol.Range{}, a.missing("range")
	}
	r, err := decodeObject(raw)
	if err != nil {
		return protocol.Range{}, invalidParams("%s: \"range\" must be an object {\"start\", \"end\"}, got %s", a.cmd, short(raw))
	}
	var out protocol.Range
	for _, end := range []struct {
		key string
		p   *protocol.Position
	}{{"start", &out.Start}, {"end", &out.End}} {
		praw, ok := r[end.key]
		if !ok {
			return out, a.missing("range." + end.key)
		}
		pm, err := decodeObject(praw)
		if err != nil {
			return out, invalidParams("%s: \"range.%s\" must be a position {\"line\", \"character\"}, got %s", a.cmd, end.key, short(praw))
		}
		line, err := a.nonNegative(pm, "line", "range."+end.key+".line")
		if err != nil {
			return out, err
		}
		char, err := a.nonNegative(pm, "character", "range."+end.key+".character")
		if err != nil {
			return out, err
		}
		*end.p = protocol.Position{Line: uint32(line), Character: uint32(char)}
	}
	return out, nil
}

// document finds the open document named by the "uri" argument.
func (s *server) document(a *cmdArgs) (*document, error) {
	uri, err := a.str("uri")
	if err != nil {
		return nil, err
	}
	d := s.docs.get(uri)
	if d == nil {
		return nil, invalidParams("%s: no open document has uri %q (send textDocument/didOpen first)", a.cmd, uri)
	}
	return d, nil
}

// displayName is a uri's last path element, for messages.
func displayName(uri string) string {
	if i := strings.LastIndexByte(uri, '/'); i >= 0 && i+1 < len(uri) {
		return uri[i+1:]
	}
	return uri
}
