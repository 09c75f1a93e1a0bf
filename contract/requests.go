package contract

// Requests from the server to the client, besides LSP's own. The server
// sends one only to a client that advertises it (ClientCapabilities).
const (
	// A running cell called input(): the client asks the person for one line
	// and answers with it. The cell waits; an interrupt cancels the request
	// ($/cancelRequest).
	RequestInput = "backyard/input"
)

// ClientCapabilities are what a client can do beyond LSP, advertised in
// initialize under capabilities.experimental.backyard.
type ClientCapabilities struct {
	// The client answers backyard/input. Without it input() fails at once,
	// before its prompt, as in a kernel whose front end gives no stdin:
	// IPython's StdinNotImplementedError (an auto document moves such a
	// cell to the container; on Monty alone a caught one is an Exception).
	Input bool `json:"input,omitempty"`
}

// InputParams are backyard/input's params.
type InputParams struct {
	URI         string `json:"uri"`
	ExecutionID string `json:"executionId"`
	// What the cell passed to input(); it is also in the cell's stdout.
	Prompt string `json:"prompt"`
	// The cell asked with getpass(): hide what is typed.
	Password bool `json:"password,omitempty"`
}

// InputResult answers backyard/input.
type InputResult struct {
	// The line, without its newline; null when the person dismissed the
	// question (the cell then gets KeyboardInterrupt, as an interrupt during
	// input() gives in Jupyter).
	Value *string `json:"value"`
}
