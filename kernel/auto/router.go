package auto

import (
	"context"

	"github.com/backyard-ls/backyard-ls/kernel"
)

// Router routes independent snippets (a batch) as the auto kernel routes
// a document's cells, by the same rules.
type Router struct{ caps *Capabilities }

// NewRouter returns the router for the Monty worker binary (its
// capabilities are probed once per release and cached).
func NewRouter(ctx context.Context, binary string) (*Router, error) {
	c, err := MontyCapabilities(ctx, binary)
	if err != nil {
		return nil, err
	}
	return &Router{caps: c}, nil
}

// Route says why code needs the container, "" when Monty can run it.
func (r *Router) Route(code string) string { return route(code, r.caps) }

// Fallback says why a result from Monty means that the code needs the
// container after all (an import Monty could not do, a built-in it
// lacks), or "" when the result stands.
func Fallback(r kernel.Result) string {
	if r.Status != kernel.StatusError {
		return ""
	}
	return unsupported(r.Error)
}
