package main

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// pyFile is the Python package's _protocol.py: the API's method names, its
// records as TypedDicts and its enums as Literal types.
func (m *model) pyFile() []byte {
	var b bytes.Buffer
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	p("# %s\n", genHeader)
	p(`"""The protocol between backyard_ls and ` + "`backyard-ls api`" + `: JSON-RPC 2.0 over the
binary's stdin and stdout, one JSON object per line.

Method names, params and results as contract/api.go declares them (see
docs/contract.md, "The API for programs"). A TypedDict's required keys are
in its base class; the optional ones are in the class itself (total=False).
"""

from __future__ import annotations

from typing import Any, Final, Literal, TypedDict

`)
	for _, group := range []struct {
		comment string
		methods []*apiMethod
	}{
		{"Methods the client calls; a notification gets no answer.", m.api},
		{"What the server sends: requests the client answers, and notifications.", m.apiClient},
	} {
		p("# %s\n", group.comment)
		for _, a := range group.methods {
			kind := "request, result " + a.result
			if a.notification() {
				kind = "notification"
			}
			p("%s: Final = %q\n\"\"\"%s (params %s; %s)\"\"\"\n", strings.ToUpper(a.id), a.id, pyDocLine(a.doc), a.arg, kind)
		}
		p("\n")
	}
	for _, n := range m.apiTypes() {
		if e := m.enums[n]; e != nil {
			var vals []string
			for _, v := range e.values {
				vals = append(vals, strconv.Quote(v.value))
			}
			p("\n%s = Literal[%s]\n\"\"\"%s\n\n", n, strings.Join(vals, ", "), pyDocText(e.doc))
			for _, v := range e.values {
				p("- %q: %s\n", v.value, pyDocText(oneLine(v.doc)))
			}
			p("\"\"\"\n%s_VALUES: Final[tuple[%s, ...]] = (%s)\n\n", pyConst(n), n, strings.Join(vals, ", ")+",")
			continue
		}
		st := m.structs[n]
		var req, opt []*field
		for _, f := range st.fields {
			if f.jsonName == "" {
				continue
			}
			if f.omit {
				opt = append(opt, f)
			} else {
				req = append(req, f)
			}
		}
		field := func(f *field) {
			p("    %s: %s\n", f.jsonName, m.pyType(exprString(f.typ), !f.omit))
			if f.doc != "" {
				p("    \"\"\"%s\"\"\"\n", pyDocText(oneLine(f.doc)))
			}
		}
		doc := fmt.Sprintf("    \"\"\"%s\"\"\"\n", strings.ReplaceAll(pyDocText(st.doc), "\n", "\n    "))
		switch {
		case len(req) > 0 && len(opt) > 0:
			p("\nclass _%sRequired(TypedDict):\n", n)
			for _, f := range req {
				field(f)
			}
			p("\n\nclass %s(_%sRequired, total=False):\n%s\n", n, n, doc)
			for _, f := range opt {
				field(f)
			}
		case len(opt) > 0:
			p("\nclass %s(TypedDict, total=False):\n%s\n", n, doc)
			for _, f := range opt {
				field(f)
			}
		default:
			p("\nclass %s(TypedDict):\n%s\n", n, doc)
			for _, f := range req {
				field(f)
			}
		}
		p("\n")
	}
	out := bytes.TrimRight(b.Bytes(), "\n")
	return append(out, '\n')
}

// pyType is a Go type in Python; nullable is true for a required pointer
// (JSON null when nil).
func (m *model) pyType(t string, nullable bool) string {
	if strings.HasPrefix(t, "*") {
		inner := m.pyType(t[1:], false)
		if nullable && m.structs[t[1:]] == nil {
			return inner + " | None"
		}
		return inner
	}
	switch {
	case t == "string":
		return "str"
	case t == "bool":
		return "bool"
	case t == "int" || t == "uint32" || m.basicDefs[t] == "int":
		return "int"
	case t == "float64" || m.basicDefs[t] == "float64":
		return "float"
	case t == "jsontext.Value":
		return "Any"
	case strings.HasPrefix(t, "[]"):
		return "list[" + m.pyType(t[2:], false) + "]"
	case strings.HasPrefix(t, "map["):
		i := strings.IndexByte(t, ']')
		return "dict[" + m.pyType(t[4:i], false) + ", " + m.pyType(t[i+1:], false) + "]"
	}
	return t
}

// pyDocText makes s safe inside a triple-quoted docstring.
func pyDocText(s string) string {
	s = strings.ReplaceAll(s, `\`, `\\`)
	return strings.ReplaceAll(s, `"""`, `\"\"\"`)
}

func pyDocLine(s string) string { return pyDocText(oneLine(s)) }

// pyConst is a type name as a constant's prefix: APIErrorKind → API_ERROR_KIND.
func pyConst(name string) string {
	var b strings.Builder
	r := []rune(name)
	for i, c := range r {
		upper := c >= 'A' && c <= 'Z'
		if i > 0 && upper && (r[i-1] >= 'a' && r[i-1] <= 'z' || i+1 < len(r) && r[i+1] >= 'a' && r[i+1] <= 'z' && r[i-1] >= 'A' && r[i-1] <= 'Z') {
			b.WriteByte('_')
		}
		b.WriteRune(c)
	}
	return strings.ToUpper(b.String())
}
