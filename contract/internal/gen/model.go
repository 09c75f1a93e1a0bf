package main

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/doc"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"unicode"
)

// model is what the contract package declares, read from its source.
type model struct {
	structs   map[string]*structType
	enums     map[string]*enumType
	order     []string // struct and enum names in declaration order
	commands  []*command
	tools     []*command  // MCP tools: id is the tool name
	endpoints []*endpoint // HTTP service
	notifies  []*notification
	requests  []*request // server → client
	settings  []*setting // server settings, flattened, in declaration order
	editor    []*setting // editor-only settings
	typeDocs  map[string]string
	basicDefs map[string]string // named non-struct, non-enum types → underlying ("Seconds" → "float64")
	limits    []limit           // the Max…Bytes constants (limits.go)
	limitsDoc string
}

// limit is a size limit of what the servers read.
type limit struct {
	name  string
	bytes int64
	doc   string
}

type structType struct {
	name   string
	doc    string
	fields []*field
}

type field struct {
	goName   string
	jsonName string
	omit     bool // omitempty or omitzero
	typ      ast.Expr
	doc      string
	tag      reflect.StructTag
}

type enumType struct {
	name   string
	doc    string
	values []enumValue
}

type enumValue struct {
	goName, value, doc string
}

type command struct {
	method string // RunCell
	id     string // backyard.runCell
	doc    string
	arg    string // LineArg
	result string // RunResult
}

// request is a request from the server to the client (a Request* const):
// its params are NameParams, its result NameResult.
type request struct {
	goName string // RequestInput
	method string // backyard/input
	params string // InputParams
	result string // InputResult
	doc    string
}

type notification struct {
	goName string // MethodOutput
	method string // backyard/output
	params string // OutputParams
	doc    string
}

// setting is one leaf of Settings (or EditorSettings).
type setting struct {
	key    string   // "container.image"
	path   []string // Go field path: Container, Image
	goType string   // Go type name of the leaf: string, bool, int, Seconds, MiB, Backend…
	doc    string
	tag    reflect.StructTag
}

func (s *setting) get(k string) string { return s.tag.Get(k) }

func load(dir string) (*model, error) {
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []*ast.File
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") || strings.HasPrefix(n, "zz_") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	m := &model{structs: map[string]*structType{}, enums: map[string]*enumType{}, typeDocs: map[string]string{}, basicDefs: map[string]string{}}
	var iface, tools, httpService *ast.InterfaceType
	var methodConsts []*ast.ValueSpec
	for _, f := range files {
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			switch g.Tok {
			case token.TYPE:
				for _, sp := range g.Specs {
					ts := sp.(*ast.TypeSpec)
					tdoc := text(ts.Doc)
					if tdoc == "" {
						tdoc = text(g.Doc)
					}
					m.typeDocs[ts.Name.Name] = tdoc
					switch t := ts.Type.(type) {
					case *ast.StructType:
						st := &structType{name: ts.Name.Name, doc: tdoc}
						for _, fl := range t.Fields.List {
							if len(fl.Names) != 1 {
								continue // not a wire or settings struct
							}
							tag := reflect.StructTag("")
							if fl.Tag != nil {
								u, _ := strconv.Unquote(fl.Tag.Value)
								tag = reflect.StructTag(u)
							}
							js := tag.Get("json")
							name, opts, _ := strings.Cut(js, ",")
							if name == "-" {
								name = ""
							}
							st.fields = append(st.fields, &field{goName: fl.Names[0].Name, jsonName: name,
								omit: strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero"),
								typ:  fl.Type, doc: text(fl.Doc), tag: tag})
						}
						m.structs[st.name] = st
						m.order = append(m.order, st.name)
					case *ast.InterfaceType:
						switch ts.Name.Name {
						case "Commands":
							iface = t
						case "Tools":
							tools = t
						case "HTTPService":
							httpService = t
						}
					case *ast.Ident:
						m.basicDefs[ts.Name.Name] = t.Name
					}
				}
			case token.CONST:
				for _, sp := range g.Specs {
					vs := sp.(*ast.ValueSpec)
					if id, ok := vs.Type.(*ast.Ident); ok && len(vs.Values) == 1 {
						lit, ok := vs.Values[0].(*ast.BasicLit)
						if !ok || lit.Kind != token.STRING {
							continue
						}
						v, _ := strconv.Unquote(lit.Value)
						e := m.enums[id.Name]
						if e == nil {
							e = &enumType{name: id.Name}
							m.enums[id.Name] = e
							m.order = append(m.order, id.Name)
						}
						e.values = append(e.values, enumValue{goName: vs.Names[0].Name, value: v, doc: text(vs.Doc)})
						continue
					}
					if strings.HasPrefix(vs.Names[0].Name, "Method") || strings.HasPrefix(vs.Names[0].Name, "Request") {
						methodConsts = append(methodConsts, vs)
					}
					if n := vs.Names[0].Name; strings.HasPrefix(n, "Max") && strings.HasSuffix(n, "Bytes") && len(vs.Values) == 1 {
						tv, err := types.Eval(fset, nil, token.NoPos, types.ExprString(vs.Values[0]))
						if err != nil || tv.Value == nil || tv.Value.Kind() != constant.Int {
							return nil, fmt.Errorf("%s: not an integer constant: %v", n, err)
						}
						v, _ := constant.Int64Val(tv.Value)
						m.limits = append(m.limits, limit{name: n, bytes: v, doc: text(vs.Doc)})
						m.limitsDoc = text(g.Doc)
					}
				}
			}
		}
	}
	for name, e := range m.enums {
		e.doc = m.typeDocs[name]
		delete(m.basicDefs, name)
	}
	if iface == nil {
		return nil, fmt.Errorf("no Commands interface")
	}
	for _, meth := range iface.Methods.List {
		ft := meth.Type.(*ast.FuncType)
		name := meth.Names[0].Name
		if len(ft.Params.List) != 2 || ft.Results == nil || len(ft.Results.List) != 2 {
			return nil, fmt.Errorf("Commands.%s: want (ctx, *Arg) (Reply[*Result], error)", name)
		}
		arg := strings.TrimPrefix(exprString(ft.Params.List[1].Type), "*")
		res := exprString(ft.Results.List[0].Type)
		if !strings.HasPrefix(res, "Reply[*") {
			return nil, fmt.Errorf("Commands.%s returns %s, want Reply[*T]", name, res)
		}
		res = strings.TrimSuffix(strings.TrimPrefix(res, "Reply[*"), "]")
		m.commands = append(m.commands, &command{method: name, id: "backyard." + lowerFirst(name), doc: text(meth.Doc), arg: arg, result: res})
	}
	for _, vs := range methodConsts {
		lit := vs.Values[0].(*ast.BasicLit)
		v, _ := strconv.Unquote(lit.Value)
		name := vs.Names[0].Name
		if base, ok := strings.CutPrefix(name, "Request"); ok {
			r := &request{goName: name, method: v, params: base + "Params", result: base + "Result", doc: text(vs.Doc)}
			if m.structs[r.params] == nil || m.structs[r.result] == nil {
				return nil, fmt.Errorf("%s: want %s and %s types", name, r.params, r.result)
			}
			m.requests = append(m.requests, r)
			continue
		}
		params := strings.TrimPrefix(name, "Method") + "Params"
		if m.structs[params] == nil {
			return nil, fmt.Errorf("%s: no %s type", name, params)
		}
		m.notifies = append(m.notifies, &notification{goName: name, method: v, params: params, doc: text(vs.Doc)})
	}
	if err := m.loadTools(tools); err != nil {
		return nil, err
	}
	if err := m.loadHTTP(httpService); err != nil {
		return nil, err
	}
	if m.settings, err = m.flatten("Settings", nil, ""); err != nil {
		return nil, err
	}
	if m.editor, err = m.flatten("EditorSettings", nil, ""); err != nil {
		return nil, err
	}
	return m, nil
}

