package auto

import (
	_ "embed"
	"fmt"
	"regexp"
	"strings"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/pysrc"
)

// route says why code needs the container, or "" when Monty can run it:
// it imports a module Monty lacks, or uses a construct Monty rejects or runs
// differently from CPython (as probed for this worker release).
func route(code string, caps *Capabilities) string {
	a := pysrc.Analyze(code)
	for _, imp := range a.Imports {
		if imp.Top == "" || imp.Top == "__future__" {
			continue
		}
		if !caps.SupportsModule(imp.Module) {
			return fmt.Sprintf("imports %s, which Monty does not provide", imp.Module)
		}
	}
	for _, c := range append(a.Features, a.Uses...) {
		if _, ok := caps.Divergent[c]; ok {
			return fmt.Sprintf("uses %s, which Monty %s", describe(c), "does not run as CPython does")
		}
	}
	return ""
}

func describe(construct string) string {
	if name, ok := strings.CutPrefix(construct, "dunder:"); ok {
		return "the special method " + name
	}
	return strings.ReplaceAll(construct, "-", " ")
}

var (
	undefinedName  = regexp.MustCompile(`^name '([A-Za-z_][A-Za-z0-9_]*)' is not defined`)
	missingAttrMod = regexp.MustCompile(`^module '[^']+' has no attribute`)
	// montyGap are TypeError and ValueError messages of things Monty lacks
	// that CPython runs (file arguments, Path ordering, bytes(iterable)).
	montyGap = regexp.MustCompile(`not yet supported|is not supported|takes no keyword arguments|takes exactly one argument \(1 given\)|not supported between instances of '(Posix|Pure)?Path'|cannot convert '\w+' object to bytes`)
)

// unsupported says why a Monty error means "not available in Monty" rather
// than an ordinary Python error of the cell (which stays a result), or "".
func unsupported(e *contract.ExecutionError) string {
	if e == nil {
		return ""
	}
	switch e.EName {
	case "ModuleNotFoundError", "ImportError":
		return "Monty could not import: " + e.EValue
	case "NotImplementedError":
		if strings.Contains(e.EValue, "monty") || strings.Contains(e.EValue, "not supported") || strings.Contains(e.EValue, "not yet supported") || strings.Contains(e.EValue, "only supported") {
			return "Monty does not support it: " + e.EValue
		}
	case "TypeError", "ValueError":
		if montyGap.MatchString(e.EValue) {
			return "Monty does not support it: " + e.EValue
		}
	case "AttributeError":
		if missingAttrMod.MatchString(e.EValue) {
			return "Monty lacks it: " + e.EValue
		}
	case "NameError":
		if m := undefinedName.FindStringSubmatch(e.EValue); m != nil && pysrc.IsBuiltin(m[1]) {
			return "Monty lacks the built-in " + m[1]
		}
	}
	return ""
}
