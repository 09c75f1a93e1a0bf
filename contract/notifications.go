package contract

// Notifications from the server to the client, besides LSP's own.
const (
	// Output of a running execution, in order, in batches (not line by line);
	// it stops after the output limit (the text then ends with a marker).
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
