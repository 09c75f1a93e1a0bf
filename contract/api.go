package contract

import (
	"context"

	"github.com/go-json-experiment/json/jsontext"
)

// API is what `backyard-ls api` serves to programs (the Python package
// backyard_ls): JSON-RPC 2.0 over the binary's stdin and stdout, one JSON
// object per line. The method name of a method is its name in snake case
// (SaveFiles is save_files); each takes one JSON object as params, decoded
// into the method's argument type (a field without `omitempty` is
// required), and answers with its result type. A method that returns only an
// error is a notification: the client sends it without an id and gets no
// answer.
//
// One process serves many sandboxes and batches; requests are handled
// concurrently, except that the runs of one sandbox take turns. A Python
// exception, a timeout or a crash of the code is a normal result (an
// Execution whose status says so), never a JSON-RPC error. A JSON-RPC error
// is for the request itself: its data is an APIErrorData whose kind says
// which (a bad argument, a backend that cannot run, a closed sandbox, a
// request over the size limit).
type API interface {
	// Hello tells the client the server's version and limits; a client sends it first.
	Hello(ctx context.Context, a *HelloArgs) (*HelloResult, error)
	// Open creates a sandbox: a stateful kernel whose runs keep names between calls, like a notebook. Its kernel starts on the first run.
	Open(ctx context.Context, a *OpenArgs) (*OpenResult, error)
	// Run runs code in a sandbox and answers with its execution record (the trailing expression's value is the result). While it runs, the server may send output (with "stream") and call the sandbox's host functions.
	Run(ctx context.Context, a *RunArgs) (*Execution, error)
	// Interrupt stops the sandbox's running cell, keeping the namespace as it was before it; it is answered at once.
	Interrupt(ctx context.Context, a *SandboxArg) (*InterruptResult, error)
	// Reset empties the sandbox's namespace and sets its execution count to 0 (an auto sandbox goes back to Monty).
	Reset(ctx context.Context, a *SandboxArg) (*KernelInfo, error)
	// Info describes the sandbox's kernel: backend, runtime, state, execution count, versions.
	Info(ctx context.Context, a *SandboxArg) (*KernelInfo, error)
	// Variables lists the names bound in the sandbox's namespace, with type and repr.
	Variables(ctx context.Context, a *SandboxArg) (*VariablesResult, error)
	// Install installs packages (pip requirement strings) for the sandbox's container kernel; the next run can import them.
	Install(ctx context.Context, a *InstallArgs) (*InstallResult, error)
	// Files lists the files the sandbox's runs wrote that differ from its workspace (its overlay).
	Files(ctx context.Context, a *SandboxArg) (*FilesResult, error)
	// SaveFiles writes chosen files of the sandbox's overlay to its workspace (a deleted one is removed there).
	SaveFiles(ctx context.Context, a *SaveFilesArgs) (*SaveFilesResult, error)
	// Close stops the sandbox's kernel (its worker or container) and forgets the sandbox.
	Close(ctx context.Context, a *SandboxArg) (*CloseResult, error)
	// BatchOpen starts a batch: independent snippets, each from an empty namespace, run in parallel on Monty workers and fork-server containers that stay up until the batch ends. Snippets come with batch_add; results go out as batch_results.
	BatchOpen(ctx context.Context, a *BatchOpenArgs) (*BatchOpenResult, error)
	// BatchAdd gives a batch more snippets; they are numbered on from the ones before (the first is 0).
	BatchAdd(ctx context.Context, a *BatchAddArgs) error
	// BatchEnd says no more snippets come; it is answered once every result has been sent and the batch's workers and containers are gone.
	BatchEnd(ctx context.Context, a *BatchArg) (*BatchEndResult, error)
	// BatchCancel stops a batch: no more snippets start, the running ones stop; it is answered once nothing of the batch runs.
	BatchCancel(ctx context.Context, a *BatchArg) (*BatchEndResult, error)
}

// APIClient is what `backyard-ls api` sends its client: a method with a
// result is a request the client answers (its name in snake case), one
// without is a notification.
type APIClient interface {
	// Output is output of a sandbox's running cell (a run with "stream"), in order, in pieces as they come.
	Output(ctx context.Context, p *APIOutputParams)
	// BatchResults carries results of a batch's snippets: in input order when the batch is ordered, else as they end.
	BatchResults(ctx context.Context, p *BatchResultsParams)
	// Progress follows a long step of a sandbox or a batch: a kernel or container starting, an image pull, a package install.
	Progress(ctx context.Context, p *APIProgressParams)
	// Warning is a fact a person should see (gVisor missing, so containers run on runc), each once.
	Warning(ctx context.Context, p *APIWarningParams)
	// Call asks the client to call one of a sandbox's host functions for its running cell; the cell waits for the answer.
	Call(ctx context.Context, p *CallParams) (*CallResult, error)
}

// APIErrorKind says what a JSON-RPC error of the API is about.
type APIErrorKind string

