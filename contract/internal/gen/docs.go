package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
)

// packageJSON rewrites the settings ("contributes.configuration.properties")
// of editors/vscode/package.json, keeping everything else as it is.
func (m *model) packageJSON(root string) ([]byte, error) {
	path := filepath.Join(root, "editors/vscode/package.json")
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	start, end, err := valueSpan(src, "/contributes/configuration/properties")
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	var props bytes.Buffer
	props.WriteString("{")
	all := append(append([]*setting(nil), m.editor[:1]...), m.settings...) // serverPath first: it is what a user sets up first
	all = append(all, m.editor[1:]...)
	for i, s := range all {
		if i > 0 {
			props.WriteString(",")
		}
		fmt.Fprintf(&props, "%q:", "backyard."+s.key)
		props.Write(m.schema(s))
	}
	props.WriteString("}")
	out := append(append(append([]byte(nil), src[:start]...), props.Bytes()...), src[end:]...)
	var ind bytes.Buffer
	if err := json.Indent(&ind, out, "", "  "); err != nil {
		return nil, err
	}
	var norm bytes.Buffer
	if err := json.Compact(&norm, ind.Bytes()); err != nil {
		return nil, err
	}
	ind.Reset()
	_ = json.Indent(&ind, norm.Bytes(), "", "  ")
	ind.WriteByte('\n')
	return ind.Bytes(), nil
}

// schema is a setting's JSON schema in package.json.
func (m *model) schema(s *setting) []byte {
	var b bytes.Buffer
	w := func(k string, v any) {
		if b.Len() > 1 {
			b.WriteString(",")
		}
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(v)
		b.Write(kb)
		b.WriteString(":")
		b.Write(vb)
	}
	b.WriteString("{")
	w("type", m.schemaType(s))
	if m.schemaType(s) == "array" {
		w("items", map[string]string{"type": "string"})
	}
	if e := m.enums[s.goType]; e != nil {
		var vals, docs []string
		for _, v := range e.values {
			vals = append(vals, v.value)
			docs = append(docs, v.doc)
		}
		w("enum", vals)
		w("enumDescriptions", docs)
	}
	w("default", m.jsonDefault(s))
	if v := s.get("min"); v != "" {
		w("minimum", json.Number(v))
	}
	if v := s.get("max"); v != "" {
		w("maximum", json.Number(v))
	}
	if v := s.get("scope"); v != "" {
		w("scope", v)
	}
	if strings.Contains(s.doc, "`") {
		w("markdownDescription", oneLine(s.doc))
	} else {
		w("description", oneLine(s.doc))
	}
	b.WriteString("}")
	return b.Bytes()
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// valueSpan finds the byte span of the value at a JSON pointer.
func valueSpan(src []byte, ptr string) (int, int, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(src))
	for {
		if string(dec.StackPointer()) == ptr && dec.PeekKind() == '{' {
			v, err := dec.ReadValue()
			if err != nil {
				return 0, 0, err
			}
			end := int(dec.InputOffset())
			return end - len(v), end, nil
		}
		if _, err := dec.ReadToken(); err != nil {
			return 0, 0, fmt.Errorf("no %s: %w", ptr, err)
		}
	}
}

// splice replaces what lies between the begin and end markers of name in
// text.
func splice(text, name, body string) (string, error) {
	begin := "<!-- " + name + ": generated from contract/ by `make generate`; do not edit -->\n"
	end := "<!-- end of " + name + " -->"
	i := strings.Index(text, begin)
	j := strings.Index(text, end)
	if i < 0 || j < i {
		return "", fmt.Errorf("markers for %s not found", name)
	}
	return text[:i+len(begin)] + body + text[j:], nil
}

// readme rewrites the generated tables of README.md.
func (m *model) readme(root string) ([]byte, error) {
	src, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		return nil, err
	}
	text, err := splice(string(src), "commands", m.commandTable())
	if err != nil {
		return nil, err
	}
	if text, err = splice(text, "settings", m.settingsTable(m.settings)); err != nil {
		return nil, err
	}
	if text, err = splice(text, "tools", m.toolTable()); err != nil {
		return nil, err
	}
	if text, err = splice(text, "limits", m.limitsTable()); err != nil {
		return nil, err
	}
	if text, err = splice(text, "http", m.httpTable()); err != nil {
		return nil, err
	}
	return []byte(text), nil
}

