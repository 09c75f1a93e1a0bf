package contract

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"os"
	"os/exec"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// The generated files must be what the declarations give today.
func TestGeneratedFilesAreCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the generator")
	}
	out, err := exec.Command("go", "run", "./internal/gen", "-check").CombinedOutput()
	if err != nil {
		t.Fatalf("generated files are stale (run `make generate`): %s %v", out, err)
	}
}

func ptr[T any](v T) *T { return &v }

// Each record's generated encoder gives what json.Marshal gives.
func TestAppendJSONMatchesMarshal(t *testing.T) {
	full := &Execution{
		ID: "e1", Range: Range{Start: Position{Line: 1}, End: Position{Line: 3, Character: 7}},
		ExecutionCount: 2, Status: StatusError, Stdout: "a \"quoted\"\n\ttab \x01 é 😀 \u2028 \u2029 \u0085 \ufffd", Stderr: "",
		Result:  &Value{Text: "42", MIME: map[string]string{"text/plain": "42", "image/png": "iVBOR"}},
		Error:   &ExecutionError{EName: "ZeroDivisionError", EValue: "division by zero", Traceback: []Frame{{Line: 3, Name: "<module>", Text: "1/0"}, {Line: -1, Name: "f", Text: ""}}},
		Backend: "monty", Runtime: "monty", DurationMs: 0.022,
	}
	values := []JSONAppender{
		full,
		&Execution{}, // nil result, error
		&Execution{Error: &ExecutionError{}, DurationMs: 1e-9},
		&Execution{DurationMs: 1e21},
		&Execution{DurationMs: 123456.789},
		&RunResult{Executions: []*Execution{full, {}}},
		&RunResult{Executions: []*Execution{}},
		&RunResult{Queued: []string{"e1", "e2"}},
		&RunResult{},
		&OutputParams{URI: "file:///a.py", ExecutionID: "e3", Stream: Stderr, Text: "x\n"},
		&ExecutionStateParams{URI: "u", ExecutionID: "e", State: PhaseDone, Execution: full},
		&ExecutionStateParams{URI: "u", ExecutionID: "e", State: PhaseQueued},
		&KernelStateParams{URI: "u", Backend: BackendContainer, Runtime: "runsc", State: KernelBusy},
		&KernelInfo{Backend: BackendMonty, State: KernelIdle, Versions: map[string]string{"monty": "1.4.0"}, Notes: []string{"n"}, Mode: BackendAuto, Reason: "r"},
		&KernelInfo{URI: "u"},
		&VariablesResult{Variables: []Variable{{Name: "x", Type: "int", Repr: "1"}}},
		&VariablesResult{},
		&InterruptResult{Interrupted: true},
		&LineArg{URI: "u", Line: ptr(uint32(4)), Wait: ptr(false)},
		&LineArg{},
	}
	for _, v := range values {
		got := v.AppendJSON(nil)
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if !jsontext.Value(got).IsValid() {
			t.Errorf("%T: invalid JSON %s", v, got)
			continue
		}
		// Records are written as lines: nothing that splits lines for
		// str.splitlines (or JavaScript) may appear raw.
		if bytes.ContainsAny(got, "\u2028\u2029\u0085") {
			t.Errorf("%T: a raw line separator in %q", v, got)
		}
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, w) {
			t.Errorf("%T:\n got %s\nwant %s", v, got, want)
		}
	}
}

// recorder is a Commands that records what it was called with.
type recorder struct {
	method string
	arg    any
}

func (r *recorder) rec(m string, a any) { r.method, r.arg = m, a }

