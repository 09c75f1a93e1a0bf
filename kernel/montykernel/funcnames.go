package montykernel

import (
	"regexp"

	"github.com/backyard-ls/backyard-ls/pysrc"
)

// funcNames ties the functions Monty shows by their name alone ("<function
// 'inner' at 0x…>": no qualified name, defaults or annotations) to the
// defs and lambdas of the code a session ran (pysrc.Functions), so that
// one shows as IPython shows it when a single text fits every def of its
// name: a nested def, a lambda a function returned. The code is taken in
// before it runs (a cell that fails midway may have run its defs), and
// whatever a session ran stays (a restored namespace holds no more), so
// a name is never tied to one def while another of its name may have
// made the function.
type funcNames struct {
	texts  map[string]string // by name: IPython's text, "" when not one
	unsure bool              // code that could not be read ran
}

// add takes in code about to run; from the prelude, whose defs are the
// host's (display): names no cell's def may take, and whose lambdas are
// called where they are made.
func (f *funcNames) add(code string, prelude bool) {
	fns, ok := pysrc.Functions(code)
	if !ok {
		f.unsure = true
		return
	}
	if f.texts == nil {
		f.texts = map[string]string{}
	}
	for _, fn := range fns {
		switch old, seen := f.texts[fn.Name]; {
		case prelude && fn.Name == "<lambda>":
		case prelude || seen && old != fn.Text:
			f.texts[fn.Name] = ""
		case !seen:
			f.texts[fn.Name] = fn.Text
		}
	}
}

// reset forgets all: the session starts empty.
func (f *funcNames) reset() { *f = funcNames{} }

// montyFunction is Monty's repr of a function of the cells: its name.
var montyFunction = regexp.MustCompile(`^<function '([A-Za-z_][A-Za-z0-9_]*|<lambda>)' at 0x[0-9a-f]+>$`)

// text is IPython's text of a function of Monty's repr r, "" when the
// code run does not tie it to one text.
func (f *funcNames) text(r string) string {
	m := montyFunction.FindStringSubmatch(r)
	if f == nil || f.unsure || m == nil {
		return ""
	}
	return f.texts[m[1]]
}