const (
	// A parameter is missing, of the wrong type or out of range; the message says which.
	APIBadArgument APIErrorKind = "bad_argument"
	// The backend cannot run anything: no Monty worker, no container engine, an image that cannot be pulled.
	APIBackendUnavailable APIErrorKind = "backend_unavailable"
	// The sandbox or batch is closed, or was never opened.
	APIClosed APIErrorKind = "closed"
	// The request is larger than the server takes (max_request_bytes); nothing of it was done.
	APITooLarge APIErrorKind = "too_large"
	// Anything else: the message says what.
	APIInternal APIErrorKind = "internal"
)

// APIErrorData is the data of every JSON-RPC error the API answers with.
type APIErrorData struct {
	Kind APIErrorKind `json:"kind"`
}

// HelloArgs name the client.
type HelloArgs struct {
	// The client's name and version, for the server's log.
	Client string `json:"client,omitempty"`
}

// HelloResult describes the server.
type HelloResult struct {
	// backyard-ls's version.
	Version string `json:"version"`
	// The largest request line the server reads, in bytes; a larger one is answered with a too_large error and skipped.
	MaxRequestBytes int `json:"max_request_bytes"`
	// The Monty worker the server found; empty when there is none (only the container backend can run).
	Monty string `json:"monty"`
}

// OpenArgs configure a new sandbox; an omitted field takes the value the
// server was started with (its flags), else the setting's default.
type OpenArgs struct {
	// "auto" (Monty, moving to a container when the code needs full CPython), "monty" or "container".
	Backend Backend `json:"backend,omitempty"`
	// Time limit of one run, in seconds.
	TimeoutS Seconds `json:"timeout_s,omitempty"`
	// Memory limit of the kernel, in MiB.
	MemoryMB MiB `json:"memory_mb,omitempty"`
	// Python call depth limit.
	RecursionLimit int `json:"recursion_limit,omitempty"`
	// Output kept per stream and run, in bytes; the rest is dropped with a marker.
	MaxOutputBytes int `json:"max_output_bytes,omitempty"`
	// Image of the container kernel.
	Image string `json:"image,omitempty"`
	// OCI runtime of the container kernel.
	Runtime Runtime `json:"runtime,omitempty"`
	// Network of the container kernel.
	Network Network `json:"network,omitempty"`
	// A host folder the code sees as its working directory, read-only unless files_write is "workspace"; omitted: an empty folder of its own (the same path on every backend), removed when the sandbox closes.
	Workspace string `json:"workspace,omitempty"`
	// Where the files the code writes go: "sandbox" keeps them in the kernel (save_files writes chosen ones), "workspace" writes the real files.
	FilesWrite FilesWrite `json:"files_write,omitempty"`
	// Environment variables the code sees besides the few every kernel has; nothing of the host's environment is passed.
	Env map[string]string `json:"env,omitempty"`
	// Names of host functions the code can call; each call is a call request to the client.
	Functions []string `json:"functions,omitempty"`
	// Whether a container run installs the packages it imports but the image lacks.
	AutoInstall InstallPolicy `json:"auto_install,omitempty"`
	// Package index URL for installs (default: PyPI).
	IndexURL string `json:"index_url,omitempty"`
	// A directory of wheels to install from.
	FindLinks string `json:"find_links,omitempty"`
	// Path of the Monty worker binary.
	Monty string `json:"monty,omitempty"`
}

// OpenResult names the new sandbox.
type OpenResult struct {
	// The sandbox's id, for the other methods.
	Sandbox string `json:"sandbox"`
	// The backend it was opened with.
	Backend Backend `json:"backend"`
}

// SandboxArg names a sandbox.
type SandboxArg struct {
	Sandbox string `json:"sandbox"`
}

// RunArgs are run's params.
type RunArgs struct {
	Sandbox string `json:"sandbox"`
	// The Python code, like a notebook cell: the value of a trailing expression is the result.
	Code string `json:"code,omitempty"`
	// Named inputs: bound as globals before the code runs (JSON values); they persist like any global.
	Inputs map[string]jsontext.Value `json:"inputs,omitempty"`
	// Time limit of this run only, in seconds; omitted: the sandbox's.
	TimeoutS Seconds `json:"timeout_s,omitempty"`
	// Send the run's output as output notifications while it runs (it is in the result either way).
	Stream bool `json:"stream,omitempty"`
}

// InstallArgs are install's params.
type InstallArgs struct {
	Sandbox string `json:"sandbox"`
	// pip requirement strings, e.g. "pandas" or "requests<3".
	Packages []string `json:"packages"`
}

// InstallResult answers install.
type InstallResult struct {
	// The packages now installed.
	Installed []string `json:"installed"`
}

// SaveFilesArgs are save_files's params.
type SaveFilesArgs struct {
	Sandbox string `json:"sandbox"`
	// Paths as files lists them.
	Paths []string `json:"paths"`
}

// CloseResult answers close.
type CloseResult struct {
	// False when the sandbox was already closed.
	Closed bool `json:"closed"`
}

