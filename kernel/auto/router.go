package auto

import (
	"context"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// Router routes independent snippets (a batch) as the auto kernel routes
// a document's cells, by the same rules. A snippet starts from an empty
// namespace, so no earlier cell is taken into account.
type Router struct {
	caps    *Capabilities
	prelude string // the helpers of the shims it applies
}

// NewRouter returns the router for the Monty worker binary (its
// capabilities are probed once per release and cached).
func NewRouter(ctx context.Context, binary string) (*Router, error) {
	c, err := MontyCapabilities(ctx, binary)
	if err != nil {
		return nil, err
	}
	return &Router{caps: c, prelude: prelude(c.shims())}, nil
}

// Plan is how a snippet runs.
type Plan struct {
	// Route is set when the snippet runs in the container (an import
	// Monty lacks, a construct Monty rejects or runs differently).
	Route *contract.Routing
	// Code is what Monty runs: the snippet with its shims applied.
	Code string
	// Prelude defines the helpers the shims applied call, which Monty
	// runs first (as the auto kernel's Monty session does); empty when
	// Code has none.
	Prelude string

	p plan
}

// Plan decides how code runs. A snippet that is a cell (program false)
// is a fresh kernel's first cell, its IPython syntax included: what Monty's
// kernel hosts (%time, %pwd…) stays on Monty, whose lane runs it as that
// kernel would, and the rest (shell escapes, help, %%bash) goes to the
// container's shell. A program is plain Python: it has no IPython syntax.
func (r *Router) Plan(code string, program bool) Plan {
	if !program {
		if why, ok := magicRule(unboundAutomagic(code), container.HasLineMagic); ok {
			return Plan{Route: &contract.Routing{Rule: why.id, Reason: why.reason}, Code: code, p: plan{code: code, route: &why}}
		}
		code = plainCode(code)
	}
	p := planCell(analyze(code), r.caps, false) // a snippet has no document
	out := Plan{Code: p.code, p: p}
	if p.code != code {
		out.Prelude = r.prelude
	}
	if p.route != nil {
		out.Route = &contract.Routing{Rule: p.route.id, Reason: p.route.reason}
	}
	return out
}

// Check says whether Monty's result mr of a planned snippet needs
// CPython's word (an exception, a limit of Monty's, a construct it runs
// differently in some cases): then the snippet runs in the container too,
// and Verdict gives the result to show. Nil means Monty's result stands.
func (r *Router) Check(pl Plan, mr kernel.Result) *contract.Routing {
	rules := judge(pl.p, mr, nil)
	if len(rules) == 0 {
		return nil
	}
	return &contract.Routing{Rule: rules[0].id, Reason: rules[0].reason}
}

// Verdict is the result shown for a snippet Monty ran (mr) and the
// container ran again (cr) because of why, as the editors show a checked
// cell: Monty's when CPython showed the same, CPython's otherwise.
func Verdict(why contract.Routing, mr, cr kernel.Result) kernel.Result {
	switch {
	case sameOutput(mr, cr):
		why.Check = contract.CheckConfirmed
		mr.Routing = &why
		return mr
	case sameException(mr, cr):
		why.Check = contract.CheckMessage
	default:
		why.Check = contract.CheckDiffers
	}
	why.MontyError = mr.Error
	cr.Routing = &why
	return cr
}
