package auto

import (
	"github.com/backyard-ls/backyard-ls/kernel/montykernel"
	"github.com/backyard-ls/backyard-ls/pysrc"
)

// The auto kernel's shims are montykernel's probed ones: each is used only
// for a construct the pinned worker runs differently and only when the
// worker, running the construct's probe with the shim, prints what CPython
// printed (probeMonty).
type shim = montykernel.Shim

var shims = montykernel.ProbedShims

func isOp(t pysrc.Token, op string) bool { return t.Kind == pysrc.Op && t.Text == op }

// applyShims rewrites the cell with the given shims; it returns the code
// Monty runs and the constructs that were rewritten.
func applyShims(c *cell, use []shim) (string, []string) {
	return montykernel.ApplyShims(c.code, c.Regions, use)
}

// shimConstructs are the constructs of the cell that only a shim detects.
func shimConstructs(c *cell) []string {
	var out []string
	for _, s := range shims {
		for _, r := range c.Regions {
			if len(s.Edits(r)) > 0 {
				out = append(out, s.Construct)
				break
			}
		}
	}
	return out
}

// prelude is the Monty prelude of the shims.
func prelude(use []shim) string { return montykernel.ShimPrelude(use) }
