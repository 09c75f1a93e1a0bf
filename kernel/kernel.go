// Package kernel is the contract every backend kernel implements: the
// Kernel interface, what an execution is asked (Request) and gives back
// (Result), the limits, the state and the configuration of a new kernel.
// The backends live in montykernel, containerkernel and auto; package
// kernels creates one from a Config; package sandbox is the API for
// programs. It knows nothing of LSP or documents.
package kernel

import (
	"context"
	"errors"
	"time"

	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
)

// Status is how an execution ended (contract.Status).
type Status = contract.Status

// Statuses, as the contract names them.
const (
	StatusOK          = contract.StatusOK
	StatusError       = contract.StatusError
	StatusInterrupted = contract.StatusInterrupted
	StatusTimeout     = contract.StatusTimeout
	StatusCrashed     = contract.StatusCrashed
)

// Stream names an output stream.
type Stream = contract.Stream

// Streams.
const (
	Stdout = contract.Stdout
	Stderr = contract.Stderr
)

// State of a kernel (contract.KernelState).
type State = contract.KernelState

// States.
const (
	StateStarting = contract.KernelStarting
	StateIdle     = contract.KernelIdle
	StateBusy     = contract.KernelBusy
	StateDead     = contract.KernelDead
)

// Info describes a kernel (contract.KernelInfo; URI stays empty at this
// layer).
type Info = contract.KernelInfo

// Variable is one name in a kernel's namespace.
type Variable = contract.Variable

// MaxVariableRepr bounds Variable.Repr, in bytes.
const MaxVariableRepr = 200

// Result is the record of one execution. Error's traceback lines are
// 1-based lines of the code that ran; 0 for a frame outside it.
type Result struct {
	// ExecutionCount is the kernel's count after this execution (1 for the
	// first cell after a start or restart); 0 for silent executions.
	ExecutionCount int
	Status         Status
	Stdout         string
	Stderr         string
	// Value is the trailing expression's value, nil when there is none.
	Value *contract.Value
	// Displays are what display() showed, in order.
	Displays []contract.Display
	// Error is set for every status but ok.
	Error *contract.ExecutionError
	// Backend ran the code: "monty" or "container"; Runtime is "monty",
	// "runc" or "runsc".
	Backend  contract.Backend
	Runtime  string
	Duration time.Duration
	// Notes are facts about the run a person must see (contract.Execution's
	// notes), e.g. that the namespace was restored to before the cell.
	Notes []string
	// Restored: the backend put the namespace back as it was before this
	// execution (Monty after a limit or an interrupt stopped it): nothing
	// the code did is kept, so nothing of it is replayed elsewhere.
	Restored bool
	// Files are the files the execution created, changed or deleted.
	Files []contract.FileChange
	// Routing is set by an auto kernel when a rule decided where the cell
	// ran or whose result is shown.
	Routing *contract.Routing
	// Fetched holds the content of a batch snippet's Fetch files, by path.
	Fetched map[string]string
	// Exit is how a batch snippet's process ended when it ended without a
	// result (status crashed): os._exit, or a signal.
	Exit *ProcessExit
	// Unavailable: the cell did not run, as the backend it needs could
	// not start (Error says why); an editor shows it as the cell's error,
	// a program's API raises it.
	Unavailable bool
}

// ProcessExit is how a process ended: its exit code, or the signal that
// killed it (Signal > 0).
type ProcessExit struct {
	Code   int
	Signal int
}

// Uncounted is the Count of a run a kernel's owner makes for itself (an
// auto kernel reading the values it compares): it shows its output, but
// IPython's history does not see it.
const Uncounted = -1

// HistoryEntry is a cell in IPython's history: In[Count] holds Code (as
// IPython transforms it), _iN and %history Source (as written). Value: the
// cell showed a value, which the global _N holds (carried in), for Out.
type HistoryEntry struct {
	Count        int
	Code, Source string
	Value        bool
}

