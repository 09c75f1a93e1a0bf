package main

import (
	"fmt"
	"go/ast"
	"strings"
	"unicode"
)

// loadTools reads the Tools interface: MCP tools, a method each.
func (m *model) loadTools(iface *ast.InterfaceType) error {
	if iface == nil {
		return fmt.Errorf("no Tools interface")
	}
	for _, meth := range iface.Methods.List {
		ft := meth.Type.(*ast.FuncType)
		name := meth.Names[0].Name
		if len(ft.Params.List) != 2 || ft.Results == nil || len(ft.Results.List) != 2 {
			return fmt.Errorf("Tools.%s: want (ctx, *Arg) (*Result, error)", name)
		}
		arg := strings.TrimPrefix(exprString(ft.Params.List[1].Type), "*")
		res := strings.TrimPrefix(exprString(ft.Results.List[0].Type), "*")
		for _, t := range []string{arg, res} {
			if m.structs[t] == nil {
				return fmt.Errorf("Tools.%s: no struct type %s", name, t)
			}
		}
		m.tools = append(m.tools, &command{method: name, id: snakeCase(name), doc: text(meth.Doc), arg: arg, result: res})
	}
	return nil
}

func snakeCase(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) {
			if i > 0 {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// toolTypes are the struct types of the tools' arguments and results and
// the structs they hold, in declaration order.
func (m *model) toolTypes() []string {
	var roots []string
	for _, c := range m.tools {
		roots = append(roots, c.arg, c.result)
	}
	return m.reachable(roots, false)
}

// toolsGo is the part of zz_generated.go for the tools.
func (m *model) toolsGo(p func(string, ...any)) {
	p("// Tool names, one per method of Tools.\nconst (\n")
	for _, c := range m.tools {
		p("\tTool%s = %q\n", c.method, c.id)
	}
	p(")\n\n// ToolSpecs lists the tools of Tools, in declaration order.\nvar ToolSpecs = []ToolSpec{\n")
	for _, c := range m.tools {
		p("\t{Name: Tool%s, Method: %q, Description: %q, Arg: %q, Result: %q},\n", c.method, c.method, oneLine(c.doc), c.arg, c.result)
	}
	p("}\n\n// ToolFieldDocs are the doc comments of the tools' types' fields, by type\n// and JSON name, for their JSON schemas.\nvar ToolFieldDocs = map[string]map[string]string{\n")
	for _, t := range m.toolTypes() {
		p("\t%q: {", t)
		for _, f := range m.structs[t].fields {
			if f.doc != "" {
				p("%q: %q, ", f.jsonName, oneLine(f.doc))
			}
		}
		p("},\n")
	}
	p("}\n\n")
}

func (m *model) toolTable() string { return m.methodTable("| tool | arguments |", m.tools) }

// toolsDoc is the MCP section of docs/contract.md.
func (m *model) toolsDoc(p func(string, ...any)) {
	p("## MCP tools\n\n`backyard-ls mcp` serves these tools (declared by `Tools` in\n")
	p("contract/tools.go); each result is the tool's structuredContent, and its\n")
	p("JSON schemas are the tool's input and output schemas.\n\n%s\n", m.toolTable())
	for _, n := range m.toolTypes() {
		m.typeDoc(p, "### "+n, n, false)
	}
}
