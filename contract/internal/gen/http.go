package main

import (
	"fmt"
	"go/ast"
	"regexp"
	"strconv"
	"strings"
)

// endpoint is one method of HTTPService.
type endpoint struct {
	method string // RunCode
	verb   string // POST
	path   string // /run_code
	doc    string // without the route line
	arg    string
	result string
}

var routeLine = regexp.MustCompile(`(?m)^\s*(GET|POST|PUT|DELETE) (/\S*)\s*$`)

// loadHTTP reads the HTTPService interface: an endpoint a method, its
// route the last line of its doc.
func (m *model) loadHTTP(iface *ast.InterfaceType) error {
	if iface == nil {
		return fmt.Errorf("no HTTPService interface")
	}
	for _, meth := range iface.Methods.List {
		ft := meth.Type.(*ast.FuncType)
		name := meth.Names[0].Name
		if len(ft.Params.List) != 2 || ft.Results == nil || len(ft.Results.List) != 2 {
			return fmt.Errorf("HTTPService.%s: want (ctx, *Request) (*Response, error)", name)
		}
		doc := text(meth.Doc)
		route := routeLine.FindStringSubmatchIndex(doc)
		if route == nil {
			return fmt.Errorf("HTTPService.%s: its doc does not end with a route (POST /path)", name)
		}
		e := &endpoint{method: name, verb: doc[route[2]:route[3]], path: doc[route[4]:route[5]], doc: strings.TrimSpace(doc[:route[0]]),
			arg: strings.TrimPrefix(exprString(ft.Params.List[1].Type), "*"), result: strings.TrimPrefix(exprString(ft.Results.List[0].Type), "*")}
		for _, t := range []string{e.arg, e.result} {
			if m.structs[t] == nil {
				return fmt.Errorf("HTTPService.%s: no struct type %s", name, t)
			}
		}
		for _, f := range m.structs[e.arg].fields {
			if p := f.tag.Get("path"); p != "" && !strings.Contains(e.path, "{"+p+"}") {
				return fmt.Errorf("HTTPService.%s: %s.%s is path parameter %q, not in %s", name, e.arg, f.goName, p, e.path)
			}
		}
		m.endpoints = append(m.endpoints, e)
	}
	return nil
}

// httpTypes are the struct and enum types of the endpoints and their
// errors, in declaration order.
func (m *model) httpTypes() []string {
	roots := []string{"HTTPError", "ValidationErrors"}
	for _, e := range m.endpoints {
		roots = append(roots, e.arg, e.result)
	}
	return m.reachable(roots...)
}

// httpGo is the part of zz_generated.go for the HTTP service: the
// endpoints, and the requests' defaults.
func (m *model) httpGo(p func(string, ...any)) {
	p("// HTTPEndpoints lists the endpoints of HTTPService, in declaration order.\nvar HTTPEndpoints = []HTTPEndpoint{\n")
	for _, e := range m.endpoints {
		p("\t{Name: %q, Method: %q, Path: %q, Request: %q, Response: %q},\n", e.method, e.verb, e.path, e.arg, e.result)
	}
	p("}\n\n")
	done := map[string]bool{}
	for _, e := range m.endpoints {
		st := m.structs[e.arg]
		if done[e.arg] {
			continue
		}
		done[e.arg] = true
		var sets []string
		for _, f := range st.fields {
			if d := f.tag.Get("default"); d != "" {
				v := d
				if exprString(f.typ) == "string" {
					v = strconv.Quote(d)
				}
				sets = append(sets, fmt.Sprintf("x.%s = %s", f.goName, v))
			}
		}
		if len(sets) == 0 {
			continue
		}
		p("// SetDefaults sets the fields that have a declared default to it.\nfunc (x *%s) SetDefaults() {\n\t%s\n}\n\n", e.arg, strings.Join(sets, "\n\t"))
	}
}

