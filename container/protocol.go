package container

import (
	"encoding/json"

	"github.com/backyard-ls/backyard-ls/contract"
)

// ProtocolVersion is the version of the driver protocol; the driver reports
// it in its ready event.
const ProtocolVersion = 1

// Message kinds ("t").
const (
	msgKey   = "key"   // host → driver, first: the channel's key (hex)
	msgReady = "ready" // driver → host: started
	msgExec  = "exec"  // host → driver: run a cell; driver → host: none
	msgOut   = "out"   // driver → host: output of the running cell
	// driver → host: display() of the running cell (a MIME bundle), an
	// update of an earlier one (same display_id), or clear_output()
	msgDisplay = "display"
	msgDone    = "done"  // driver → host: the cell ended
	msgVars    = "vars"  // both: list the namespace
	msgError   = "error" // driver → host: a request it did not understand
	msgInput   = "input" // driver → host: the cell called input(); host → driver: the answer
	// A cell calls a host function: driver → host "call"; the host answers
	// "return" or "raise" (see hostcall.go).
	msgCall   = "call"
	msgReturn = "return"
	msgRaise  = "raise"
	// The workspace (files.go); each is answered with a message of its kind.
	msgPut     = "put"     // host → driver: files to make in the overlay
	msgBase    = "base"    // host → driver: the roots and working directory; what is there now is the workspace
	msgOverlay = "overlay" // host → driver: list what differs from the workspace
	msgRead    = "read"    // host → driver: the content of files
	msgBased   = "based"   // host → driver: these files were saved to the workspace
	// Fork server: import modules into the server (host → server "import",
	// answered "imported").
	msgImport   = "import"
	msgImported = "imported"
	// Fork server: stop the running snippet (host → server; the snippet's
	// "done" says "interrupted").
	msgCancel = "cancel"
)

// message is every frame of the driver protocol; T says which fields are
// set.
type message struct {
	T  string `json:"t"`
	ID uint64 `json:"id,omitempty"`

	// exec request
	Code      string   `json:"code,omitempty"`
	Silent    bool     `json:"silent,omitempty"`
	MaxOutput int      `json:"max_output,omitempty"`
	Stdin     bool     `json:"stdin,omitempty"`      // the host answers input()
	File      string   `json:"file,omitempty"`       // __file__ of the cells
	Count     int      `json:"count,omitempty"`      // the execution count: IPython's In, Out, _N
	Source    string   `json:"source,omitempty"`     // the cell as written, when Code is its IPython transformation: %history
	LastError *PyError `json:"last_error,omitempty"` // the shell's last exception before the cell runs: %tb
	// cells another backend ran, filed in IPython's history before this one
	History []HistoryEntry `json:"history,omitempty"`
	// exec request: named inputs (a JSON object) and host function names
	Inputs    json.RawMessage `json:"inputs,omitempty"`
	Functions []string        `json:"functions,omitempty"`
	// vars request
	MaxRepr int `json:"max_repr,omitempty"`

	// call: the call's number, the function and its arguments
	Call   uint64          `json:"call,omitempty"`
	Name   string          `json:"name,omitempty"`
	Args   json.RawMessage `json:"args,omitempty"`
	Kwargs json.RawMessage `json:"kwargs,omitempty"`

	// key
	Key string `json:"key,omitempty"`

	// ready
	Protocol int    `json:"protocol,omitempty"`
	Python   string `json:"python,omitempty"`
	PID      int    `json:"pid,omitempty"`

	// out: stream ("stdout" or "stderr") and text; Cut, on the frame of a
	// stream's tail that ends a cell, the bytes dropped before it
	S   string `json:"s,omitempty"`
	D   string `json:"d,omitempty"`
	Cut int    `json:"cut,omitempty"`

	// display: the bundle, its metadata (a JSON object), its id; Update
	// replaces the outputs with that id, Clear drops the outputs so far
	MIME      map[string]string `json:"mime,omitempty"`
	Meta      json.RawMessage   `json:"meta,omitempty"`
	DisplayID string            `json:"display_id,omitempty"`
	Update    bool              `json:"update,omitempty"`
	Clear     bool              `json:"clear,omitempty"`
	// A display sent after the cell's value was made (the inline backend's figures).
	AfterResult bool `json:"after,omitempty"`

	// done
	Status string     `json:"status,omitempty"` // "ok" or "error"
	Value  *Value     `json:"value,omitempty"`
	Error  *PyError   `json:"error,omitempty"`
	Vars   []Variable `json:"vars,omitempty"`

	// input: the question (driver → host; ID numbers it) and the answer
	// (host → driver, the same ID): the line, else Raise names the exception
	// input() raises (no line and no Raise: EOFError).
	Prompt   string  `json:"prompt,omitempty"`
	Password bool    `json:"password,omitempty"`
	Line     *string `json:"line,omitempty"`
	Raise    string  `json:"raise,omitempty"`

	// error; a note on base
	Message string `json:"message,omitempty"`

	// workspace requests and replies; done lists the cell's changes
	Files []fileMsg `json:"files,omitempty"`
	Paths []string  `json:"paths,omitempty"`
	Roots []string  `json:"roots,omitempty"`
	Cwd   string    `json:"cwd,omitempty"`
	// put: the files' data follows in the next frame, this many bytes
	Raw int `json:"raw,omitempty"`

	// fork server: a snippet's fetched files (path → base64) and how its
	// process ended without a result (exit code or signal)
	Fetched map[string]string `json:"fetched,omitempty"`
	Exit    *int              `json:"exit,omitempty"`
	Signal  int               `json:"signal,omitempty"`
	// fork server "imported": the modules imported, those that failed
	// (module → why) and the server's threads afterwards
	Modules []string          `json:"modules,omitempty"`
	Had     []string          `json:"had,omitempty"` // already imported before
	Failed  map[string]string `json:"failed,omitempty"`
	Threads int               `json:"threads,omitempty"`
	RSS     int64             `json:"rss,omitempty"` // bytes resident
}