// limitsTable lists the size limits of what the servers read.
func (m *model) limitsTable() string {
	var b strings.Builder
	b.WriteString("| constant | size | bounds |\n| --- | --- | --- |\n")
	for _, l := range m.limits {
		fmt.Fprintf(&b, "| `contract.%s` | %d MiB | %s |\n", l.name, l.bytes>>20, mdCell(l.doc))
	}
	return b.String()
}

func mdCell(s string) string { return strings.ReplaceAll(oneLine(s), "|", `\|`) }

func (m *model) commandTable() string { return m.methodTable("| command | argument |", m.commands) }

// methodTable lists commands or tools: ID, argument shape, result, doc.
func (m *model) methodTable(head string, list []*command) string {
	var b strings.Builder
	b.WriteString(head + " result | does |\n| --- | --- | --- | --- |\n")
	for _, c := range list {
		doc := c.doc
		if i := strings.Index(doc, " "); i > 0 {
			doc = doc[i+1:] // drop the method name
		}
		fmt.Fprintf(&b, "| `%s` | `%s` | `%s` | %s |\n", c.id, mdCell(m.usage(c.arg)), c.result, mdCell(doc))
	}
	return b.String()
}

func (m *model) settingsTable(list []*setting) string {
	var b strings.Builder
	b.WriteString("| setting | default | meaning |\n| --- | --- | --- |\n")
	for _, s := range list {
		def := s.get("default")
		if def != "" {
			def = "`" + def + "`"
		}
		meaning := s.doc
		if e := m.enums[s.goType]; e != nil {
			var q []string
			for _, v := range e.values {
				if v.value == "" {
					q = append(q, "empty: "+strings.TrimSuffix(v.doc, "."))
				} else {
					q = append(q, "`"+v.value+"`")
				}
			}
			meaning += " One of " + strings.Join(q, ", ") + "."
		}
		if lo, hi := s.get("min"), s.get("max"); lo != "" || hi != "" {
			meaning += fmt.Sprintf(" From %s to %s.", lo, hi)
		}
		if f := s.get("flag"); f != "" {
			meaning += fmt.Sprintf(" Flag `--%s`.", f)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s |\n", s.key, def, mdCell(meaning))
	}
	return b.String()
}

// typeDoc documents an enum (its values) or a struct (its fields) under
// a heading; oneLine joins the type's doc comment into one line.
func (m *model) typeDoc(p func(string, ...any), heading, name string, oneLine bool) {
	if e := m.enums[name]; e != nil {
		p("%s\n\n%s\n\n| value | meaning |\n| --- | --- |\n", heading, e.doc)
		for _, v := range e.values {
			p("| `%q` | %s |\n", v.value, mdCell(v.doc))
		}
		p("\n")
		return
	}
	st := m.structs[name]
	doc := st.doc
	if oneLine {
		doc = strings.ReplaceAll(doc, "\n", " ")
	}
	p("%s\n\n%s\n\n| field | type | meaning |\n| --- | --- | --- |\n", heading, doc)
	for _, f := range st.fields {
		n := "`" + f.jsonName + "`"
		if f.omit {
			n += " (optional)"
		}
		p("| %s | `%s` | %s |\n", n, m.tsType(exprString(f.typ)), mdCell(f.doc))
	}
	p("\n")
}

// contractDoc is docs/contract.md.
func (m *model) contractDoc() []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("<!-- %s -->\n\n# The backyard-ls contract\n\n", genHeader)
	p("What backyard-ls promises its clients, generated from the Go declarations in\n")
	p("[`contract/`](../contract) (commands.go, records.go, notifications.go,\n")
	p("requests.go, ")
	p("settings.go). `lsp/testdata/contract/` holds the same contract as\n")
	p("data-driven cases that the Go, Neovim and VS Code suites replay.\n\n")
	p("All commands are `workspace/executeCommand` requests with exactly one JSON\n")
	p("object argument; positions are LSP positions (0-based line, UTF-16\n")
	p("character). A Python exception is a normal result (`status: \"error\"`), not a\n")
	p("JSON-RPC error; bad arguments are InvalidParams errors with a message for a\n")
	p("person.\n\n## Commands\n\n")
	p("%s\n", m.commandTable())
	for _, c := range m.commands {
		p("### `%s`\n\n%s\n\nArgument `%s`, result [`%s`](#%s).\n\n", c.id, c.doc, m.usage(c.arg), c.result, strings.ToLower(c.result))
	}
	p("## Notifications\n\n| method | params | sent |\n| --- | --- | --- |\n")
	for _, n := range m.notifies {
		p("| `%s` | [`%s`](#%s) | %s |\n", n.method, n.params, strings.ToLower(n.params), mdCell(n.doc))
	}
	p("\n## Requests from the server\n\nSent only to a client that advertises them in `initialize` under\n")
	p("`capabilities.experimental.backyard` ([`ClientCapabilities`](#clientcapabilities)).\n\n")
	p("| method | params | result | sent |\n| --- | --- | --- | --- |\n")
	for _, r := range m.requests {
		p("| `%s` | [`%s`](#%s) | [`%s`](#%s) | %s |\n", r.method, r.params, strings.ToLower(r.params), r.result, strings.ToLower(r.result), mdCell(r.doc))
	}
	p("\nBesides these the server sends `$/progress` while a kernel starts, an image\n")
	p("is pulled or packages install, `textDocument/publishDiagnostics` for errors,\n")
	p("`window/showMessage`, and `workspace/codeLens/refresh` /\n")
	p("`workspace/inlayHint/refresh` only to clients that advertise them. To a\n")
	p("client that advertises `workspace.applyEdit` it sends `workspace/applyEdit`\n")
	p("when a cell's run (not a selection's) set its next input with replace\n")
	p("(IPython's `%%load`; the record's display whose metadata is\n")
	p("`{\"payload\": {\"source\": \"set_next_input\", \"replace\": true}}`): that\n")
	p("text replaces the cell's code, its marker line kept, as Jupyter replaces\n")
	p("the cell. The cells of one run\n")
	p("go in one edit, against the document's version (named when the client\n")
	p("advertises `workspace.workspaceEdit.documentChanges`); a cell edited while\n")
	p("it ran keeps its text. To a client that advertises\n")
	p("`window.showDocument.support` it sends `window/showDocument` when a run's\n")
	p("kernel sent an edit_magic payload (IPython's `%%edit`; metadata\n")
	p("`{\"payload\": {\"source\": \"edit_magic\", \"filename\": ..., \"line_number\": ...}}`)\n")
	p("naming a file within the folders the kernel sees (else a warning says it\n")
	p("is not opened), the cursor at its line. A payload is no output: no\n")
	p("`backyard/display` carries one, and a client shows none.\n\n## Records\n\n")
	for _, n := range m.order {
		if m.isWire(n) {
			m.typeDoc(p, "### "+n, n, false)
		}
	}
	if m.structs["BatchSnippet"] != nil {
		m.typeDoc(p, "## Batch lines", "BatchSnippet", true)
	}
	m.toolsDoc(p)
	m.apiDoc(p)
	p("## Limits\n\n%s\n\n%s\n", oneLine(m.limitsDoc), m.limitsTable())
	p("## Settings\n\nUnder `backyard`, in `initializationOptions`, `workspace/didChangeConfiguration`\n")
	p("or answers to `workspace/configuration` (the server asks when the client\n")
	p("supports it); nested objects and dotted keys are equivalent. An invalid value\n")
	p("is reported with `window/showMessage` and ignored; `null` resets a key. New\n")
	p("settings apply to kernels created afterwards.\n\n")
	p("%s\n### Editor settings\n\nRead by the editors only.\n\n%s", m.settingsTable(m.settings), m.settingsTable(m.editor))
	return b.Bytes()
}
