package kernel

import "context"

// HostFunc is a host function the sandboxed code calls by name (Monty's
// external functions; in a container, through the driver's channel). It
// runs on the host. Arguments and the result are JSON-compatible values:
// nil, bool, int64 (*big.Int beyond 64 bits), float64, string, []any and
// map[string]any; a result may be anything encoding/json can marshal. An
// error raises in the cell: a *HostError as its exception type, any other
// as RuntimeError. ctx ends when the cell is interrupted or times out.
type HostFunc func(ctx context.Context, args []any, kwargs map[string]any) (any, error)

// HostError is an exception a HostFunc raises in the cell, e.g.
// {Type: "ValueError", Message: "no such user"}. A type the backend does not
// know becomes a RuntimeError that names it.
type HostError struct {
	Type    string
	Message string
}

func (e *HostError) Error() string {
	if e.Message == "" {
		return e.Type
	}
	return e.Type + ": " + e.Message
}

// Installer is a kernel that installs packages on request, into the
// container's package volume, whatever the install policy (the caller
// decided). The packages are importable by the next cell.
type Installer interface {
	Install(ctx context.Context, packages []string) error
}