// fileMsg is one file in a workspace message.
type fileMsg struct {
	Path   string   `json:"p"`
	Kind   string   `json:"k,omitempty"` // put: "f" file, "d" folder, "l" symlink
	Data   string   `json:"d,omitempty"` // read: base64
	Hash   string   `json:"h,omitempty"` // put: sha256 of the data, hex
	Target string   `json:"l,omitempty"` // put: a link's target
	Mode   uint32   `json:"m,omitempty"`
	MTime  *float64 `json:"t,omitempty"`
	Size   int64    `json:"s,omitempty"`  // put: bytes of the data; overlay: the file's size
	State  string   `json:"st,omitempty"` // created, changed or deleted
}

// Value is the value of a cell's trailing expression: its repr and its MIME
// bundle (MIME type → data, binary data base64-encoded; nil when the bundle
// has only text/plain).
type Value struct {
	Text string            `json:"text"`
	MIME map[string]string `json:"mime,omitempty"`
	// Cut is how many characters of Text the driver cut at the output
	// limit; Dropped lists the MIME data over the limit that it left out
	// (MIME type → size).
	Cut     int            `json:"cut,omitempty"`
	Dropped map[string]int `json:"dropped,omitempty"`
}

// PyError is a Python exception raised by a cell, with what CPython's
// traceback prints around it (contract.ExecutionError).
type PyError struct {
	EName          string     `json:"ename"`
	EValue         string     `json:"evalue"`
	Traceback      []Frame    `json:"traceback"`
	Notes          []string   `json:"notes,omitempty"`
	Cause          *PyError   `json:"cause,omitempty"`
	Context        *PyError   `json:"context,omitempty"`
	Exceptions     []*PyError `json:"exceptions,omitempty"`
	MoreExceptions int        `json:"more_exceptions,omitempty"`
}

// maxErrorDepth bounds how deep a record nests chains and groups (the
// driver bounds their number).
const maxErrorDepth = 64

// ExecutionError is the record of e, as kernels report it (frames' lines
// in the code that ran).
func (e *PyError) ExecutionError() *contract.ExecutionError {
	return e.record(0)
}

func (e *PyError) record(depth int) *contract.ExecutionError {
	if e == nil || depth > maxErrorDepth {
		return nil
	}
	r := &contract.ExecutionError{EName: e.EName, EValue: e.EValue, Traceback: make([]contract.Frame, 0, len(e.Traceback)),
		Notes: e.Notes, Cause: e.Cause.record(depth + 1), Context: e.Context.record(depth + 1), MoreExceptions: e.MoreExceptions}
	for _, f := range e.Traceback {
		r.Traceback = append(r.Traceback, contract.Frame{Line: f.Line, Name: f.Name, Text: f.Text, File: f.File, FileLine: f.FileLine,
			Col: f.Col, EndLine: f.EndLine, EndCol: f.EndCol})
	}
	for _, m := range e.Exceptions {
		if x := m.record(depth + 1); x != nil {
			r.Exceptions = append(r.Exceptions, *x)
		}
	}
	return r
}

// PyErrorOf is the record of e as the driver reads it, the inverse of
// ExecutionError.
func PyErrorOf(e *contract.ExecutionError) *PyError {
	return pyErrorOf(e, 0)
}

func pyErrorOf(e *contract.ExecutionError, depth int) *PyError {
	if e == nil || depth > maxErrorDepth {
		return nil
	}
	p := &PyError{EName: e.EName, EValue: e.EValue, Traceback: make([]Frame, 0, len(e.Traceback)), Notes: e.Notes,
		Cause: pyErrorOf(e.Cause, depth+1), Context: pyErrorOf(e.Context, depth+1), MoreExceptions: e.MoreExceptions}
	for _, f := range e.Traceback {
		p.Traceback = append(p.Traceback, Frame{Line: f.Line, Name: f.Name, Text: f.Text, File: f.File, FileLine: f.FileLine,
			Col: f.Col, EndLine: f.EndLine, EndCol: f.EndCol})
	}
	for i := range e.Exceptions {
		p.Exceptions = append(p.Exceptions, pyErrorOf(&e.Exceptions[i], depth+1))
	}
	return p
}

// Frame is a traceback frame, outermost first. Line is 1-based in the cell
// that ran; 0 for frames elsewhere: in an earlier cell (Text then starts
// with "cell N:line: ") or in a file (File and FileLine say where). Col,
// EndLine and EndCol are the span CPython marks in a frame of the cell
// (code point columns from 0, the end exclusive), when it knows it.
type Frame struct {
	Line     int    `json:"line"`
	Name     string `json:"name"`
	Text     string `json:"text"`
	File     string `json:"file,omitempty"`
	FileLine int    `json:"file_line,omitempty"`
	Col      int    `json:"col,omitempty"`
	EndLine  int    `json:"end_line,omitempty"`
	EndCol   int    `json:"end_col,omitempty"`
}

// Variable is one name bound in the kernel's namespace; Repr is cut by the
// driver to about the requested length.
type Variable struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Repr string `json:"repr"`
}