// flatten lists the leaf settings of a settings struct.
func (m *model) flatten(typ string, path []string, prefix string) ([]*setting, error) {
	st := m.structs[typ]
	if st == nil {
		return nil, fmt.Errorf("no settings type %s", typ)
	}
	var out []*setting
	for _, f := range st.fields {
		t := exprString(f.typ)
		p := append(append([]string(nil), path...), f.goName)
		if sub := m.structs[t]; sub != nil {
			sp := prefix + f.jsonName + "."
			if f.jsonName == "" { // inline: its keys are its parent's
				sp = prefix
			}
			leaves, err := m.flatten(t, p, sp)
			if err != nil {
				return nil, err
			}
			out = append(out, leaves...)
			continue
		}
		out = append(out, &setting{key: prefix + f.jsonName, path: p, goType: t, doc: f.doc, tag: f.tag})
	}
	return out, nil
}

func text(g *ast.CommentGroup) string {
	if g == nil {
		return ""
	}
	return strings.TrimSpace(g.Text())
}

// synopsis is the first sentence of a doc comment.
func synopsis(s string) string {
	var p doc.Package
	return p.Synopsis(s)
}

func exprString(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name
	case *ast.StarExpr:
		return "*" + exprString(t.X)
	case *ast.ArrayType:
		return "[]" + exprString(t.Elt)
	case *ast.MapType:
		return "map[" + exprString(t.Key) + "]" + exprString(t.Value)
	case *ast.SelectorExpr:
		return exprString(t.X) + "." + t.Sel.Name
	case *ast.IndexExpr:
		return exprString(t.X) + "[" + exprString(t.Index) + "]"
	}
	return fmt.Sprintf("%T", e)
}

func lowerFirst(s string) string {
	r := []rune(s)
	r[0] = unicode.ToLower(r[0])
	return string(r)
}

// argTypes are the argument types of the commands, in first-use order.
func (m *model) argTypes() []string {
	seen := map[string]bool{}
	var out []string
	for _, c := range m.commands {
		if !seen[c.arg] {
			seen[c.arg] = true
			out = append(out, c.arg)
		}
	}
	return out
}

// wireTypes are the struct types reachable from the commands' arguments and
// results and the notifications' params, in declaration order.
func (m *model) wireTypes() []string {
	roots := []string{"ClientCapabilities"}
	for _, c := range m.commands {
		roots = append(roots, c.arg, c.result)
	}
	for _, n := range m.notifies {
		roots = append(roots, n.params)
	}
	for _, r := range m.requests {
		roots = append(roots, r.params, r.result)
	}
	return m.reachable(roots...)
}

// reachable are the struct and enum types reachable from the types roots
// (through pointers, lists, map values and fields), in declaration order.
func (m *model) reachable(roots ...string) []string {
	seen := map[string]bool{}
	var visit func(string)
	visit = func(t string) {
		t = strings.TrimLeft(t, "*[]")
		for strings.HasPrefix(t, "map[") {
			t = strings.TrimLeft(t[strings.IndexByte(t, ']')+1:], "*[]")
		}
		if seen[t] {
			return
		}
		if st := m.structs[t]; st != nil {
			seen[t] = true
			for _, f := range st.fields {
				visit(exprString(f.typ))
			}
		} else if m.enums[t] != nil {
			seen[t] = true
		}
	}
	for _, r := range roots {
		visit(r)
	}
	var out []string
	for _, n := range m.order {
		if seen[n] {
			out = append(out, n)
		}
	}
	return out
}
