package mcp

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/notebook"
	"github.com/backyard-ls/backyard-ls/pypkg"
)

// tools implements contract.Tools on a server.
type tools struct{ s *Server }

var _ contract.Tools = tools{}

type requestKey struct{}

// request is the SDK request of the tool call ctx belongs to (for its
// progress token and its client session), nil outside one.
func request(ctx context.Context) *sdk.CallToolRequest {
	r, _ := ctx.Value(requestKey{}).(*sdk.CallToolRequest)
	return r
}

// RunPython implements contract.Tools.
func (t tools) RunPython(ctx context.Context, a *contract.RunPythonArgs) (*contract.RunPythonResult, error) {
	r, _, err := t.runPython(ctx, a)
	return r, err
}

// runPython also returns the execution record (its value's MIME bundle).
func (t tools) runPython(ctx context.Context, a *contract.RunPythonArgs) (*contract.RunPythonResult, *contract.Execution, error) {
	if strings.TrimSpace(a.Code) == "" {
		return nil, nil, errors.New("code is empty: pass the Python code to run")
	}
	var lim kernel.Limits
	if a.TimeoutS != 0 {
		// Checked as the timeout setting is, against its declared bounds.
		if _, warns := contract.ParseSettings(fmt.Appendf(nil, `{"timeout": %v}`, a.TimeoutS), nil); len(warns) > 0 {
			return nil, nil, fmt.Errorf("timeout_s: %s", warns[0].Reason)
		}
		lim.Timeout = time.Duration(a.TimeoutS * float64(time.Second))
	}
	x, err := t.s.session(a.Session)
	if err != nil {
		return nil, nil, err
	}
	defer x.begin(ctx, request(ctx))()
	run, err := x.doc.Start(notebook.RunRequest{Kind: notebook.RunCode, Code: a.Code, Limits: lim, Command: contract.ToolRunPython})
	if err != nil {
		return nil, nil, err
	}
	recs := run.Wait(ctx) // a cancelled call interrupts the cell
	if len(recs) == 0 {
		return nil, nil, fmt.Errorf("session %q: the run was stopped before it started", x.name)
	}
	return result(x.name, recs[0]), recs[0], nil
}

// result is the tool result of an execution record: traceback lines back
// to 1-based lines of the code (the record counts from document line 0).
func result(session string, rec *contract.Execution) *contract.RunPythonResult {
	r := &contract.RunPythonResult{
		Session: session, Status: rec.Status, Stdout: rec.Stdout, Stderr: rec.Stderr,
		Backend: rec.Backend, Runtime: rec.Runtime, ExecutionCount: rec.ExecutionCount, DurationMs: rec.DurationMs,
		FilesChanged: append([]contract.FileChange{}, rec.Files...),
	}
	r.Displays = rec.Displays
	if v := rec.Result; v != nil {
		r.Result = v.Text
		r.ResultMIME = slices.Sorted(maps.Keys(v.MIME))
	}
	if e := rec.Error; e != nil {
		r.Error = &contract.ToolError{EName: e.EName, EValue: e.EValue, Traceback: make([]contract.Frame, len(e.Traceback)), Notes: e.Notes,
			Formatted: notebook.Traceback(e, toolFrame)}
		for i, f := range e.Traceback {
			f.Line++ // -1 (outside the code) becomes 0
			r.Error.Traceback[i] = f
		}
	}
	return r
}

// ResetSession implements contract.Tools: the session's kernel is closed
// (a running call is interrupted) and its slot freed; the next run in that
// session starts an empty kernel.
func (t tools) ResetSession(_ context.Context, a *contract.SessionArg) (*contract.ResetSessionResult, error) {
	if x := t.s.existing(a.Session); x != nil {
		t.s.drop(x)
	}
	return &contract.ResetSessionResult{Session: orDefault(a.Session), Backend: t.s.opts.Settings.Backend}, nil
}

// ListVariables implements contract.Tools.
func (t tools) ListVariables(ctx context.Context, a *contract.SessionArg) (*contract.VariablesResult, error) {
	x := t.s.existing(a.Session)
	if x == nil {
		return &contract.VariablesResult{Variables: []contract.Variable{}}, nil
	}
	defer x.begin(ctx, request(ctx))()
	reply, err := x.doc.Variables()
	if err != nil {
		return nil, err
	}
	return reply(ctx)
}

// InstallPackages implements contract.Tools: the server's autoInstall
// policy decides, as for the editors (ask: the client's user is asked).
func (t tools) InstallPackages(ctx context.Context, a *contract.InstallPackagesArgs) (*contract.InstallPackagesResult, error) {
	if len(a.Packages) == 0 {
		return nil, errors.New("packages is empty: name the PyPI packages to install")
	}
	if err := pypkg.CheckRequirements(a.Packages); err != nil {
		return nil, err
	}
	x, err := t.s.session(a.Session)
	if err != nil {
		return nil, err
	}
	defer x.begin(ctx, request(ctx))()
	switch t.s.opts.Settings.Install.AutoInstall {
	case contract.InstallOn:
	case contract.InstallAsk:
		if !x.ev.ConfirmInstall(ctx, "", a.Packages) {
			return nil, fmt.Errorf("not installed: autoInstall is \"ask\" and installing %s was declined (or the client cannot ask its user)", strings.Join(a.Packages, ", "))
		}
	default:
		return nil, fmt.Errorf("not installed: the server's autoInstall policy is \"off\"; start it with --auto-install on (or ask) to install packages")
	}
	reply, err := x.doc.Install(a.Packages)
	if err != nil {
		return nil, err
	}
	done, err := reply(ctx)
	if err != nil {
		return nil, err
	}
	return &contract.InstallPackagesResult{Session: x.name, Installed: done}, nil
}

