package contract

import "github.com/go-json-experiment/json/jsontext"

// BatchSnippet is one line of the input of `backyard-ls batch` (JSON
// Lines). Each snippet runs alone, from an empty namespace, as the first
// cell of a fresh kernel of the batch's backend, IPython's syntax
// included (magics, `!cmd`, `obj?`, automagic: what that kernel runs); its
// result is one output line: the Execution record of the snippet (lines
// counted from its first line, executionCount 1) with the snippet's id as
// "id".
// A line that is not such an object gets an error record (status
// "error", ename "BatchInputError") with its id, or its line number.
type BatchSnippet struct {
	// Names the snippet in its result: any JSON value, written back as it came. Default: the line number (1-based).
	ID jsontext.Value `json:"id,omitempty"`
	// The Python code.
	Code string `json:"code"`
	// The lines the snippet's stdin holds, in order: what input() reads.
	Inputs []string `json:"inputs,omitempty"`
	// Time limit of this snippet, in seconds (default: the --timeout flag).
	TimeoutS Seconds `json:"timeout_s,omitempty"`
	// Files written into the snippet's working directory before it runs: a relative path (data/in.csv) to its UTF-8 text.
	Files map[string]string `json:"files,omitempty"`
}