// BatchOpenArgs configure a batch; an omitted field takes the value the
// server was started with, else the setting's default.
type BatchOpenArgs struct {
	// "monty", "auto" (each snippet where the auto router sends it) or "container".
	Backend Backend `json:"backend,omitempty"`
	// Snippets running at once: Monty workers, and fork-server containers for the snippets that need one (default 2).
	Parallel int `json:"parallel,omitempty"`
	// Modules each container imports once before any snippet, e.g. numpy.
	Preload []string `json:"preload,omitempty"`
	// Send results in input order (a result waits for those before it) instead of as they end.
	Ordered bool `json:"ordered,omitempty"`
	// Time limit of each snippet, in seconds.
	TimeoutS Seconds `json:"timeout_s,omitempty"`
	// Memory limit of each snippet, in MiB.
	MemoryMB MiB `json:"memory_mb,omitempty"`
	// Python call depth limit.
	RecursionLimit int `json:"recursion_limit,omitempty"`
	// Output kept per stream and snippet, in bytes.
	MaxOutputBytes int `json:"max_output_bytes,omitempty"`
	// Image of the containers.
	Image string `json:"image,omitempty"`
	// OCI runtime of the containers.
	Runtime Runtime `json:"runtime,omitempty"`
	// Path of the Monty worker binary.
	Monty string `json:"monty,omitempty"`
}

// BatchOpenResult names the new batch.
type BatchOpenResult struct {
	Batch string `json:"batch"`
}

// BatchAddArgs are batch_add's params.
type BatchAddArgs struct {
	Batch string `json:"batch"`
	// The snippets; an id is not needed here (results carry the snippet's index).
	Snippets []BatchSnippet `json:"snippets"`
}

// BatchArg names a batch.
type BatchArg struct {
	Batch string `json:"batch"`
}

// BatchEndResult answers batch_end and batch_cancel.
type BatchEndResult struct {
	// Snippets the batch took, each of which got one result.
	Snippets int `json:"snippets"`
}

// BatchResult is the result of one snippet of a batch.
type BatchResult struct {
	// The snippet's index: its place among the snippets of every batch_add (0-based).
	Index int `json:"index"`
	// Its record, as `backyard-ls batch` writes it (lines counted from the snippet's first line, executionCount 1).
	Execution *Execution `json:"execution"`
}

// BatchResultsParams are batch_results's params.
type BatchResultsParams struct {
	Batch string `json:"batch"`
	// The results. The server writes a tab (JSON whitespace) before each and no record holds a raw tab, so a client may cut the line at its tabs into results without parsing it.
	Results []BatchResult `json:"results"`
	// Set on the last batch_results of a batch that cannot run (no Monty worker, no container that starts): why. No more results come.
	Error string `json:"error,omitempty"`
	// What kind of error Error is.
	ErrorKind APIErrorKind `json:"error_kind,omitempty"`
}

// APIOutputParams are output's params.
type APIOutputParams struct {
	// The sandbox whose cell printed.
	Sandbox string `json:"sandbox"`
	Stream  Stream `json:"stream"`
	Text    string `json:"text"`
}

// APIProgressParams are progress's params.
type APIProgressParams struct {
	// The sandbox or the batch whose step it is (one of the two).
	Sandbox string `json:"sandbox,omitempty"`
	Batch   string `json:"batch,omitempty"`
	// What is happening, e.g. "Pulling python:3.13-slim".
	Title string `json:"title"`
	// Details of the step so far.
	Message string `json:"message,omitempty"`
	// 0 to 100; -1 when unknown.
	Percent int `json:"percent"`
	// The step is over.
	Done bool `json:"done,omitzero"`
}

// APIWarningParams are warning's params.
type APIWarningParams struct {
	// The sandbox or the batch it concerns, if one.
	Sandbox string `json:"sandbox,omitempty"`
	Batch   string `json:"batch,omitempty"`
	Message string `json:"message"`
}

// CallParams are call's params: a host function call of a running cell.
type CallParams struct {
	// The sandbox whose cell calls.
	Sandbox string `json:"sandbox"`
	// The function's name, as open's functions named it.
	Function string `json:"function"`
	// Positional arguments (JSON values).
	Args []jsontext.Value `json:"args"`
	// Keyword arguments (JSON values).
	Kwargs map[string]jsontext.Value `json:"kwargs"`
}

// CallResult answers call: the function's return value, or the exception it
// raised, which then raises in the cell.
type CallResult struct {
	// The return value (a JSON value); absent or null is None.
	Value jsontext.Value `json:"value,omitempty"`
	// The exception the function raised; the cell gets one of the same type (a built-in one, else RuntimeError naming it) and message.
	Error *CallError `json:"error,omitempty"`
}

// CallError is an exception a host function raised.
type CallError struct {
	// Its type's name, e.g. "ValueError".
	Type string `json:"type"`
	// Its message, as str() of the exception gives it.
	Message string `json:"message"`
}
