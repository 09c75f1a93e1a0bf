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
