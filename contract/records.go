package contract

import "github.com/go-json-experiment/json/jsontext"

// Position is a place in a document: a 0-based line and a UTF-16 code unit
// offset in it, as LSP counts them.
type Position struct {
	Line      uint32 `json:"line"`
	Character uint32 `json:"character"`
}

// Range is a span of a document, from Start up to (not including) End.
type Range struct {
	Start Position `json:"start"`
	End   Position `json:"end"`
}

// Status is how an execution ended.
type Status string

const (
	// Ran to the end.
	StatusOK Status = "ok"
	// Raised a Python exception: a normal result, not a protocol error.
	StatusError Status = "error"
	// Stopped by an interrupt or a cancelled request.
	StatusInterrupted Status = "interrupted"
	// Exceeded the per-cell time limit.
	StatusTimeout Status = "timeout"
	// The kernel process died (killed, out of memory) or could not run.
	StatusCrashed Status = "crashed"
)

// Backend names a kind of kernel.
type Backend string

const (
	// Monty, moving to a container when a cell needs full CPython.
	BackendAuto Backend = "auto"
	// Monty only: a sandboxed interpreter in Rust; starts in milliseconds, no third-party packages.
	BackendMonty Backend = "monty"
	// A Docker/Podman container (gVisor when available) with full CPython.
	BackendContainer Backend = "container"
)

// KernelState is the state of a document's kernel.
type KernelState string

const (
	// The backend is starting (a worker process, a container, an image pull).
	KernelStarting KernelState = "starting"
	// Ready for the next cell.
	KernelIdle KernelState = "idle"
	// Running a cell.
	KernelBusy KernelState = "busy"
	// Closed or crashed; the next run starts a new kernel.
	KernelDead KernelState = "dead"
)

// ExecutionPhase is where an execution is on its way: every execution goes
// queued → running → done; one that never runs goes queued → done.
type ExecutionPhase string

const (
	// Waiting behind the document's earlier runs.
	PhaseQueued ExecutionPhase = "queued"
	// Running in the kernel.
	PhaseRunning ExecutionPhase = "running"
	// Ended: ran (the notification carries the execution) or was dropped.
	PhaseDone ExecutionPhase = "done"
)

// Stream names an output stream.
type Stream string

const (
	// The cell's standard output.
	Stdout Stream = "stdout"
	// The cell's standard error.
	Stderr Stream = "stderr"
)

// Frame is one traceback frame. In an Execution, Line is a 0-based document
// line, -1 for a frame outside the code that ran (a function defined in
// another cell, a library); a kernel's result (package kernel) carries the
// 1-based line in the code that ran instead, 0 outside it.
type Frame struct {
	Line int    `json:"line"`
	Name string `json:"name"`
	Text string `json:"text"`
	// The path, in the kernel, of the file of a frame outside the notebook
	// (library code such as pathlib); empty for the notebook's own code.
	File string `json:"file,omitempty"`
	// The frame's 1-based line in File.
	FileLine int `json:"fileLine,omitzero"`
	// Where the span CPython's traceback marks in the frame (its carets)
	// starts on Line, when the backend knows it (CPython 3.11 and later,
	// Monty). In an Execution a 0-based UTF-16 column of the document line;
	// a kernel's result carries a 0-based code point column of the code.
	Col int `json:"col,omitzero"`
	// The line the span ends on: a document line in an Execution, absent
	// when it is Line; 1-based in the code in a kernel's result.
	EndLine int `json:"endLine,omitzero"`
	// Where the span ends on EndLine (exclusive), counted as Col; 0 when
	// there is no span.
	EndCol int `json:"endCol,omitzero"`
}