func (r *recorder) RunCell(_ context.Context, a *LineArg) (Reply[*RunResult], error) {
	r.rec("RunCell", a)
	return Done(&RunResult{Queued: []string{"e1"}}), nil
}
func (r *recorder) RunAbove(_ context.Context, a *LineArg) (Reply[*RunResult], error) {
	r.rec("RunAbove", a)
	return Done(&RunResult{}), nil
}
func (r *recorder) RunBelow(_ context.Context, a *LineArg) (Reply[*RunResult], error) {
	r.rec("RunBelow", a)
	return Done(&RunResult{}), nil
}
func (r *recorder) RunAll(_ context.Context, a *AllArg) (Reply[*RunResult], error) {
	r.rec("RunAll", a)
	return Done(&RunResult{}), nil
}
func (r *recorder) RunRange(_ context.Context, a *RangeArg) (Reply[*RunResult], error) {
	r.rec("RunRange", a)
	return Done(&RunResult{}), nil
}
func (r *recorder) Interrupt(_ context.Context, a *URIArg) (Reply[*InterruptResult], error) {
	r.rec("Interrupt", a)
	return Done(&InterruptResult{}), nil
}
func (r *recorder) Restart(_ context.Context, a *URIArg) (Reply[*KernelInfo], error) {
	r.rec("Restart", a)
	return nil, errors.New("restart failed")
}
func (r *recorder) SetBackend(_ context.Context, a *BackendArg) (Reply[*KernelInfo], error) {
	r.rec("SetBackend", a)
	return Done(&KernelInfo{Backend: a.Backend}), nil
}
func (r *recorder) KernelInfo(_ context.Context, a *URIArg) (Reply[*KernelInfo], error) {
	r.rec("KernelInfo", a)
	return Done(&KernelInfo{}), nil
}
func (r *recorder) Variables(_ context.Context, a *URIArg) (Reply[*VariablesResult], error) {
	r.rec("Variables", a)
	return func(context.Context) (*VariablesResult, error) { return nil, errors.New("gone") }, nil
}

func (r *recorder) Files(_ context.Context, a *URIArg) (Reply[*FilesResult], error) {
	r.rec("Files", a)
	return Done(&FilesResult{}), nil
}

func (r *recorder) SaveFiles(_ context.Context, a *SaveFilesArg) (Reply[*SaveFilesResult], error) {
	r.rec("SaveFiles", a)
	return Done(&SaveFilesResult{}), nil
}

func rawArgs(t *testing.T, args ...string) []jsontext.Value {
	out := make([]jsontext.Value, len(args))
	for i, a := range args {
		out[i] = jsontext.Value(a)
	}
	return out
}

func TestDispatch(t *testing.T) {
	ctx := context.Background()
	r := &recorder{}
	fin, err := Dispatch(ctx, r, CmdRunCell, rawArgs(t, `{"uri":"file:///a.py","line":3,"wait":false,"extra":1}`))
	if err != nil {
		t.Fatal(err)
	}
	a := r.arg.(*LineArg)
	if r.method != "RunCell" || a.URI != "file:///a.py" || *a.Line != 3 || Waits(a.Wait) {
		t.Errorf("RunCell got %+v", a)
	}
	res, err := fin(ctx)
	if err != nil || res.(*RunResult).Queued[0] != "e1" {
		t.Errorf("reply %v %v", res, err)
	}
	if _, err := Dispatch(ctx, r, CmdRunRange, rawArgs(t, `{"uri":"u","range":{"start":{"line":1,"character":2},"end":{"line":3,"character":4}}}`)); err != nil {
		t.Fatal(err)
	}
	if ra := r.arg.(*RangeArg); *ra.Range != (Range{Position{1, 2}, Position{3, 4}}) || !Waits(ra.Wait) {
		t.Errorf("RunRange got %+v", ra)
	}
	if _, err := Dispatch(ctx, r, CmdRestart, rawArgs(t, `{"uri":"u"}`)); err == nil || err.Error() != "restart failed" {
		t.Errorf("a method's error is returned: %v", err)
	}
	fin, err = Dispatch(ctx, r, CmdVariables, rawArgs(t, `{"uri":"u"}`))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := fin(ctx); v != nil || err == nil {
		t.Errorf("a reply's error is returned: %v %v", v, err)
	}
	if _, err := Dispatch(ctx, r, CmdSetBackend, rawArgs(t, `{"uri":"u","backend":"container"}`)); err != nil || r.arg.(*BackendArg).Backend != BackendContainer {
		t.Errorf("SetBackend: %v %+v", err, r.arg)
	}
}