// httpTable is the README's table of endpoints.
func (m *model) httpTable() string {
	var b strings.Builder
	b.WriteString("| endpoint | request | response | does |\n| --- | --- | --- | --- |\n")
	for _, e := range m.endpoints {
		fmt.Fprintf(&b, "| `%s %s` | [`%s`](docs/http.md#%s) | [`%s`](docs/http.md#%s) | %s |\n", e.verb, e.path,
			e.arg, strings.ToLower(e.arg), e.result, strings.ToLower(e.result), mdCell(synopsis(dropName(e.doc))))
	}
	return b.String()
}

// dropName drops the method name a doc comment starts with.
func dropName(doc string) string {
	if i := strings.Index(doc, " "); i > 0 {
		doc = doc[i+1:]
	}
	return strings.ToUpper(doc[:1]) + doc[1:]
}

// httpDoc is docs/http.md.
func (m *model) httpDoc() []byte {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("<!-- %s -->\n\n# The backyard-ls HTTP service\n\n", genHeader)
	p("Generated from `HTTPService` and its types in [`contract/http.go`](../contract/http.go)\n")
	p("(and the execution record of [contract.md](contract.md#execution)).\n\n%s\n\n", oneLine(strings.TrimPrefix(m.typeDocs["HTTPService"], "HTTPService is what `backyard-ls http` serves. ")))
	p("Besides these, `GET /healthz` answers `ok` (200) while the server takes\n")
	p("requests and 503 once it is shutting down, and `GET /metrics` serves the\n")
	p("Prometheus metrics (README, \"HTTP service\").\n\n")
	p("| endpoint | request | response |\n| --- | --- | --- |\n")
	for _, e := range m.endpoints {
		p("| `%s %s` | [`%s`](#%s) | [`%s`](#%s) |\n", e.verb, e.path, e.arg, strings.ToLower(e.arg), e.result, strings.ToLower(e.result))
	}
	p("\n## Endpoints\n\n")
	for _, e := range m.endpoints {
		p("### `%s %s`\n\n%s\n\nRequest [`%s`](#%s), response [`%s`](#%s).\n\n", e.verb, e.path, oneLine(dropName(e.doc)), e.arg, strings.ToLower(e.arg), e.result, strings.ToLower(e.result))
	}
	p("## Types\n\n")
	for _, n := range m.httpTypes() {
		if e := m.enums[n]; e != nil {
			p("### %s\n\n%s\n\n| value | meaning |\n| --- | --- |\n", n, oneLine(e.doc))
			for _, v := range e.values {
				p("| `%q` | %s |\n", v.value, mdCell(v.doc))
			}
			p("\n")
			continue
		}
		st := m.structs[n]
		p("### %s\n\n%s\n\n| field | type | default | meaning |\n| --- | --- | --- | --- |\n", n, oneLine(st.doc))
		for _, f := range st.fields {
			name := "`" + f.jsonName + "`"
			if pp := f.tag.Get("path"); pp != "" {
				name = "`{" + pp + "}` (path)"
			}
			def := f.tag.Get("default")
			if def != "" {
				def = "`" + def + "`"
			}
			p("| %s | `%s` | %s | %s |\n", name, strings.ReplaceAll(m.jsonType(exprString(f.typ)), "|", `\|`), def, mdCell(f.doc))
		}
		p("\n")
	}
	return []byte(b.String())
}

// jsonType is a Go type in JSON terms: string, number, integer, boolean,
// T | null, T[], {string: T}, or a type name.
func (m *model) jsonType(t string) string {
	switch {
	case strings.HasPrefix(t, "*"):
		return m.jsonType(t[1:]) + " | null"
	case strings.HasPrefix(t, "[]"):
		inner := m.jsonType(t[2:])
		if strings.Contains(inner, " ") {
			inner = "(" + inner + ")"
		}
		return inner + "[]"
	case strings.HasPrefix(t, "map[string]"):
		return "{string: " + m.jsonType(strings.TrimPrefix(t, "map[string]")) + "}"
	case t == "string":
		return "string"
	case t == "int":
		return "integer"
	case t == "float64":
		return "number"
	case t == "bool":
		return "boolean"
	case t == "any":
		return "any"
	case m.enums[t] != nil:
		return m.enums[t].union(" | ")
	}
	return t
}