func orDefault(name string) string {
	if name == "" {
		return DefaultSession
	}
	return name
}

// addTools registers every tool of contract.ToolSpecs.
func (s *Server) addTools() {
	t := tools{s}
	for _, spec := range contract.ToolSpecs {
		switch spec.Name {
		case contract.ToolRunPython:
			addTool(s, spec, func(ctx context.Context, a *contract.RunPythonArgs) (*contract.RunPythonResult, []sdk.Content, error) {
				r, rec, err := t.runPython(ctx, a)
				if err != nil {
					return nil, nil, err
				}
				return r, runContent(r, rec), nil
			})
		case contract.ToolResetSession:
			addTool(s, spec, plain(t.ResetSession))
		case contract.ToolListVariables:
			addTool(s, spec, plain(t.ListVariables))
		case contract.ToolInstallPackages:
			addTool(s, spec, plain(t.InstallPackages))
		default:
			panic("mcp: no handler for tool " + spec.Name)
		}
	}
}

// plain is a tool whose content is the JSON of its result (the SDK's
// default).
func plain[In, Out any](h func(context.Context, *In) (*Out, error)) func(context.Context, *In) (*Out, []sdk.Content, error) {
	return func(ctx context.Context, in *In) (*Out, []sdk.Content, error) {
		out, err := h(ctx, in)
		return out, nil, err
	}
}

// addTool registers one tool: its schemas from the contract's types with
// their field docs, and a handler that passes the SDK request down.
func addTool[In, Out any](s *Server, spec contract.ToolSpec, h func(context.Context, *In) (*Out, []sdk.Content, error)) {
	tool := &sdk.Tool{Name: spec.Name, Description: spec.Description, InputSchema: schema[In](spec.Arg), OutputSchema: schema[Out](spec.Result)}
	sdk.AddTool(s.srv, tool, func(ctx context.Context, req *sdk.CallToolRequest, in In) (res *sdk.CallToolResult, out *Out, err error) {
		defer func() {
			// A panic is a tool error, never the end of the server.
			if p := recover(); p != nil {
				s.log.Error("panic in a tool", zap.String("tool", spec.Name), zap.Any("panic", p), zap.Stack("stack"))
				res, out, err = nil, nil, fmt.Errorf("internal error in %s: %v", spec.Name, p)
			}
		}()
		ctx = context.WithValue(ctx, requestKey{}, req)
		out, content, err := h(ctx, &in)
		if err != nil {
			return nil, nil, err // a tool error (isError), not a protocol error
		}
		return &sdk.CallToolResult{Content: content}, out, nil
	})
}

// schema is the JSON schema of contract type T (named typ) with the
// contract's field docs as descriptions; enums list their values.
func schema[T any](typ string) *jsonschema.Schema {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcp: schema of %s: %v", typ, err))
	}
	describe(sc, typ)
	return sc
}

func describe(sc *jsonschema.Schema, typ string) {
	docs := contract.ToolFieldDocs[typ]
	for name, p := range sc.Properties {
		if d := docs[name]; d != "" {
			p.Description = d
		}
		if slices.Equal(p.Types, []string{"null", "array"}) {
			// The server always sends a list ([] for none).
			p.Type, p.Types = "array", nil
		}
		switch typ + "." + name {
		case "RunPythonResult.status":
			p.Enum = enum(contract.StatusValues)
		case "ResetSessionResult.backend":
			p.Enum = enum(contract.BackendValues)
		case "RunPythonResult.error":
			describe(nonNull(p), "ToolError")
		case "ToolError.traceback":
			describe(p.Items, "Frame")
		case "RunPythonResult.files_changed":
			describe(p.Items, "FileChange")
		case "FileChange.state":
			p.Enum = enum(contract.FileStateValues)
		case "VariablesResult.variables":
			describe(p.Items, "Variable")
		}
	}
}

// nonNull is the object schema of a nullable pointer field.
func nonNull(p *jsonschema.Schema) *jsonschema.Schema {
	for _, alt := range p.AnyOf {
		if alt.Properties != nil {
			return alt
		}
	}
	return p
}

func enum[T ~string](vals []T) []any {
	out := make([]any, len(vals))
	for i, v := range vals {
		out[i] = string(v)
	}
	return out
}

// runContent is what a model reads of a run: short text (see runText), and
// a PNG value as an image; the structured result carries the rest.
func runContent(r *contract.RunPythonResult, rec *contract.Execution) []sdk.Content {
	out := []sdk.Content{&sdk.TextContent{Text: runText(r)}}
	png := func(data string) {
		if b, err := base64.StdEncoding.DecodeString(data); err == nil && len(b) > 0 {
			out = append(out, &sdk.ImageContent{MIMEType: "image/png", Data: b})
		}
	}
	for _, d := range rec.Displays {
		png(d.Data["image/png"])
	}
	if rec.Result != nil {
		png(rec.Result.MIME["image/png"])
	}
	return out
}