func TestDispatchArgumentErrors(t *testing.T) {
	cases := []struct {
		cmd  string
		args []string
		want string
	}{
		{CmdRunCell, nil, `backyard.runCell takes one JSON object argument {"uri": string, "line": number, "wait"?: boolean}, got 0 arguments`},
		{CmdRunCell, []string{`{}`, `{}`}, "got 2 arguments"},
		{CmdRunCell, []string{`"file:///x.py"`}, `takes one JSON object argument {"uri": string, "line": number, "wait"?: boolean}, got "file:///x.py"`},
		{CmdKernelInfo, []string{`null`}, "takes one JSON object argument"},
		{CmdRunCell, []string{`{"line": 0}`}, `backyard.runCell: missing "uri" (the argument is {"uri": string, "line": number, "wait"?: boolean})`},
		{CmdRunCell, []string{`{"uri": null, "line": 0}`}, `missing "uri"`},
		{CmdRunCell, []string{`{"uri": 7, "line": 0}`}, `backyard.runCell: "uri" must be a string, got 7`},
		{CmdRunCell, []string{`{"uri": "u"}`}, `missing "line"`},
		{CmdRunCell, []string{`{"uri": "u", "line": -1}`}, `"line" must be a whole number ≥ 0, got -1`},
		{CmdRunCell, []string{`{"uri": "u", "line": 1.5}`}, `"line" must be a whole number ≥ 0, got 1.5`},
		{CmdRunCell, []string{`{"uri": "u", "line": "0"}`}, `"line" must be a whole number ≥ 0, got "0"`},
		{CmdRunCell, []string{`{"uri": "u", "line": 0, "wait": "yes"}`}, `"wait" must be true or false, got "yes"`},
		{CmdRunAll, []string{`{}`}, `missing "uri"`},
		{CmdRunRange, []string{`{"uri": "u"}`}, `missing "range"`},
		{CmdRunRange, []string{`{"uri": "u", "range": 3}`}, `"range" must be an object {"start", "end"}, got 3`},
		{CmdRunRange, []string{`{"uri": "u", "range": {"start": {"line": 0, "character": 0}}}`}, `missing "range.end"`},
		{CmdRunRange, []string{`{"uri": "u", "range": {"start": {"line": 0}, "end": {"line": 0, "character": 1}}}`}, `missing "range.start.character"`},
		{CmdRunRange, []string{`{"uri": "u", "range": {"start": {"line": "a", "character": 0}, "end": {"line": 0, "character": 1}}}`}, `"range.start.line" must be a whole number ≥ 0, got "a"`},
		{CmdSetBackend, []string{`{"uri": "u"}`}, `missing "backend"`},
		{CmdSetBackend, []string{`{"uri": "u", "backend": "docker"}`}, `backyard.setBackend: "backend" must be "auto", "monty" or "container", got "docker"`},
		{"backyard.nope", []string{`{}`}, `unknown command "backyard.nope" (this server runs backyard.runCell, `},
	}
	for _, tc := range cases {
		r := &recorder{}
		_, err := Dispatch(context.Background(), r, tc.cmd, rawArgs(t, tc.args...))
		var ae *ArgError
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: got %v, want an ArgError containing %q", tc.cmd, tc.args, err, tc.want)
		}
		if r.method != "" {
			t.Errorf("%s %v: %s was called", tc.cmd, tc.args, r.method)
		}
	}
}

