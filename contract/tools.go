package contract

import "context"

// Tools is what `backyard-ls mcp` offers an AI agent as Model Context
// Protocol tools: the tool name of a method is its name in snake case
// (RunPython is run_python). Each takes one JSON object, decoded into the
// method's argument type (its JSON schema is the tool's input schema), and
// returns its result type as structuredContent (the output schema). A
// session is a stateful kernel named by the agent; a Python exception is a
// normal result, not a tool error.
type Tools interface {
	// RunPython runs Python code in a session's stateful kernel (Monty by default, moving to a sandboxed container with full CPython when the code needs it) and returns its output, value or error.
	RunPython(ctx context.Context, a *RunPythonArgs) (*RunPythonResult, error)
	// ResetSession ends a session: its kernel and names are gone, and the next run in it starts afresh (on Monty in auto mode).
	ResetSession(ctx context.Context, a *SessionArg) (*ResetSessionResult, error)
	// ListVariables lists the names bound in a session's namespace, with type and repr.
	ListVariables(ctx context.Context, a *SessionArg) (*VariablesResult, error)
	// InstallPackages installs PyPI packages for a session's container kernel, under the server's autoInstall policy.
	InstallPackages(ctx context.Context, a *InstallPackagesArgs) (*InstallPackagesResult, error)
}

// ToolSpec describes one tool of Tools (ToolSpecs lists them).
type ToolSpec struct {
	Name        string // run_python
	Method      string // RunPython
	Description string
	Arg, Result string // type names
}

// RunPythonArgs are run_python's arguments.
type RunPythonArgs struct {
	// The Python code to run, like a notebook cell: the value of a trailing expression is the result.
	Code string `json:"code"`
	// The session (a stateful kernel) to run in; sessions are created on first use. Omitted: the default session.
	Session string `json:"session,omitempty"`
	// Time limit of this run in seconds; omitted: the server's --timeout.
	TimeoutS float64 `json:"timeout_s,omitempty"`
}

// SessionArg names a session.
type SessionArg struct {
	// The session; omitted: the default session.
	Session string `json:"session,omitempty"`
}

// InstallPackagesArgs are install_packages's arguments.
type InstallPackagesArgs struct {
	// The session whose kernel gets the packages; omitted: the default session.
	Session string `json:"session,omitempty"`
	// pip requirement strings, e.g. "pandas" or "requests<3".
	Packages []string `json:"packages"`
}

// RunPythonResult is what one run_python did.
type RunPythonResult struct {
	// The session that ran the code.
	Session string `json:"session"`
	// ok, error (a Python exception), interrupted, timeout or crashed.
	Status Status `json:"status"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	// repr() of the trailing expression's value; absent when there is none.
	Result string `json:"result,omitempty"`
	// MIME types of the value's rich forms (image/png is also sent as an image).
	ResultMIME []string `json:"result_mime,omitempty"`
	// What display() showed, in order: MIME bundles (image/png is also sent as an image).
	Displays []Display `json:"displays,omitempty"`
	// The exception, for every status but ok.
	Error *ToolError `json:"error,omitempty"`
	// The backend that ran the code: monty or container.
	Backend string `json:"backend"`
	// monty, runc or runsc.
	Runtime string `json:"runtime"`
	// The kernel's execution count after this run.
	ExecutionCount int `json:"execution_count"`
	// Wall-clock time in the kernel, milliseconds.
	DurationMs float64 `json:"duration_ms"`
	// The files the run created, changed or deleted (with files.write sandbox they are kept in the kernel, not written to the workspace).
	FilesChanged []FileChange `json:"files_changed"`
}

// ToolError is a Python exception in a tool result.
type ToolError struct {
	// The exception's type, e.g. ZeroDivisionError.
	EName string `json:"ename"`
	// Its message.
	EValue string `json:"evalue"`
	// Frames, outermost first; line is 1-based in the code that ran, 0 outside it.
	Traceback []Frame `json:"traceback"`
	// Its PEP 678 notes (add_note), in order.
	Notes []string `json:"notes,omitempty"`
	// The whole exception as CPython prints it: the cause or context first, each exception's frames, message and notes, an exception group's members.
	Formatted string `json:"formatted"`
}

// ResetSessionResult answers reset_session.
type ResetSessionResult struct {
	Session string `json:"session"`
	// The backend of the session's next kernel (auto: Monty first).
	Backend Backend `json:"backend"`
}

// InstallPackagesResult answers install_packages.
type InstallPackagesResult struct {
	Session string `json:"session"`
	// The packages now installed.
	Installed []string `json:"installed"`
}
