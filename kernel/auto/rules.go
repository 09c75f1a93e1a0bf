package auto

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/pysrc"
	"github.com/backyard-ls/backyard-ls/pysrc/ipysyntax"
)

// A rule is why the auto kernel does not simply show Monty's result of a
// cell. Its id is contract.Routing.Rule.
type rule struct {
	id     string
	reason string
}

// plan is what the router decides for a cell before it runs.
type plan struct {
	// route is set when the cell must run in the container: it imports a
	// module Monty lacks, or uses a construct Monty rejects or runs
	// differently where comparing the cell's run would not show it.
	route *rule
	// checks are constructs Monty runs differently from CPython in some
	// cases: the cell runs on Monty and then in the container, and the
	// results are compared.
	checks []rule
	// code is what Monty runs: the cell with its shims applied.
	code string
}

// checkable are the constructs whose difference shows in the cell's own
// output or in the values of the names it uses, so that comparing the
// cell's run with CPython's catches it. A divergent construct not listed
// moves the document before the cell runs: its difference may show only in
// a later cell (a special method is called where the class is used), Monty
// rejects the construct before running anything, or running it on Monty
// first costs too much (Monty runs concurrent sleeps one after the other).
var checkable = map[string]bool{
	"set": true, "generator-expression": true, "round-ndigits": true,
	"except-as": true, "type-as-value": true, "dict-bool-key": true, "re-ascii": true, "re-template": true,
	"hasattr": true, "stdio-write": true, "percent-format": true, "complex-literal": true,
	"global": true, "nonlocal": true, "match": true, "object-repr": true,
}

// cell is a cell's code and what one scan of it found (pysrc.Analyze):
// the plan, the shims, the input() test and the names a check compares
// all read it, so that an execution scans its code once.
type cell struct {
	code string
	pysrc.Analysis
	// setting: the cell runs a magic whose setting the kernel keeps
	// (setsKernel), which binds no name to carry.
	setting bool
	// filed is the cell in IPython's history (Count 0: a silent cell).
	filed kernel.HistoryEntry
}

// settingMagics are the line magics that change a setting of the kernel,
// not its namespace: %pprint's pretty printing, %env's and %set_env's
// variables, the extensions loaded.
var settingMagics = map[string]bool{"pprint": true, "env": true, "set_env": true, "load_ext": true, "reload_ext": true, "unload_ext": true}

// setsKernel says whether code (its automagic line resolved) runs a
// setting magic.
func setsKernel(code string) bool {
	for _, u := range ipysyntax.Transform(code).Uses {
		if u.Kind == ipysyntax.LineMagic && settingMagics[u.Name] {
			return true
		}
	}
	return false
}

func analyze(code string) *cell { return &cell{code: code, Analysis: pysrc.Analyze(code)} }

// constructs are the probe names of the constructs in the cell.
func constructs(c *cell) []string {
	out := slices.Concat(c.Features, c.Uses, shimConstructs(c))
	slices.Sort(out)
	return slices.Compact(out)
}

// planCell decides how the cell runs, by what the worker was found to
// support (caps). montyFile says whether Monty's __file__ is CPython's (the
// document's path, see montykernel.ScriptName).
func planCell(c *cell, caps *Capabilities, montyFile bool) plan {
	p := plan{code: c.code}
	if !montyFile && slices.Contains(c.Names, "__file__") {
		p.route = &rule{"construct:__file__", "uses __file__, which Monty defines otherwise than CPython for this code (CPython names the document, or has none without one)"}
		return p
	}
	for _, imp := range c.Imports {
		if imp.Top == "" || imp.Top == "__future__" {
			continue
		}
		if !caps.SupportsModule(imp.Module) {
			p.route = &rule{"module:" + imp.Module, fmt.Sprintf("imports %s, which Monty does not provide", imp.Module)}
			return p
		}
	}
	var use []shim
	for _, x := range constructs(c) {
		if _, diverges := caps.Divergent[x]; !diverges {
			continue
		}
		switch {
		case caps.Shimmed[x]:
			i := slices.IndexFunc(shims, func(s shim) bool { return s.Construct == x })
			use = append(use, shims[i])
		case checkable[x]:
			p.checks = append(p.checks, rule{"check:" + x, fmt.Sprintf("uses %s, which Monty runs differently from CPython in some cases", describe(x))})
		default:
			p.route = &rule{"construct:" + x, fmt.Sprintf("uses %s, which Monty does not run as CPython does", describe(x))}
			return p
		}
	}
	p.code, _ = applyShims(c, use)
	return p
}