func TestDefaults(t *testing.T) {
	d := DefaultSettings()
	if d.Backend != BackendAuto || d.Timeout.Duration().Seconds() != 30 || d.Memory.Bytes() != 256<<20 || d.RecursionLimit != 1000 ||
		d.MaxOutputBytes != 1<<20 || !d.Prewarm || d.Install.AutoInstall != InstallOff || d.Container.Image != "python:3.13-slim" ||
		d.Container.Network != NetworkNone || !d.Container.MountWorkspace || d.Container.Runtime != RuntimeAuto {
		t.Errorf("defaults: %+v", d)
	}
}

func TestParseSettings(t *testing.T) {
	nested := `{"backyard": {"backend": "monty", "timeout": 2.5, "memory": 64, "recursionLimit": 200, "maxOutputBytes": 4096,
		"container": {"image": "img:1", "network": "none", "mountWorkspace": false}, "trace": {"server": "off"}}}`
	o, warns := ParseSettings([]byte(nested), nil)
	if len(warns) != 0 {
		t.Fatalf("warnings: %v", warns)
	}
	s := o.Apply(DefaultSettings())
	if s.Backend != BackendMonty || s.Timeout != 2.5 || s.Memory != 64 || s.RecursionLimit != 200 || s.MaxOutputBytes != 4096 ||
		s.Container.Image != "img:1" || s.Container.Network != NetworkNone || s.Container.MountWorkspace {
		t.Errorf("nested: %+v", s)
	}
	lists, warns := ParseSettings([]byte(`{"files": {"hide": [".env", "*.secret"], "write": "workspace"}}`), nil)
	if s := lists.Apply(DefaultSettings()); len(warns) != 0 || !slices.Equal(s.Files.Hide, []string{".env", "*.secret"}) || s.Files.Write != FilesWorkspace {
		t.Errorf("files: %+v %v", s.Files, warns)
	}
	if _, warns := ParseSettings([]byte(`{"files.hide": [".env", 3], "files.write": "disk"}`), nil); len(warns) != 2 {
		t.Errorf("bad files settings: %v", warns)
	}
	if d := DefaultSettings(); !slices.Contains(d.Files.Hide, ".git") || !slices.Contains(d.Files.Hide, "*.pem") || d.Files.Write != FilesSandbox {
		t.Errorf("files defaults: %+v", d.Files)
	}
	if _, warns := ParseSettings([]byte(`{"container": {"runtime": "kata", "network": "host"}}`), nil); len(warns) != 2 {
		t.Errorf("bad container settings: %v", warns)
	}
	flat, warns := ParseSettings([]byte(`{"backend": "container", "container.image": "img", "backyard.timeout": 3}`), nil)
	if s := flat.Apply(DefaultSettings()); len(warns) != 0 || s.Backend != BackendContainer || s.Container.Image != "img" || s.Timeout != 3 {
		t.Errorf("flat: %+v %v", s, warns)
	}

	// Invalid values are reported by key and keep the previous value.
	prev := Overrides{"backend": "monty", "timeout": 1.0}
	got, warns := ParseSettings([]byte(`{"backend": "docker", "timeout": "abc", "memory": -1, "recursionLimit": 1.5, "montyPath": "/no/such/monty", "unknown": 1}`), prev)
	if s := got.Apply(DefaultSettings()); s.Backend != BackendMonty || s.Timeout != 1 || s.Memory != 256 || s.RecursionLimit != 1000 || s.MontyPath != "" {
		t.Errorf("invalid values were applied: %+v", s)
	}
	var keys []string
	for _, w := range warns {
		keys = append(keys, w.Key)
		if !strings.Contains(w.String(), "ignoring setting backyard."+w.Key+": ") || w.Reason == "" {
			t.Errorf("warning does not name the key and reason: %q", w)
		}
	}
	if strings.Join(keys, ",") != "backend,memory,montyPath,recursionLimit,timeout" {
		t.Errorf("warned keys = %v", keys)
	}
	for _, w := range warns {
		want := map[string]string{
			"backend":        `must be "auto", "monty" or "container", got "docker"`,
			"timeout":        `must be a number of seconds between 0.001 and 86400, got "abc"`,
			"memory":         `must be a whole number of MiB between 1 and 1048576, got -1`,
			"recursionLimit": `must be a whole number between 1 and 1073741824, got 1.5`,
			"montyPath":      `"/no/such/monty" is not an executable file`,
		}[w.Key]
		if w.Reason != want {
			t.Errorf("%s: %q, want %q", w.Key, w.Reason, want)
		}
	}
	if prev["backend"] != "monty" || len(prev) != 2 {
		t.Errorf("ParseSettings changed its input: %v", prev)
	}

	// null resets to the default below; not-an-object is a warning.
	reset, _ := ParseSettings([]byte(`{"backend": null}`), prev)
	if s := reset.Apply(DefaultSettings()); s.Backend != BackendAuto || s.Timeout != 1 {
		t.Errorf("reset: %+v", s)
	}
	if _, warns := ParseSettings([]byte(`[1]`), prev); len(warns) != 1 {
		t.Errorf("an array gave warnings %v", warns)
	}
	if o, warns := ParseSettings([]byte(`null`), prev); len(warns) != 0 || !reflect.DeepEqual(o, prev) {
		t.Errorf("null settings: %+v %v", o, warns)
	}
}

