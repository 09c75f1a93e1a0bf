package lsp_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

// contractCase is one file of testdata/contract (format: its README.md).
type contractCase struct {
	Description           string          `json:"description"`
	Client                string          `json:"client"`
	InitializationOptions json.RawMessage `json:"initializationOptions"`
	Document              string          `json:"document"`
	URI                   string          `json:"uri"`
	Steps                 []contractStep  `json:"steps"`
}

type contractStep struct {
	Comment string `json:"comment"`

	Command  string          `json:"command"`
	Argument json.RawMessage `json:"argument"`
	Request  string          `json:"request"`
	Notify   string          `json:"notify"`
	Params   json.RawMessage `json:"params"`
	Change   json.RawMessage `json:"change"`

	Result        json.RawMessage `json:"result"`
	Error         json.RawMessage `json:"error"`
	Notifications json.RawMessage `json:"notifications"`
	Until         json.RawMessage `json:"until"`
	Diagnostics   json.RawMessage `json:"diagnostics"`
}

func TestContract(t *testing.T) {
	files, err := filepath.Glob("testdata/contract/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no contract cases: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			var cc contractCase
			dec := json.NewDecoder(strings.NewReader(string(data)))
			dec.DisallowUnknownFields()
			if err := dec.Decode(&cc); err != nil {
				t.Fatalf("%s: %v", file, err)
			}
			runContract(t, name, cc)
		})
	}
}

func runContract(t *testing.T, name string, cc contractCase) {
	c, _ := startBinary(t)
	ctx := testCtx(t)
	caps := lsptest.VSCode
	switch cc.Client {
	case "", "vscode":
	case "neovim-0.7":
		caps = lsptest.Neovim07
		c.Refuse(protocol.MethodWorkspaceCodeLensRefresh)
	default:
		t.Fatalf("unknown client %q", cc.Client)
	}
	var options any
	if len(cc.InitializationOptions) > 0 {
		options = jsontext.Value(cc.InitializationOptions)
	}
	if _, err := c.Initialize(ctx, caps, options); err != nil {
		t.Fatal(err)
	}
	uri := cc.URI
	if uri == "" {
		uri = "file:///contract/" + name + ".py"
	}
	if err := c.Open(ctx, uri, cc.Document); err != nil {
		t.Fatal(err)
	}
	subst := func(raw json.RawMessage) any {
		if len(raw) == 0 {
			return nil
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("bad JSON %s: %v", raw, err)
		}
		return substitute(v, uri)
	}

	for i, st := range cc.Steps {
		label := fmt.Sprintf("step %d", i)
		if st.Comment != "" {
			label += " (" + st.Comment + ")"
		}
		from := c.Mark()
		var result json.RawMessage
		var callErr error
		call := true
		switch {
		case st.Command != "":
			arg, _ := subst(st.Argument).(map[string]any)
			if arg == nil && len(st.Argument) == 0 {
				arg = map[string]any{}
			}
			var argument any = arg
			if arg != nil {
				if u, has := arg["uri"]; !has {
					arg["uri"] = uri
				} else if u == nil {
					delete(arg, "uri") // "uri": null sends no uri
				}
			} else {
				argument = subst(st.Argument) // a deliberately wrong argument
			}
			callErr = c.Command(ctx, st.Command, argument, &result)
		case st.Request != "":
			callErr = c.Call(ctx, st.Request, subst(st.Params), &result)
		case st.Notify != "":
			call = false
			if err := c.Notify(ctx, st.Notify, subst(st.Params)); err != nil {
				t.Fatal(err)
			}
		case len(st.Change) > 0:
			call = false
			// Through the client's copy of the document, at the next version.
			var p protocol.DidChangeTextDocumentParams
			raw := fmt.Sprintf(`{"textDocument":{"uri":%q,"version":0},"contentChanges":%s}`, uri, mustJSON(subst(st.Change)))
			if err := protocol.Unmarshal([]byte(raw), &p); err != nil {
				t.Fatalf("%s: change %s: %v", label, st.Change, err)
			}
			if err := c.EditDocument(ctx, uri, p.ContentChanges...); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("%s: no command, request, notify or change", label)
		}
		if !call {
			// Make sure the notification was handled before checking.
			_, callErr = c.CodeLens(ctx, uri)
			if callErr != nil {
				t.Fatalf("%s: %v", label, callErr)
			}
		}

		if len(st.Error) > 0 {
			var rpcErr *jsonrpc2.Error
			if !errors.As(callErr, &rpcErr) {
				t.Fatalf("%s: got result %s (err %v), want an error", label, result, callErr)
			}
			got := map[string]any{"code": float64(rpcErr.Code), "message": rpcErr.Message}
			if err := match(subst(st.Error), got, "error"); err != nil {
				t.Errorf("%s: %v", label, err)
			}
		} else if callErr != nil {
			t.Fatalf("%s: %v", label, callErr)
		}
		if len(st.Result) > 0 {
			var got any
			if err := json.Unmarshal(result, &got); err != nil {
				t.Fatalf("%s: result %s: %v", label, result, err)
			}
			if err := match(subst(st.Result), got, "result"); err != nil {
				t.Errorf("%s: %v\nresult: %s", label, err, result)
			}
		}
		if len(st.Until) > 0 {
			want := subst(st.Until)
			if err := c.Await(ctx, lsptest.After(from, lsptest.Received("a message matching "+string(st.Until), func(m lsptest.Message) bool {
				return match(want, message(m), "") == nil
			}))); err != nil {
				t.Fatalf("%s: %v", label, err)
			}
		}
		if len(st.Notifications) > 0 {
			want, _ := subst(st.Notifications).([]any)
			got := c.MessagesSince(from)
			if err := subsequence(want, got); err != nil {
				t.Errorf("%s: %v\nreceived:\n%s", label, err, dump(got))
			}
		}
		if len(st.Diagnostics) > 0 {
			var got any = []any{}
			for _, m := range c.Messages() {
				var p struct {
					URI         string `json:"uri"`
					Diagnostics any    `json:"diagnostics"`
				}
				if m.Method == protocol.MethodTextDocumentPublishDiagnostics && m.Decode(&p) == nil && p.URI == uri {
					got = p.Diagnostics
				}
			}
			if err := match(subst(st.Diagnostics), got, "diagnostics"); err != nil {
				t.Errorf("%s: %v\ndiagnostics: %s", label, err, mustJSON(got))
			}
		}
	}
}