// mayNeedContainer reports whether a cell is likely to need the container:
// it is routed or checked, or it raises on purpose (its error is
// confirmed).
func mayNeedContainer(code string, caps *Capabilities, montyFile bool) bool {
	if _, ok := magicRule(unboundAutomagic(code), container.HasLineMagic); ok {
		return true
	}
	code = plainCode(code)
	c := analyze(code)
	p := planCell(c, caps, montyFile)
	if p.route != nil || len(p.checks) > 0 {
		return true
	}
	for _, t := range c.Regions[0] {
		if t.Kind == pysrc.Name && (t.Text == "raise" || t.Text == "assert") {
			return true
		}
	}
	return false
}

func describe(construct string) string {
	if name, ok := strings.CutPrefix(construct, "dunder:"); ok {
		return "the special method " + name
	}
	return strings.ReplaceAll(construct, "-", " ")
}

var undefinedName = regexp.MustCompile(`^name '([A-Za-z_][A-Za-z0-9_]*)' is not defined$`)

// judge lists why Monty's result r of a cell planned as p must be compared
// with CPython's: the plan's checks, an exception Monty raised that is not
// proven to be CPython's, a limit of Monty's, a value Monty may show
// differently. seen holds the names of the cells run before.
//
// A cell that a limit, an interrupt or a death stopped is never run again
// elsewhere: one budget per cell. Its result stands as Monty gave it.
func judge(p plan, r kernel.Result, seen map[string]bool) []rule {
	if stopped(r) {
		return nil
	}
	var out []rule
	switch r.Status {
	case kernel.StatusError:
		if !provenError(r.Error, seen) {
			out = append(out, errorRule(r.Error))
		}
	case kernel.StatusOK:
		if deepNesting(r) {
			out = append(out, rule{"value:deep-nesting", "the cell shows a deeply nested value, which CPython's repr may refuse (RecursionError)"})
		}
	}
	if r.Status == kernel.StatusOK || r.Status == kernel.StatusError {
		if showsMontyRepr(r) {
			out = append(out, rule{"value:object-repr", "the cell shows an object's default repr, which Monty spells differently"})
		}
	}
	return append(out, p.checks...)
}

// stopped reports a result that the kernel ended rather than the code:
// its time limit, an interrupt, a death, or a limit Monty stopped it at
// (its namespace restored to before the cell).
func stopped(r kernel.Result) bool {
	return r.Restored || r.Status == kernel.StatusTimeout || r.Status == kernel.StatusInterrupted || r.Status == kernel.StatusCrashed
}

func errorRule(e *contract.ExecutionError) rule {
	switch {
	case e.EName == "MemoryError":
		return rule{"limit:memory", "Monty's memory limit stopped the cell: " + e.EValue}
	case e.EName == "RecursionError":
		return rule{"limit:recursion", "Monty's recursion limit stopped the cell: " + e.EValue}
	}
	return rule{"error:" + e.EName, fmt.Sprintf("Monty raised %s: %s", e.EName, firstLine(e.EValue))}
}

// provenError reports an exception that CPython certainly raises too, with
// the same message: a NameError for a name that no cell run before
// mentions and that is no built-in of CPython's, or the UsageError of a
// magic IPython's shell has not (Monty answers that cell as the container
// would, from the same list). Every other exception is confirmed on the
// container before it is shown.
func provenError(e *contract.ExecutionError, seen map[string]bool) bool {
	if e != nil && e.EName == "UsageError" && len(e.Traceback) == 0 {
		name, ok := strings.CutPrefix(e.EValue, "Line magic function `%")
		name, ok2 := strings.CutSuffix(name, "` not found.")
		return ok && ok2 && !container.HasLineMagic(name)
	}
	if e == nil || e.EName != "NameError" {
		return false
	}
	m := undefinedName.FindStringSubmatch(e.EValue)
	// A module's dunder globals (__builtins__, __name__…) exist in CPython,
	// and IPython's history (In, Out, _, _1…) in its shell.
	return m != nil && !seen[m[1]] && !pysrc.IsBuiltin(m[1]) && !strings.HasPrefix(m[1], "__") && !ipysyntax.IsHistoryName(m[1])
}