// Request is one execution.
type Request struct {
	Code string
	// Silent runs without output callbacks and without counting (used to
	// replay history into another backend).
	Silent bool
	// Count, when set, is the execution count the cell is numbered with
	// (an auto kernel's, which counts the cells of both its backends): the
	// kernel files it under it in IPython's history (In, Out, _N) and its
	// result; a container files a silent cell with a Count too (a replay
	// of a cell the document ran elsewhere). 0: the kernel's own count;
	// Uncounted: neither counted nor filed.
	Count int
	// Source is the cell as the document holds it, when Code was rewritten
	// from it (an auto kernel's shims): IPython's input history (_iN,
	// %history) holds it. "": Code.
	Source string
	// Earlier are cells of the document another backend ran (an auto
	// kernel's Monty), which a container files in IPython's history, in
	// order, before this cell.
	Earlier []HistoryEntry
	// LastError, when set, is the exception the document last raised on
	// another backend (an auto kernel's Monty), which this one did not
	// see: IPython's %tb and %debug in this cell show it, as the last
	// exception. Frames of the cell it came from have Line 0 and say so in
	// their text ("cell N:line: "), as frames of an earlier cell do.
	LastError *contract.ExecutionError
	// OnOutput, when set, receives output as it arrives, in order. It is
	// called on the executing goroutine and must not block for long.
	OnOutput func(stream Stream, text string)
	// OnDisplay, when set, receives display events as they arrive, in order
	// with the output: a new output, an update (of the outputs with its
	// display id) or a clear. Same goroutine rules as OnOutput.
	OnDisplay func(d contract.Display, update, clear bool)
	// OnSent, when set, is called once the code is on its way to the
	// interpreter, which runs it while the kernel waits: what the caller
	// reported of the execution so far can be sent then, alongside the run
	// (the LSP server writes a run's first notifications there). It is
	// called on the executing goroutine, at most once per run of the code.
	OnSent func()
	// OnInput, when set, answers the cell's input(): it asks the person for
	// a line (prompt is what the cell passed) and returns it; ctx ends when
	// the cell stops waiting (an interrupt). ErrInputDismissed gives the
	// cell KeyboardInterrupt, any other error EOFError. Without OnInput,
	// input() fails at once, before its prompt: StdinNotImplementedError,
	// as ipykernel's with no stdin (on Monty a caught one is an Exception).
	OnInput func(ctx context.Context, prompt string, password bool) (string, error)
	// Requirements are packages the document declares (its PEP 723
	// `# /// script` dependencies); a container kernel installs the
	// missing ones under its install policy before running.
	Requirements []string
	// Inputs are values bound as globals of the namespace before the code
	// runs (named inputs, JSON-compatible as for HostFunc); they persist.
	Inputs map[string]any
	// Functions are host functions bound as globals under their names.
	Functions map[string]HostFunc
	// Limits override the kernel's limits for this execution only (zero
	// fields keep them); the namespace is kept. Timeout and MaxOutputBytes
	// can change; a session's MemoryBytes and RecursionDepth are fixed when
	// it starts (a different one is an error wrapping ErrLimitFixed).
	Limits Limits
	// Spent is the part of its time limit the cell used on another backend
	// before this run (an auto kernel's check): one budget per cell, this
	// run gets what is left, and a timeout still names the whole limit.
	Spent time.Duration
}

// TimeLeft is the time this execution may run under limits l: the time
// limit less what the cell spent elsewhere.
func (r Request) TimeLeft(l Limits) time.Duration { return l.Timeout - r.Spent }

// Kernel runs code with state kept between executions. Executions of one
// kernel are serialized in the order they are submitted. All methods are
// safe for concurrent use.
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
	// Close stops the backend and releases everything, waiting for work
	// the kernel started in the background (a pre-warm, an image pull);
	// later calls fail with ErrClosed.
	Close() error
}

