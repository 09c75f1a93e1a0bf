// Package kernel is the backend-neutral notebook kernel of backyard-ls: the
// Kernel interface that every backend (Monty, container) implements, the
// execution records it returns, and what is built on top of it (the Sandbox
// API and batch runs). It knows nothing of LSP or documents.
package kernel

import (
	"context"
	"errors"
	"time"
)

// Status is how an execution ended.
type Status string

const (
	StatusOK          Status = "ok"          // ran to the end
	StatusError       Status = "error"       // raised a Python exception (a normal result)
	StatusInterrupted Status = "interrupted" // stopped by Interrupt or a cancelled context
	StatusTimeout     Status = "timeout"     // exceeded the per-cell time limit
	StatusCrashed     Status = "crashed"     // the backend process died (killed, out of memory)
)

// Stream names an output stream.
type Stream string

const (
	Stdout Stream = "stdout"
	Stderr Stream = "stderr"
)

// Backend names.
const (
	BackendMonty     = "monty"
	BackendContainer = "container"
	BackendAuto      = "auto"
)

// Frame is one traceback frame. Line is 1-based and relative to the code that
// was executed (the cell), 0 when the backend gave no line.
type Frame struct {
	Line int    `json:"line"`
	Name string `json:"name"`
	Text string `json:"text"`
}

// Error is a Python exception raised by a cell: its type (e.g.
// "ZeroDivisionError"), message and frames, outermost first.
type Error struct {
	EName     string  `json:"ename"`
	EValue    string  `json:"evalue"`
	Traceback []Frame `json:"traceback"`
}

// Value is the value of a cell's trailing expression: its repr, and a MIME
// bundle (MIME type → data; binary data base64-encoded) where the backend has
// one. The Monty backend only has text.
type Value struct {
	Text string            `json:"text"`
	MIME map[string]string `json:"mime,omitempty"`
}

// Result is the record of one execution.
type Result struct {
	// ExecutionCount is the kernel's count after this execution (1 for the
	// first cell after a start or restart); 0 for silent executions.
	ExecutionCount int           `json:"executionCount"`
	Status         Status        `json:"status"`
	Stdout         string        `json:"stdout"`
	Stderr         string        `json:"stderr"`
	Value          *Value        `json:"result,omitempty"`
	Error          *Error        `json:"error,omitempty"`
	Backend        string        `json:"backend"`
	Runtime        string        `json:"runtime"`
	Duration       time.Duration `json:"-"`
}

// Request is one execution.
type Request struct {
	Code string
	// Silent runs without output callbacks and without counting (used to
	// replay history into another backend).
	Silent bool
	// OnOutput, when set, receives output as it arrives, in order. It is
	// called on the executing goroutine and must not block for long.
	OnOutput func(stream Stream, text string)
	// Requirements are packages the document declares (its PEP 723
	// `# /// script` dependencies); a container kernel installs the
	// missing ones under its AutoInstall policy before running.
	Requirements []string
}

// Variable is one name in a kernel's namespace.
type Variable struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Repr string `json:"repr"` // truncated to MaxVariableRepr bytes
}

// MaxVariableRepr bounds Variable.Repr.
const MaxVariableRepr = 200

// State of a kernel.
type State string

const (
	StateStarting State = "starting"
	StateIdle     State = "idle"
	StateBusy     State = "busy"
	StateDead     State = "dead"
)

// Info describes a kernel.
type Info struct {
	Backend        string            `json:"backend"`
	Runtime        string            `json:"runtime"`
	State          State             `json:"state"`
	ExecutionCount int               `json:"executionCount"`
	Versions       map[string]string `json:"versions,omitempty"`
	// Notes are facts worth showing a person: a runtime warning, why the
	// kernel moved to another backend.
	Notes []string `json:"notes,omitempty"`
	// Mode is the document's backend setting ("auto", "monty",
	// "container"); Backend is the one running its cells now.
	Mode string `json:"mode,omitempty"`
	// Reason says why an auto kernel moved to the container.
	Reason string `json:"reason,omitempty"`
}

// Kernel runs code with state kept between executions. Executions of one
// kernel are serialized in the order they are submitted. All methods are safe
// for concurrent use.
type Kernel interface {
	// Execute runs one piece of code. A Python exception, an interrupt, a
	// timeout and a crash of the backend are all results (see Status), not
	// errors; the error is for a kernel that cannot run anything (closed,
	// backend missing). Cancelling ctx interrupts the execution.
	Execute(ctx context.Context, req Request) (Result, error)
	// Interrupt stops the running execution, if any, keeping the state the
	// namespace had before it. Queued executions still run.
	Interrupt() error
	// Restart discards all state: the namespace is empty and the execution
	// count is 0 afterwards.
	Restart(ctx context.Context) error
	// Variables lists the names bound in the namespace.
	Variables(ctx context.Context) ([]Variable, error)
	// Info describes the kernel.
	Info() Info
	// Close stops the backend and releases everything; later calls fail
	// with ErrClosed.
	Close() error
}

// ErrClosed is returned by a closed kernel.
var ErrClosed = errors.New("kernel is closed")
