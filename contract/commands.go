package contract

import "context"

// Commands is what the server does for workspace/executeCommand: the
// command ID of a method is "backyard." and its name with a lower-case
// first letter (RunCell is backyard.runCell). Every command takes exactly one JSON object argument, decoded into the method's
// argument type; a field without `omitempty` is required. A method runs in
// the order the requests arrived (it takes the document's text as it is at
// that point) and returns a Reply that finishes the command, possibly
// concurrently with later requests. An error from a method or its Reply is
// a JSON-RPC error; a Python exception is a normal result.
//
// The generated Dispatch decodes and checks the arguments, so a method sees
// only well-formed ones.
type Commands interface {
	// RunCell runs the cell containing line (0-based).
	RunCell(ctx context.Context, a *LineArg) (Reply[*RunResult], error)
	// RunAbove runs every code cell above the cell containing line.
	RunAbove(ctx context.Context, a *LineArg) (Reply[*RunResult], error)
	// RunBelow runs the cell containing line and every code cell below it.
	RunBelow(ctx context.Context, a *LineArg) (Reply[*RunResult], error)
	// RunAll runs every code cell in order; it stops at the first execution that is not ok.
	RunAll(ctx context.Context, a *AllArg) (Reply[*RunResult], error)
	// RunRange runs exactly the text in range, dedented.
	RunRange(ctx context.Context, a *RangeArg) (Reply[*RunResult], error)
	// Interrupt stops the running cell and drops the queued ones.
	Interrupt(ctx context.Context, a *URIArg) (Reply[*InterruptResult], error)
	// Restart empties the namespace and sets the execution count to 0; in auto mode the document goes back to Monty.
	Restart(ctx context.Context, a *URIArg) (Reply[*KernelInfo], error)
	// SetBackend replaces the document's kernel with one of another backend.
	SetBackend(ctx context.Context, a *BackendArg) (Reply[*KernelInfo], error)
	// KernelInfo describes the document's kernel: backend, runtime, state, execution count, versions, why it moved.
	KernelInfo(ctx context.Context, a *URIArg) (Reply[*KernelInfo], error)
	// Variables lists the names in the namespace, after the runs queued before it.
	Variables(ctx context.Context, a *URIArg) (Reply[*VariablesResult], error)
	// Files lists the files the document's kernel wrote that differ from the workspace (its overlay), after the runs queued before it.
	Files(ctx context.Context, a *URIArg) (Reply[*FilesResult], error)
	// SaveFiles writes chosen files of the kernel's overlay to the workspace (a deleted one is removed there), after the runs queued before it.
	SaveFiles(ctx context.Context, a *SaveFilesArg) (Reply[*SaveFilesResult], error)
}

// Reply finishes a command after its ordered part.
type Reply[T any] func(ctx context.Context) (T, error)

// Done is a Reply that is already finished.
func Done[T any](v T) Reply[T] {
	return func(context.Context) (T, error) { return v, nil }
}

// URIArg names a document.
type URIArg struct {
	// The document, as the client opened it.
	URI string `json:"uri"`
}

// LineArg names a cell by a line in it.
type LineArg struct {
	URI string `json:"uri"`
	// A 0-based line of the document.
	Line *uint32 `json:"line"`
	// false: answer at once with the queued ids; results come as backyard/executionState.
	Wait *bool `json:"wait,omitempty"`
}

// AllArg runs a whole document.
type AllArg struct {
	URI  string `json:"uri"`
	Wait *bool  `json:"wait,omitempty"`
}

// RangeArg names a selection.
type RangeArg struct {
	URI   string `json:"uri"`
	Range *Range `json:"range"`
	Wait  *bool  `json:"wait,omitempty"`
}

// BackendArg chooses a document's backend.
type BackendArg struct {
	URI     string  `json:"uri"`
	Backend Backend `json:"backend"`
}

// RunResult answers a run command. Exactly one field is present.
type RunResult struct {
	// The executions that ran, in order; ones that never ran (skipped after a
	// failure, dropped by an interrupt) are left out.
	Executions []*Execution `json:"executions,omitzero"`
	// With "wait": false, the ids of the executions queued.
	Queued []string `json:"queued,omitzero"`
}

// InterruptResult says whether a running execution was stopped or queued ones dropped.
type InterruptResult struct {
	Interrupted bool `json:"interrupted"`
}

// VariablesResult lists a namespace, sorted by name.
type VariablesResult struct {
	Variables []Variable `json:"variables"`
}

// SaveFilesArg names files of a document's kernel to write to the workspace.
type SaveFilesArg struct {
	URI string `json:"uri"`
	// Paths as backyard.files lists them.
	Paths []string `json:"paths"`
}

// FilesResult lists a kernel's overlay, sorted by path.
type FilesResult struct {
	Files []FileEntry `json:"files"`
	// Where the kernel's writes go; with "workspace" there is no overlay.
	Write FilesWrite `json:"write"`
}

// SaveFilesResult lists the paths written (or removed) in the workspace.
type SaveFilesResult struct {
	Saved []string `json:"saved"`
}

// Waits reports the "wait" flag of a run argument (default true).
func Waits(w *bool) bool { return w == nil || *w }
