package contract

import "context"

// HTTPService is what `backyard-ls http` serves. The first two endpoints
// are SandboxFusion's, field for field (its `sandbox-fusion` client and
// verl's `call_sandbox_api` work by changing only the URL); the session
// endpoints are backyard-ls's own, for agents that keep state across
// calls. Each method's doc ends with its HTTP method and path; a path
// parameter fills the request field tagged `path`. Requests are JSON
// objects (unknown fields are ignored, as SandboxFusion does); a request
// that is not valid gets 422 with ValidationErrors, any other refusal an
// HTTPError with the status named in the docs.
type HTTPService interface {
	// RunCode runs one Python program as `python file.py` would in a fresh interpreter (no trailing value is shown), on the batch lanes: Monty when it runs the code as CPython does, a fork-server container otherwise. A Python exception is a run_result with return_code 1 and the traceback on stderr; status is "Success" when the program exited 0 within run_timeout, "Failed" otherwise, "SandboxError" when the server could not run it (the sandbox-fusion client then retries).
	//
	// POST /run_code
	RunCode(ctx context.Context, r *RunCodeRequest) (*RunCodeResponse, error)
	// RunJupyter runs cells one after the other in one fresh stateful session, as a Jupyter kernel would (a cell's trailing value is its display; an exception is its error and the next cell still runs).
	//
	// POST /run_jupyter
	RunJupyter(ctx context.Context, r *RunJupyterRequest) (*RunJupyterResponse, error)
	// CreateSession starts a stateful session: names defined by one run are there in the next; it closes after idle_timeout_s without a call.
	//
	// POST /sessions
	CreateSession(ctx context.Context, r *CreateSessionRequest) (*SessionInfo, error)
	// RunInSession runs code in a session like a notebook cell; the result is the execution record (404 for a session that is not open).
	//
	// POST /sessions/{session}/run
	RunInSession(ctx context.Context, r *SessionRunRequest) (*Execution, error)
	// ResetSession empties a session's namespace (its kernel restarts); the session stays open.
	//
	// POST /sessions/{session}/reset
	ResetSession(ctx context.Context, r *SessionRef) (*SessionInfo, error)
	// CloseSession closes a session and its kernel (a run in it is interrupted).
	//
	// DELETE /sessions/{session}
	CloseSession(ctx context.Context, r *SessionRef) (*SessionInfo, error)
}

// HTTPEndpoint describes one endpoint of HTTPService (HTTPEndpoints lists
// them).
type HTTPEndpoint struct {
	Name              string // the method: RunCode
	Method, Path      string // POST, /run_code; {name} is a path parameter
	Request, Response string // type names
}

// RunCodeRequest is SandboxFusion's /run_code request.
type RunCodeRequest struct {
	// The program.
	Code string `json:"code"`
	// "python"; any other language SandboxFusion knows gets a SandboxError response, one it does not know a 422.
	Language string `json:"language"`
	// Seconds a compiled language may compile: unused for Python.
	CompileTimeout float64 `json:"compile_timeout" default:"10"`
	// Wall-clock seconds the program may run (at most the server's --max-timeout).
	RunTimeout float64 `json:"run_timeout" default:"10"`
	// Memory limit in MiB; -1 or 0: the server's --memory, which is also the most a request gets.
	MemoryLimitMB int `json:"memory_limit_MB" default:"-1"`
	// What the program's stdin holds, as is; null: nothing.
	Stdin *string `json:"stdin"`
	// Files written into the working directory before it runs: relative path → base64 content (null content: skipped).
	Files map[string]*string `json:"files"`
	// Files of the working directory sent back in the response's files, when they exist.
	FetchFiles []string `json:"fetch_files"`
	// Arguments for pytest runs: ignored for Python.
	Args []string `json:"args"`
}

// RunStatus is how a SandboxFusion request went.
type RunStatus string

const (
	// The program ran and exited with 0.
	RunSuccess RunStatus = "Success"
	// The program ran and exited with another code, or ran out of time.
	RunFailed RunStatus = "Failed"
	// The server could not run it (message says why): try again, maybe elsewhere.
	RunSandboxError RunStatus = "SandboxError"
)

// CommandRunStatus is how one command (the program, a driver) ended.
type CommandRunStatus string

const (
	// It ran to its end (return_code says how).
	CommandFinished CommandRunStatus = "Finished"
	// The sandbox failed to run it (stderr says why).
	CommandError CommandRunStatus = "Error"
	// It ran out of time (return_code is null).
	CommandTimeLimitExceeded CommandRunStatus = "TimeLimitExceeded"
)

// CommandRunResult is one command's run.
type CommandRunResult struct {
	Status CommandRunStatus `json:"status"`
	// Wall-clock seconds.
	ExecutionTime *float64 `json:"execution_time"`
	// The exit code; a negative number -N for a process killed by signal N; null when it did not finish.
	ReturnCode *int    `json:"return_code"`
	Stdout     *string `json:"stdout"`
	Stderr     *string `json:"stderr"`
}

