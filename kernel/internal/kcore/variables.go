package kcore

import (
	"sort"

	"github.com/backyard-ls/backyard-ls/kernel"
)

// SortVariables sorts by name.
func SortVariables(vs []kernel.Variable) {
	sort.Slice(vs, func(i, j int) bool { return vs[i].Name < vs[j].Name })
}

// CutRepr bounds a variable's repr to kernel.MaxVariableRepr bytes.
func CutRepr(repr string) string {
	if len(repr) > kernel.MaxVariableRepr {
		return TruncateUTF8(repr, kernel.MaxVariableRepr) + "…"
	}
	return repr
}