// Prewarmer is a kernel that can start a backend ahead of the cell that
// needs it (an auto kernel's container).
type Prewarmer interface {
	// Prewarm looks at the document's code cells and, when one will need
	// a backend that is not running, starts it in the background. It
	// reports whether a start was begun.
	Prewarm(codes []string) bool
}

// Stopper is a kernel whose running execution can be ended at once, as
// Restart and Close end it, whatever the code does (it catches every
// KeyboardInterrupt, it never returns to the interpreter): a restart that
// must not wait behind the cell calls Stop first. The execution ends
// interrupted ("the kernel was restarted") and its namespace is lost.
type Stopper interface {
	Stop()
}

// ErrClosed is returned by a closed kernel.
var ErrClosed = errors.New("kernel is closed")

// Config configures a new kernel of any backend (kernels.New creates it).
type Config struct {
	// Settings are the effective backyard.* settings: the backend, the
	// limits, the Monty worker, container and install settings.
	Settings contract.Settings
	// Roots are the host folders the kernel sees, read-only (less the
	// files.hide names): the workspace folders. Empty: Workspace.
	Roots []string
	// Workspace is the one root when Roots is empty.
	Workspace string
	// Dir is the kernel's working directory (os.getcwd()), the document's
	// folder; empty: the first root.
	Dir string
	// File is the document's path: cells see it as __file__, as VS Code's
	// Interactive Window defines it. Empty: __file__ is not defined, as in
	// an IPython kernel.
	File string
	// OnIdleOutput, when set, gets what the kernel's threads print while no
	// execution runs, as it comes (stream and text).
	OnIdleOutput func(stream Stream, text string)
	// DockerHost overrides DOCKER_HOST, e.g. unix:///run/podman/podman.sock.
	DockerHost string
	// Env is added to the environment every kernel's cells see
	// (container.CellEnv: PATH, HOME, LANG…), on Monty (os.getenv,
	// os.environ) and in a container alike. Nothing of the host's
	// environment is passed.
	Env map[string]string
	// OnState, when set, is told of every kernel state change.
	OnState func(State)
	// OnProgress follows long steps (an image pull, a package install):
	// percent is -1 when unknown; done is true once, at the end.
	OnProgress func(title, message string, percent int, done bool)
	// OnWarning gets warnings for the user, e.g. that gVisor is missing;
	// each is given once per process.
	OnWarning func(string)
	// Confirm asks the user whether to install packages (install policy
	// "ask"); nil means no.
	Confirm func(ctx context.Context, packages []string) bool
	Logger  *zap.Logger
}

// FileRoots are the folders the kernel sees.
func (c Config) FileRoots() []string {
	if len(c.Roots) > 0 {
		return c.Roots
	}
	if c.Workspace != "" {
		return []string{c.Workspace}
	}
	return nil
}

// WorkDir is the kernel's working directory: Dir, else the first root;
// "" when there is neither.
func (c Config) WorkDir() string {
	if c.Dir != "" {
		return c.Dir
	}
	if r := c.FileRoots(); len(r) > 0 {
		return r[0]
	}
	return ""
}

// FileKeeper is a kernel that keeps the files its cells write apart from
// the workspace (files.write "sandbox"): its overlay.
type FileKeeper interface {
	// Files lists the overlay's files that differ from the workspace.
	Files(ctx context.Context) ([]contract.FileEntry, error)
	// SaveFiles writes the overlay's version of paths (as Files names
	// them) to the workspace and returns those saved.
	SaveFiles(ctx context.Context, paths []string) ([]string, error)
}

// Log is the configured logger, or one that logs nothing.
func (c Config) Log() *zap.Logger {
	if c.Logger == nil {
		return zap.NewNop()
	}
	return c.Logger
}

// ErrInputDismissed is what Request.OnInput returns when the person
// dismissed the question: the cell gets KeyboardInterrupt.
var ErrInputDismissed = errors.New("the input question was dismissed")