func TestPackageSettings(t *testing.T) {
	dir := t.TempDir()
	o, warns := ParseSettings([]byte(`{"autoInstall": "ask", "indexUrl": "https://pypi.example/simple", "findLinks": "`+dir+`", "prewarm": false}`), nil)
	s := o.Apply(DefaultSettings())
	if len(warns) != 0 || s.Install.AutoInstall != InstallAsk || s.Install.IndexURL == "" || s.Install.FindLinks != dir || s.Prewarm {
		t.Fatalf("%+v %v", s, warns)
	}
	// Booleans are on and off; the old container.* keys still work.
	o, warns = ParseSettings([]byte(`{"container": {"autoInstall": true, "network": true}}`), nil)
	if s := o.Apply(DefaultSettings()); len(warns) != 0 || s.Install.AutoInstall != InstallOn || s.Container.Network != NetworkBridge {
		t.Fatalf("%+v %v", s, warns)
	}
	_, warns = ParseSettings([]byte(`{"autoInstall": "always", "indexUrl": "not a url", "findLinks": "/no/such/dir", "prewarm": "yes"}`), nil)
	if len(warns) != 4 {
		t.Fatalf("%v", warns)
	}
}

func TestBindFlags(t *testing.T) {
	exe, _ := os.Executable()
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	get := BindFlags(fs, "backend", "timeout", "memory", "monty", "image")
	if fs.Lookup("runtime") != nil || fs.Lookup("timeout") == nil {
		t.Fatal("flags not limited to the names given")
	}
	if err := fs.Parse([]string{"--timeout", "2s", "--memory", "64", "--monty", exe, "--image", "img"}); err != nil {
		t.Fatal(err)
	}
	o, err := get()
	if err != nil {
		t.Fatal(err)
	}
	s := o.Apply(DefaultSettings())
	if s.Timeout != 2 || s.Memory != 64 || s.MontyPath != exe || s.Container.Image != "img" || s.Backend != BackendAuto || len(o) != 4 {
		t.Errorf("%+v %v", s, o)
	}
	fs = flag.NewFlagSet("x", flag.ContinueOnError)
	get = BindFlags(fs)
	if err := fs.Parse([]string{"--timeout", "30"}); err != nil {
		t.Fatal(err)
	}
	if o, err := get(); err != nil || o["timeout"] != 30.0 {
		t.Errorf("seconds as a number: %v %v", o, err)
	}
	fs = flag.NewFlagSet("x", flag.ContinueOnError)
	get = BindFlags(fs)
	_ = fs.Parse([]string{"--backend", "docker"})
	if _, err := get(); err == nil || !strings.Contains(err.Error(), `--backend: must be "auto", "monty" or "container"`) {
		t.Errorf("bad flag: %v", err)
	}
}
