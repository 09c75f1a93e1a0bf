package container

import (
	_ "embed"
	"errors"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/backyard-ls/backyard-ls/internal/shortrepr"
)

//go:embed driver.py
var driverPy string

// ipythonPy is IPython's shell as cells see it (get_ipython, display,
// IPython.display), part of the driver.
//
//go:embed ipython.py
var ipythonPy string

// prettyPy is IPython's pretty printer: the text/plain of values.
//
//go:embed pretty.py
var prettyPy string

// pyerrorPy turns exceptions into records, for the driver and the fork
// server alike.
//
//go:embed pyerror.py
var pyerrorPy string

// driverSource is the in-container driver: stdlib-only Python >= 3.8, with
// the function it shows variables with, its exception records, IPython's
// pretty printer and IPython's shell.
var driverSource = shortrepr.Source + "\n" + pyerrorPy + "\n" + prettyPy + "\n" + ipythonPy + "\n" + driverPy

// driverCommand is the container's command. The driver source goes in as
// arguments: nothing has to be in the image but python3, nothing is written
// to its read-only filesystem, and the driver is ready without a bootstrap
// round trip on stdin. Linux takes at most 128 KiB in one argument, so the
// source goes in parts, which the -c program joins and takes off sys.argv
// before it runs them (sys.argv is ['-c'] as for a plain -c program).
func driverCommand(python string) []string {
	return append([]string{python}, driverArgs()...)
}

// driverArgs is the command after the interpreter, cut once: the source is
// the same for every container.
var driverArgs = sync.OnceValue(func() []string {
	parts := splitSource(driverSource, maxArg)
	join := strings.Repeat("sys.argv.pop(1)+", len(parts)-1) + "sys.argv.pop(1)"
	return append([]string{"-c", "import sys;exec(" + join + ")"}, parts...)
})

// maxArg is the longest argument driverCommand passes, under Linux's
// MAX_ARG_STRLEN (32 pages, with the terminating NUL).
const maxArg = 96 << 10

// splitSource cuts src into parts of at most n bytes, each whole UTF-8
// (Python decodes each argument on its own).
func splitSource(src string, n int) []string {
	var parts []string
	for len(src) > n {
		i := n
		for i > 0 && !utf8.RuneStart(src[i]) {
			i--
		}
		parts = append(parts, src[:i])
		src = src[i:]
	}
	return append(parts, src)
}

// LineMagics and CellMagics are the magics the container's IPython shell
// has before an extension registers more (the _line_NAME and _cell_NAME
// methods of ipython.py, those it sets under names no def can have, and its
// default shell aliases, which IPython registers as line magics), as
// %lsmagic lists them.
var (
	LineMagics = sync.OnceValue(func() map[string]bool { return magics("line") })
	CellMagics = sync.OnceValue(func() map[string]bool { return magics("cell") })
)

// HasLineMagic reports whether the container's IPython shell has the line
// magic name before an extension registers more: the magics every kernel's
// reading of IPython syntax knows.
func HasLineMagic(name string) bool { return LineMagics()[name] }

func magics(kind string) map[string]bool {
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^    def _`+kind+`_(\w+)\(`).FindAllStringSubmatch(ipythonPy, -1) {
		out[m[1]] = true
	}
	for _, m := range regexp.MustCompile(`(?m)^setattr\(_IPyShell, "_`+kind+`_([^"]+)", `).FindAllStringSubmatch(ipythonPy, -1) {
		out[m[1]] = true
	}
	if kind == "line" {
		block := regexp.MustCompile(`(?s)\n_IPY_ALIASES = \((.*?)\n\)`).FindStringSubmatch(ipythonPy)
		if block == nil {
			panic("container: ipython.py has no _IPY_ALIASES block")
		}
		for _, m := range regexp.MustCompile(`(?m)^    \("(\w+)", `).FindAllStringSubmatch(block[1], -1) {
			out[m[1]] = true
		}
	}
	return out
}

// MagicClass is a magic of the container's shell and the class IPython
// registers it with ("Other" for an alias).
type MagicClass struct{ Kind, Name, Class string }

// MagicClasses are IPython's magics in the order it registers them, with
// their classes (the _IPY_MAGIC_CLASSES block of ipython.py): %lsmagic
// --json shows those the container's shell has (LineMagics, CellMagics).
var MagicClasses = sync.OnceValue(func() []MagicClass {
	block := regexp.MustCompile(`(?s)\n_IPY_MAGIC_CLASSES = \((.*?)\n\)`).FindStringSubmatch(ipythonPy)
	if block == nil {
		panic("container: ipython.py has no _IPY_MAGIC_CLASSES block")
	}
	var out []MagicClass
	for _, m := range regexp.MustCompile(`(?m)^    \("(line|cell)", "(\w+)", "([^"]*)"\),$`).FindAllStringSubmatch(block[1], -1) {
		for _, n := range strings.Fields(m[3]) {
			out = append(out, MagicClass{Kind: m[1], Name: n, Class: m[2]})
		}
	}
	return out
})

// LsMagicJSON reports whether args, %lsmagic's, ask for its dict (-j,
// --json or a prefix of it, as argparse takes them); an error is the
// message of IPython's UsageError for other arguments.
func LsMagicJSON(args string) (bool, error) {
	words := strings.Fields(args)
	var bad []string
	for _, w := range words {
		if w != "-j" && !(len(w) > 2 && strings.HasPrefix("--json", w)) {
			bad = append(bad, w)
		}
	}
	if len(bad) > 0 {
		return false, errors.New("unrecognized arguments: " + strings.Join(bad, " "))
	}
	return len(words) > 0, nil
}

// ExtensionMagics are the magics %load_ext name registers in the
// container's shell. Only autoreload, IPython's own extension, is built
// into it: its magics are those of MagicClasses the shell has not before
// (LineMagics, CellMagics).
func ExtensionMagics(name string) []MagicClass {
	if name != "autoreload" {
		return nil
	}
	return autoreloadMagics()
}

var autoreloadMagics = sync.OnceValue(func() []MagicClass {
	has := map[string]map[string]bool{"line": LineMagics(), "cell": CellMagics()}
	var out []MagicClass
	for _, m := range MagicClasses() {
		if !has[m.Kind][m.Name] {
			out = append(out, m)
		}
	}
	return out
})

// ShellMagics are the magics of the container's shell by kind ("line",
// "cell") once the extensions named are loaded (ExtensionMagics), and no
// other magic registered.
func ShellMagics(extensions ...string) map[string]map[string]bool {
	names := map[string]map[string]bool{"line": maps.Clone(LineMagics()), "cell": maps.Clone(CellMagics())}
	for _, e := range extensions {
		for _, m := range ExtensionMagics(e) {
			names[m.Kind][m.Name] = true
		}
	}
	return names
}

// LsMagic is the text %lsmagic returns in the container's shell with
// ShellMagics(extensions...) (IPython 9 returns it as a str, the cell's
// value).
func LsMagic(extensions ...string) string {
	names := ShellMagics(extensions...)
	list := func(prefix string, names map[string]bool) string {
		out := make([]string, 0, len(names))
		for n := range names {
			out = append(out, prefix+n)
		}
		slices.Sort(out)
		return strings.Join(out, "  ")
	}
	return "Available line magics:\n" + list("%", names["line"]) + "\n\nAvailable cell magics:\n" + list("%%", names["cell"]) +
		"\n\nAutomagic is ON, % prefix IS NOT needed for line magics."
}
