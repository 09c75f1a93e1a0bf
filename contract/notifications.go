package contract

// Notifications from the server to the client, besides LSP's own.
const (
	// Output of a running execution, in order, in batches (not line by line);
	// it stops after the output limit (the text then ends with a marker).
	// Output a kernel's threads print while no cell runs comes as it is
	// printed, with idle set (OutputParams).
	MethodOutput = "backyard/output"
	// An execution's way: queued → running → done.
	MethodExecutionState = "backyard/executionState"
	// A document's kernel changed state.
	MethodKernelState = "backyard/kernelState"
	// A display output of a running execution (display(), update_display,
	// clear_output, a figure shown), sent where it falls among its output
	// (the output before it comes first); the done record lists them all.
	MethodDisplay = "backyard/display"
)

// OutputParams are backyard/output's params.
type OutputParams struct {
	URI         string `json:"uri"`
	ExecutionID string `json:"executionId"`
	Stream      Stream `json:"stream"`
	Text        string `json:"text"`
	// The text was printed while no cell ran (by a thread a cell started):
	// ExecutionID names the document's last execution that ran, under whose
	// output it is shown, as Jupyter shows it; empty when none ran in this
	// kernel.
	Idle bool `json:"idle,omitzero"`
}

// DisplayParams are backyard/display's params.
type DisplayParams struct {
	URI         string `json:"uri"`
	ExecutionID string `json:"executionId"`
	// The output; its data when Update is set; absent when Clear is.
	Display *Display `json:"display,omitzero"`
	// Replaces the data of the execution's outputs with Display's displayId, where they are.
	Update bool `json:"update,omitzero"`
	// Drops the execution's display outputs so far (clear_output).
	Clear bool `json:"clear,omitzero"`
}

// ExecutionStateParams are backyard/executionState's params.
type ExecutionStateParams struct {
	URI         string         `json:"uri"`
	ExecutionID string         `json:"executionId"`
	Range       Range          `json:"range"`
	State       ExecutionPhase `json:"state"`
	// Present on "done" for an execution that ran; absent for one that was dropped.
	Execution *Execution `json:"execution,omitzero"`
}

// KernelStateParams are backyard/kernelState's params.
type KernelStateParams struct {
	URI     string      `json:"uri"`
	Backend Backend     `json:"backend"`
	Runtime string      `json:"runtime"`
	State   KernelState `json:"state"`
}