// message is a received message as the contract format sees it.
func message(m lsptest.Message) map[string]any {
	var params any
	_ = json.Unmarshal(m.Params, &params)
	return map[string]any{"method": m.Method, "params": params}
}

func dump(msgs []lsptest.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		fmt.Fprintf(&b, "  %s %s\n", m.Method, m.Params)
	}
	return b.String()
}

// substitute replaces the string "$uri" with the document's uri.
func substitute(v any, uri string) any {
	switch v := v.(type) {
	case string:
		if v == "$uri" {
			return uri
		}
	case []any:
		for i := range v {
			v[i] = substitute(v[i], uri)
		}
	case map[string]any:
		for k := range v {
			v[k] = substitute(v[k], uri)
		}
	}
	return v
}

// subsequence checks that want matches received messages in order, others
// may come between.
func subsequence(want []any, got []lsptest.Message) error {
	j := 0
	for i, w := range want {
		for ; j < len(got); j++ {
			if match(w, message(got[j]), "") == nil {
				break
			}
		}
		if j == len(got) {
			return fmt.Errorf("expected notification %d not received (in order): %s", i, mustJSON(w))
		}
		j++
	}
	return nil
}

// match checks got against the expected value want: objects match when
// every expected key matches ("$absent" requires the key to be missing),
// arrays when they have the same length and their elements match, strings
// when equal or, for "re:…", when the regular expression matches, "$any"
// matches anything present.
func match(want, got any, path string) error {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: got %s, want an object", path, mustJSON(got))
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			gv, present := g[k]
			if w[k] == "$absent" {
				if present {
					return fmt.Errorf("%s.%s: got %s, want it absent", path, k, mustJSON(gv))
				}
				continue
			}
			if !present {
				return fmt.Errorf("%s.%s: missing", path, k)
			}
			if err := match(w[k], gv, path+"."+k); err != nil {
				return err
			}
		}
		return nil
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return fmt.Errorf("%s: got %s, want %d elements", path, mustJSON(got), len(w))
		}
		for i := range w {
			if err := match(w[i], g[i], fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		return nil
	case string:
		if w == "$any" {
			return nil
		}
		g, ok := got.(string)
		if re, isRE := strings.CutPrefix(w, "re:"); isRE && ok {
			if !regexp.MustCompile(re).MatchString(g) {
				return fmt.Errorf("%s: %q does not match /%s/", path, g, re)
			}
			return nil
		}
		if !ok || g != w {
			return fmt.Errorf("%s: got %s, want %q", path, mustJSON(got), w)
		}
		return nil
	default:
		if mustJSON(want) != mustJSON(got) {
			return fmt.Errorf("%s: got %s, want %s", path, mustJSON(got), mustJSON(want))
		}
		return nil
	}
}
