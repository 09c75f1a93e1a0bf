package container

import (
	"bytes"
	"compress/zlib"
	_ "embed"
	"encoding/base64"
	"regexp"
	"slices"
	"strings"
	"sync"

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

// driverCommand is the container's command: the driver as the -c argument,
// so nothing has to be in the image but python3, nothing is written to its
// read-only filesystem, and the driver is ready without a bootstrap round
// trip on stdin. The source goes in compressed: the kernel takes at most
// 128 KiB per argument, which the source itself outgrew.
func driverCommand(python string) []string {
	return []string{python, "-c", driverArg()}
}

// driverArg unpacks and runs the driver source, in __main__ as -c runs it.
var driverArg = sync.OnceValue(func() string {
	var b bytes.Buffer
	w, _ := zlib.NewWriterLevel(&b, zlib.BestCompression)
	w.Write([]byte(driverSource))
	w.Close()
	return "import base64,zlib;exec(zlib.decompress(base64.b64decode('" + base64.StdEncoding.EncodeToString(b.Bytes()) + "')))"
})

// maxArg is the kernel's limit on one argument of execve (MAX_ARG_STRLEN,
// with its terminating NUL).
const maxArg = 128 << 10

// LineMagics and CellMagics are the magics the container's IPython shell
// has (the _line_NAME and _cell_NAME methods of ipython.py), as %lsmagic
// lists them.
var (
	LineMagics = sync.OnceValue(func() map[string]bool { return magics("line") })
	CellMagics = sync.OnceValue(func() map[string]bool { return magics("cell") })
)

func magics(kind string) map[string]bool {
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`(?m)^    def _`+kind+`_(\w+)\(`).FindAllStringSubmatch(ipythonPy, -1) {
		out[m[1]] = true
	}
	return out
}

// LsMagic is the text %lsmagic returns in the container's shell before any
// magic is registered (IPython 9 returns it as a str, the cell's value).
func LsMagic() string {
	list := func(prefix string, names map[string]bool) string {
		out := make([]string, 0, len(names))
		for n := range names {
			out = append(out, prefix+n)
		}
		slices.Sort(out)
		return strings.Join(out, "  ")
	}
	return "Available line magics:\n" + list("%", LineMagics()) + "\n\nAvailable cell magics:\n" + list("%%", CellMagics()) +
		"\n\nAutomagic is OFF, % prefix IS needed for line magics."
}