// ExecutionError is a Python exception (or a stopped, timed-out or crashed
// run) with its traceback, outermost frame first.
type ExecutionError struct {
	// The exception's type, e.g. "ZeroDivisionError".
	EName string `json:"ename"`
	// Its message, as str() of the exception gives it ("<exception str()
	// failed>" when that raises, as CPython prints it).
	EValue    string  `json:"evalue"`
	Traceback []Frame `json:"traceback"`
	// Its PEP 678 notes (add_note), in order, printed after the message.
	Notes []string `json:"notes,omitempty"`
	// The exception it was raised from (`raise … from cause`), printed
	// before it, then "The above exception was the direct cause of the
	// following exception:".
	Cause *ExecutionError `json:"cause,omitzero"`
	// The exception being handled when it was raised, when there is no
	// cause and the context is not suppressed (`from None`), printed before
	// it, then "During handling of the above exception, another exception
	// occurred:".
	Context *ExecutionError `json:"context,omitzero"`
	// The members of an exception group (ExceptionGroup, except*), each
	// with its own frames, notes, chain and members; CPython prints the
	// first 15.
	Exceptions []ExecutionError `json:"exceptions,omitempty"`
	// How many more members the group has than Exceptions lists ("and N
	// more exceptions").
	MoreExceptions int `json:"moreExceptions,omitzero"`
}

// Value is the value of a cell's trailing expression.
type Value struct {
	// Its repr().
	Text string `json:"text"`
	// A MIME bundle where the backend has one (MIME type → data; binary data
	// base64-encoded), e.g. image/png for a matplotlib figure.
	MIME map[string]string `json:"mime,omitempty"`
}

// Display is one display output of a run (Jupyter's display_data): what
// display() showed, in the order the cell showed it. One whose metadata is
// {"payload": {"source": ...}} is a kernel's payload instead (IPython's
// %load, %edit): no output, a front end acts on it and shows nothing.
type Display struct {
	// A MIME bundle: MIME type → data (binary data base64-encoded); text/plain
	// is always there.
	Data map[string]string `json:"data"`
	// The bundle's metadata, a JSON object (e.g. an image's width).
	Metadata jsontext.Value `json:"metadata,omitempty"`
	// The display_id given to display(); update_display replaced this output's data.
	DisplayID string `json:"displayId,omitempty"`
	// Bytes of the record's stdout printed before it: where Jupyter shows it among the stream's text.
	StdoutBefore int `json:"stdoutBefore,omitzero"`
	// Bytes of the record's stderr printed before it.
	StderrBefore int `json:"stderrBefore,omitzero"`
	// Shown after the cell's value (Out[n]), as the figures IPython's inline backend shows at a cell's end.
	AfterResult bool `json:"afterResult,omitzero"`
}

// Execution is the record of one run of a cell or selection, as run
// commands return it and backyard/executionState carries it.
type Execution struct {
	// Unique for the server's lifetime ("e12").
	ID string `json:"id"`
	// The cell (first code line to the end of its last non-blank line) or the selection.
	Range Range `json:"range"`
	// The kernel's count after this run (1 for the first cell after a start or restart).
	ExecutionCount int    `json:"executionCount"`
	Status         Status `json:"status"`
	Stdout         string `json:"stdout"`
	Stderr         string `json:"stderr"`
	Result         *Value `json:"result,omitzero"`
	// The exception the run raised; with status "ok", the one it showed as
	// an error output (IPython's %tb shows the last exception again).
	Error *ExecutionError `json:"error,omitzero"`
	// What display() showed, in order (clear_output drops those before it).
	Displays []Display `json:"displays,omitempty"`
	// The backend that ran it: "monty" or "container".
	Backend string `json:"backend"`
	// "monty", "runc" or "runsc".
	Runtime string `json:"runtime"`
	// Wall-clock time in the kernel, milliseconds.
	DurationMs float64 `json:"durationMs"`
	// Facts about this run a person must see, one line each: that the
	// namespace was restored to its state before the cell (Monty cannot keep
	// what a stopped cell did).
	Notes []string `json:"notes,omitempty"`
	// The files this run created, changed or deleted, by path.
	Files []FileChange `json:"files,omitzero"`
	// How an auto kernel chose the backend for this run; absent for a run on Monty that no rule touched, and under the monty and container backends.
	Routing *Routing `json:"routing,omitzero"`
}

// FileState is how a file a kernel wrote differs from before.
type FileState string

const (
	// It did not exist.
	FileCreated FileState = "created"
	// Its content changed.
	FileChanged FileState = "changed"
	// It was removed.
	FileDeleted FileState = "deleted"
)

