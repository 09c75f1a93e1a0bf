package main

import (
	"fmt"
	"go/ast"
	"strings"
)

// apiMethod is one method of API (client → server) or APIClient (server
// → client).
type apiMethod struct {
	goName string // SaveFiles
	id     string // save_files
	doc    string
	arg    string // SaveFilesArgs
	result string // SaveFilesResult; "" for a notification
}

func (a *apiMethod) notification() bool { return a.result == "" }

// loadAPI reads the API interface (methods (ctx, *Arg) (*Result, error), or
// (ctx, *Arg) error for a notification) and APIClient ((ctx, *Params)
// (*Result, error), or (ctx, *Params) for a notification).
func (m *model) loadAPI(api, client *ast.InterfaceType) error {
	if api == nil || client == nil {
		return fmt.Errorf("no API or APIClient interface")
	}
	read := func(iface *ast.InterfaceType, what string, notify func(*ast.FuncType) bool) ([]*apiMethod, error) {
		var out []*apiMethod
		for _, meth := range iface.Methods.List {
			ft := meth.Type.(*ast.FuncType)
			name := meth.Names[0].Name
			if len(ft.Params.List) != 2 {
				return nil, fmt.Errorf("%s.%s: want (ctx, *Arg)", what, name)
			}
			a := &apiMethod{goName: name, id: snakeCase(name), doc: text(meth.Doc), arg: strings.TrimPrefix(exprString(ft.Params.List[1].Type), "*")}
			if !notify(ft) {
				if ft.Results == nil || len(ft.Results.List) != 2 {
					return nil, fmt.Errorf("%s.%s: want (*Result, error), or a notification", what, name)
				}
				a.result = strings.TrimPrefix(exprString(ft.Results.List[0].Type), "*")
			}
			for _, t := range []string{a.arg, a.result} {
				if t != "" && m.structs[t] == nil {
					return nil, fmt.Errorf("%s.%s: no struct type %s", what, name, t)
				}
			}
			out = append(out, a)
		}
		return out, nil
	}
	var err error
	m.api, err = read(api, "API", func(ft *ast.FuncType) bool {
		return ft.Results != nil && len(ft.Results.List) == 1 && exprString(ft.Results.List[0].Type) == "error"
	})
	if err != nil {
		return err
	}
	m.apiClient, err = read(client, "APIClient", func(ft *ast.FuncType) bool { return ft.Results == nil })
	return err
}

// apiTypes are the struct and enum types reachable from the API's and
// APIClient's params and results, and APIErrorData, in declaration order.
func (m *model) apiTypes() []string {
	roots := []string{"APIErrorData"}
	for _, a := range append(append([]*apiMethod(nil), m.api...), m.apiClient...) {
		roots = append(roots, a.arg, a.result)
	}
	return m.reachable(roots, true)
}

// encodable reports whether AppendJSON can be generated for struct t: every
// field's type, all the way down, is one encode knows (a struct that holds
// itself, as an error holds its cause, is checked once).
func (m *model) encodable(t string) bool {
	seen := map[string]bool{}
	var ok func(t string) bool
	ok = func(t string) bool {
		t = strings.TrimPrefix(t, "*")
		switch {
		case t == "string" || t == "int" || t == "uint32" || t == "float64" || t == "bool" || t == "map[string]string" || t == "jsontext.Value":
			return true
		case m.basicDefs[t] == "float64" || m.enums[t] != nil:
			return true
		case strings.HasPrefix(t, "[]"):
			return ok(t[2:])
		case m.structs[t] != nil:
			if seen[t] {
				return true
			}
			seen[t] = true
			for _, f := range m.structs[t].fields {
				if !ok(exprString(f.typ)) {
					return false
				}
			}
			return true
		}
		return false
	}
	return ok(t)
}

// encodedTypes are the struct types that get a generated AppendJSON: the
// LSP wire types, and the API's notification params the server sends
// often (those whose fields encode knows), with what they hold.
func (m *model) encodedTypes() []string {
	roots := m.wireTypes()
	for _, a := range m.apiClient {
		if a.notification() && m.encodable(a.arg) {
			roots = append(roots, a.arg)
		}
	}
	return m.reachable(roots, false)
}

// apiGo is the part of zz_generated.go for the API: method names and
// DispatchAPI.
func (m *model) apiGo(p func(string, ...any)) {
	for _, group := range []struct {
		iface   string
		methods []*apiMethod
	}{{"API", m.api}, {"APIClient", m.apiClient}} {
		p("// %s method names, one per method of %s.\nconst (\n", group.iface, group.iface)
		for _, a := range group.methods {
			p("\t%s%s = %q\n", group.iface, a.goName, a.id)
		}
		p(")\n\n")
	}
	p(`// DispatchAPI decodes the params of an API method, checks them against
// their declaration and calls the method of a. A notification's result is
// nil. Bad params or an unknown method are an *ArgError.
func DispatchAPI(ctx context.Context, a API, method string, params jsontext.Value) (any, error) {
	switch method {
`)
	for _, x := range m.api {
		p("\tcase API%s:\n\t\tp := new(%s)\n\t\tif err := decodeParams(method, p, params); err != nil {\n\t\t\treturn nil, err\n\t\t}\n", x.goName, x.arg)
		if x.notification() {
			p("\t\treturn nil, a.%s(ctx, p)\n", x.goName)
			continue
		}
		p("\t\tr, err := a.%s(ctx, p)\n\t\tif err != nil {\n\t\t\treturn nil, err\n\t\t}\n\t\treturn r, nil\n", x.goName)
	}
	p("\t}\n\treturn nil, unknownMethod(method)\n}\n\n")
	names := make([]string, len(m.api))
	for i, a := range m.api {
		names[i] = "API" + a.goName
	}
	p("// APIMethods lists the API's methods, in declaration order.\nvar APIMethods = []string{%s}\n\n", strings.Join(names, ", "))
}

// apiTable lists the API's methods for the docs.
func (m *model) apiTable(list []*apiMethod, head string) string {
	var b strings.Builder
	b.WriteString(head + "\n| --- | --- | --- | --- |\n")
	for _, a := range list {
		doc := a.doc
		if i := strings.Index(doc, " "); i > 0 {
			doc = doc[i+1:]
		}
		res := "(notification)"
		if !a.notification() {
			res = fmt.Sprintf("[`%s`](#%s)", a.result, strings.ToLower(a.result))
		}
		fmt.Fprintf(&b, "| `%s` | [`%s`](#%s) | %s | %s |\n", a.id, a.arg, strings.ToLower(a.arg), res, mdCell(doc))
	}
	return b.String()
}

// apiDoc is the API section of docs/contract.md.
func (m *model) apiDoc(p func(string, ...any)) {
	p("## The API for programs\n\nDeclared by `API` and `APIClient` in contract/api.go; the Python types are\n")
	p("generated into `packaging/python/src/backyard_ls/_protocol.py`.\n\n")
	p("%s\n\n", m.typeDocs["API"])
	p("%s\n", m.apiTable(m.api, "| method | params | result | does |"))
	p("### Sent by the server\n\n%s\n\n", m.typeDocs["APIClient"])
	p("%s\n", m.apiTable(m.apiClient, "| method | params | result | sent |"))
	for _, n := range m.apiTypes() {
		if !m.isWire(n) { // the records are documented above
			m.typeDoc(p, "### "+n, n, true)
		}
	}
}
