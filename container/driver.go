package container

import (
	_ "embed"

	"github.com/backyard-ls/backyard-ls/internal/shortrepr"
)

//go:embed driver.py
var driverPy string

// ipythonPy is IPython's shell as cells see it (get_ipython, display,
// IPython.display), part of the driver.
//
//go:embed ipython.py
var ipythonPy string

// pyerrorPy turns exceptions into records, for the driver and the fork
// server alike.
//
//go:embed pyerror.py
var pyerrorPy string

// driverSource is the in-container driver: stdlib-only Python >= 3.8, with
// the function it shows variables with, its exception records and
// IPython's shell.
var driverSource = shortrepr.Source + "\n" + pyerrorPy + "\n" + ipythonPy + "\n" + driverPy

// driverCommand is the container's command. The driver source goes in as the
// -c argument (about 20 KB, well under the kernel's 128 KiB per argument):
// nothing has to be in the image but python3, nothing is written to its
// read-only filesystem, and the driver is ready without a bootstrap round
// trip on stdin.
func driverCommand(python string) []string {
	return []string{python, "-c", driverSource}
}