// FileChange is one file a run created, changed or deleted.
type FileChange struct {
	// Absolute, as both the kernel and the host name it.
	Path  string    `json:"path"`
	State FileState `json:"state"`
}

// FileEntry is one file of a kernel's overlay: a file that differs from the workspace.
type FileEntry struct {
	// Absolute, as both the kernel and the host name it.
	Path string `json:"path"`
	// Bytes; 0 for a deleted file.
	Size  int       `json:"size"`
	State FileState `json:"state"`
}

// Check is what the container said about a cell Monty ran, in an auto kernel.
type Check string

const (
	// CPython gave the same output (and the same values for the names the cell uses): Monty's result stands.
	CheckConfirmed Check = "confirmed"
	// CPython raised the same exception with another message: its result is shown, the document stays on Monty.
	CheckMessage Check = "message"
	// CPython gave another result: it is shown and the document moved to the container.
	CheckDiffers Check = "differs"
	// No container could be asked: Monty's result is shown unconfirmed.
	CheckUnconfirmed Check = "unconfirmed"
)

// Routing says why an auto kernel ran a cell where it did.
type Routing struct {
	// The rule that applied: "module:NAME" (an import Monty lacks), "construct:NAME" (a construct Monty rejects or runs differently), "check:NAME" (a construct whose result is compared with CPython's), "error:ENAME" (an exception Monty raised), "limit:NAME" (a limit of Monty's fired), "value:NAME" (a value Monty shows differently); "moved" for a cell that ran in the container because an earlier cell moved the document.
	Rule string `json:"rule"`
	// The rule's reason, in words.
	Reason string `json:"reason,omitempty"`
	// Set when the cell ran on Monty and then in the container to compare.
	Check Check `json:"check,omitempty"`
	// This run moved the document to the container.
	Moved bool `json:"moved,omitempty"`
	// Monty's error, when the container did not confirm it.
	MontyError *ExecutionError `json:"montyError,omitzero"`
	// A fact for a person, e.g. why Monty's error could not be confirmed.
	Note string `json:"note,omitempty"`
}

// CellRun is the backend of one execution of an auto kernel.
type CellRun struct {
	ExecutionCount int `json:"executionCount"`
	// The backend whose result was shown.
	Backend Backend `json:"backend"`
	// The routing rule that applied, empty when none did.
	Rule  string `json:"rule,omitempty"`
	Check Check  `json:"check,omitempty"`
}

// Variable is one name bound in a kernel's namespace.
type Variable struct {
	Name string `json:"name"`
	// The value's type name, e.g. "list".
	Type string `json:"type"`
	// repr() of the value, cut after 200 bytes with "…" (a container is walked only that far; one inside itself shows as CPython's [...]); an object whose own repr runs past the listing's few seconds shows as <T object>.
	Repr string `json:"repr"`
}

// KernelInfo describes a document's kernel.
type KernelInfo struct {
	// The document.
	URI string `json:"uri,omitempty"`
	// The backend running its cells now.
	Backend Backend `json:"backend"`
	// "monty", "runc" or "runsc"; empty before a container started.
	Runtime        string      `json:"runtime"`
	State          KernelState `json:"state"`
	ExecutionCount int         `json:"executionCount"`
	// Versions of what runs the cells: "monty" and "protocol", or "image", "engine" and "python".
	Versions map[string]string `json:"versions,omitempty"`
	// Facts worth showing a person: a runtime warning, why the kernel moved.
	Notes []string `json:"notes,omitempty"`
	// The document's backend setting; Backend is the one running cells now.
	Mode Backend `json:"mode,omitempty"`
	// Why an auto kernel moved to the container.
	Reason string `json:"reason,omitempty"`
	// Where the files its cells write go (files.write).
	Write FilesWrite `json:"write,omitempty"`
	// The routing rule that moved an auto kernel to the container.
	Rule string `json:"rule,omitempty"`
	// An auto kernel's executions since its last restart (the latest 500), with the backend that ran each.
	Cells []CellRun `json:"cells,omitempty"`
}