// RunCodeResponse is SandboxFusion's /run_code response.
type RunCodeResponse struct {
	Status RunStatus `json:"status"`
	// Why, for SandboxError; empty otherwise.
	Message string `json:"message"`
	// Always null: Python is not compiled.
	CompileResult *CommandRunResult `json:"compile_result"`
	// The program's run; null when it could not run.
	RunResult *CommandRunResult `json:"run_result"`
	// The pod that ran it (the MY_POD_NAME environment variable), or null.
	ExecutorPodName *string `json:"executor_pod_name"`
	// The fetch_files that exist: path → base64 content.
	Files map[string]string `json:"files"`
}

// RunJupyterRequest is SandboxFusion's /run_jupyter request.
type RunJupyterRequest struct {
	// The cells' code, run in order in one session.
	Cells []string `json:"cells"`
	// Seconds each cell may run; 0: only total_timeout bounds them.
	CellTimeout float64 `json:"cell_timeout" default:"0"`
	// Seconds all cells may run together.
	TotalTimeout float64 `json:"total_timeout" default:"45"`
	// Memory limit of the session in MiB; -1 or 0: the server's --memory, the most a request gets.
	MemoryLimitMB int `json:"memory_limit_MB" default:"-1"`
	// The kernel: "python3" is the only one.
	Kernel string `json:"kernel" default:"python3"`
	// Files in the session's working directory before the first cell: relative path → base64 content.
	Files map[string]string `json:"files"`
	// Files of the working directory sent back in the response's files, when they exist.
	FetchFiles []string `json:"fetch_files"`
}

// CellRunResult is one cell's output in a /run_jupyter response.
type CellRunResult struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	// The cell's displays, in order: MIME type → data (text/plain, image/png base64, …); its trailing value is one.
	Display []map[string]string `json:"display"`
	// The exception the cell raised, if any (at most one).
	Error []JupyterError `json:"error"`
}

// JupyterError is an exception as a Jupyter kernel reports it.
type JupyterError struct {
	// The exception's type, e.g. ZeroDivisionError.
	EName string `json:"ename"`
	// Its message.
	EValue string `json:"evalue"`
	// The traceback as text lines, outermost frame first, ending with "EName: evalue".
	Traceback []string `json:"traceback"`
}

// RunJupyterResponse is SandboxFusion's /run_jupyter response.
type RunJupyterResponse struct {
	// Success when every cell ran within total_timeout (a cell's exception is in its error), Failed when they did not, SandboxError when the session could not start.
	Status  RunStatus `json:"status"`
	Message string    `json:"message"`
	// The run of all cells: Finished, or TimeLimitExceeded past total_timeout.
	Driver *CommandRunResult `json:"driver"`
	// One per cell that ran, in order (fewer than cells when the time ran out).
	Cells           []CellRunResult   `json:"cells"`
	ExecutorPodName *string           `json:"executor_pod_name"`
	Files           map[string]string `json:"files"`
}

// CreateSessionRequest configures a new session; every field is optional.
type CreateSessionRequest struct {
	// "auto" (the server's default), "monty" or "container" (only those the server runs).
	Backend Backend `json:"backend,omitempty"`
	// Seconds each run may take by default (at most the server's --max-timeout).
	TimeoutS float64 `json:"timeout_s,omitempty"`
	// Memory limit in MiB (at most the server's --memory).
	MemoryMB int `json:"memory_mb,omitempty"`
}

// SessionInfo describes a session.
type SessionInfo struct {
	// The session's ID, for the other session endpoints.
	Session string `json:"session"`
	// The backend its next run starts on.
	Backend Backend `json:"backend"`
	// Seconds without a call after which the server closes it.
	IdleTimeoutS float64 `json:"idle_timeout_s"`
}

// SessionRunRequest is one run in a session.
type SessionRunRequest struct {
	// The session (from the path).
	Session string `json:"-" path:"session"`
	// The Python code, like a notebook cell.
	Code string `json:"code"`
	// Seconds this run may take (default: the session's).
	TimeoutS float64 `json:"timeout_s,omitempty"`
}

// SessionRef names a session (from the path).
type SessionRef struct {
	Session string `json:"-" path:"session"`
}

// HTTPError is the body of a refused request other than a 422: 401 (no or
// a wrong token), 403 (a Host or Origin the server does not serve), 404
// (no such endpoint or session), 413 (a body over --max-body-bytes), 429 (every run
// slot and queue place taken: try again after Retry-After seconds), 503
// (shutting down).
type HTTPError struct {
	// What went wrong, for a person.
	Detail string `json:"detail"`
}

// ValidationErrors is the body of a 422: the request is not valid JSON or
// a field does not fit (FastAPI's shape, as SandboxFusion answers it).
type ValidationErrors struct {
	Detail []ValidationError `json:"detail"`
}

// ValidationError is one field that does not fit.
type ValidationError struct {
	// What kind of problem: json_invalid, missing, literal_error, string_type, float_parsing, …
	Type string `json:"type"`
	// Where: "body", then the field's name (and index).
	Loc []any `json:"loc"`
	// What is wrong, for a person.
	Msg string `json:"msg"`
	// The value that does not fit, when there is one.
	Input any `json:"input,omitempty"`
}