// montyRepr matches Monty's spelling of default reprs: an instance or a
// function with its address, a class without its module, a bound method
// without its function and instance.
var montyRepr = regexp.MustCompile(`<[A-Za-z_][A-Za-z0-9_.]* object at 0x[0-9a-f]+>|<function '[^']*' at 0x|<class '([A-Za-z_][A-Za-z0-9_]*)'>|<bound method>`)

// showsMontyRepr reports output holding a default repr that CPython would
// spell otherwise (a built-in class's, <class 'int'>, is the same in both).
func showsMontyRepr(r kernel.Result) bool {
	texts := []string{r.Stdout, r.Stderr, valueText(r)}
	if r.Error != nil {
		texts = append(texts, r.Error.EValue)
	}
	for _, s := range texts {
		for _, m := range montyRepr.FindAllStringSubmatch(s, -1) {
			if m[1] == "" || !pysrc.IsBuiltin(m[1]) {
				return true
			}
		}
	}
	return false
}

// maxNesting is the bracket depth from which a value Monty shows is
// checked: CPython's repr of a deeper container may raise RecursionError
// (its limit counts nesting), Monty's does not.
const maxNesting = 200

func deepNesting(r kernel.Result) bool {
	texts := []string{r.Stdout}
	if r.Value != nil {
		texts = append(texts, r.Value.Text)
	}
	for _, s := range texts {
		depth := 0
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '[', '(', '{':
				if depth++; depth >= maxNesting {
					return true
				}
			case ']', ')', '}':
				depth = max(depth-1, 0)
			}
		}
	}
	return false
}

// richRepr finds the methods that give an object IPython's rich display.
var richRepr = regexp.MustCompile(`\b_repr_(html|markdown|svg|png|jpeg|latex|json|pdf|javascript|mimebundle)_\b`)

// magicRule is the rule of a cell written with IPython's syntax (magics,
// shell escapes, help) or defining a rich display (_repr_html_) that a
// Monty kernel cannot answer as IPython does: IPython's shell runs in the
// container only. What Monty's host answers (%time, %env and the others of
// ipysyntax.Result.Hosted) has none. known says which line magics the
// shell has (those of the extensions loaded besides its own).
func magicRule(code string, known func(name string) bool) (rule, bool) {
	if m := richRepr.FindString(code); m != "" {
		return rule{"construct:rich-display", "defines " + m + ", which IPython displays in its rich form and Monty's display() as text only"}, true
	}
	t := ipysyntax.Transform(code)
	if _, inert := t.Plain(); inert {
		return rule{}, false // none, or only magics Monty runs as None
	}
	if u, ok := t.Single(); ok && u.MontyAnswers(known) {
		return rule{}, false // %pwd, or a magic IPython has not: Monty answers as IPython does
	}
	u := t.Uses[0]
	if _, bad, ok := t.Hosted(known, nil); ok {
		return rule{}, false // %time, %env, %whos and the rest Monty's host answers as IPython does
	} else if !ok {
		u = bad
	}
	what := "the magic " + u.String()
	switch u.Kind {
	case ipysyntax.Shell, ipysyntax.ShellOutput:
		what = "a shell command (" + u.String() + ")"
	case ipysyntax.Help:
		what = "IPython's help (?)"
	}
	return rule{"construct:magic", "uses " + what + ", which IPython's shell runs and Monty has not"}, true
}

// unboundAutomagic is code with an automagic line (ipysyntax.Automagic)
// as the magic it is where its name is not bound (nowhere, in a fresh
// kernel's first cell: Router.Plan).
func unboundAutomagic(code string) string {
	if name, args, ok := ipysyntax.Automagic(code, container.HasLineMagic); ok {
		return ipysyntax.Escaped(name, args)
	}
	return code
}

// plainCode is code cleaned up as IPython does (a pasted session's
// prompts gone) with its inert magics as None (ipysyntax.Result.Plain),
// code itself when it has other magics.
func plainCode(code string) string {
	t := ipysyntax.Transform(code)
	if plain, ok := t.Plain(); ok {
		return plain
	}
	return code
}
