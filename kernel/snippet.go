package kernel

import (
	"context"
	"time"
)

// Snippet is one independent piece of code of a batch: it runs from an
// empty namespace, and nothing it does reaches another snippet. Unless it
// is a Program, it is the first cell of a fresh kernel, IPython's syntax
// included (magics, shell escapes, help, automagic).
type Snippet struct {
	Code string
	// Inputs are the lines its stdin holds, in order (what input() reads).
	Inputs []string
	// Stdin, when set, is what its stdin holds, byte for byte (a program's
	// stdin: the last line need not end in a newline); Inputs are then
	// ignored.
	Stdin *string
	// Files are written into its working directory before it runs:
	// relative slash-separated path → content (UTF-8 text, or any bytes).
	Files map[string]string
	// Fetch are files of its working directory (relative slash-separated
	// paths) whose content comes back in the result (Result.Fetched) once
	// it ended, however it ended; a path that is not a regular file there
	// is left out.
	Fetch []string
	// Program runs it as `python file.py` runs a file: plain Python (a
	// magic is a SyntaxError), a trailing expression is evaluated, its
	// value neither computed for display nor shown (Result.Value stays
	// nil).
	Program bool
	// Timeout replaces the limits' time limit when positive.
	Timeout time.Duration
	// MemoryBytes lowers the limits' memory limit when positive and lower.
	MemoryBytes uint64
	// Context, when set, stops the snippet when it ends: the snippet comes
	// back interrupted, whether it was waiting or running (a client that
	// went away).
	Context context.Context
}

// Of are the limits l with the snippet's own time and memory limits.
func (s Snippet) Of(l Limits) Limits {
	if s.Timeout > 0 {
		l.Timeout = s.Timeout
	}
	if s.MemoryBytes > 0 && s.MemoryBytes < l.MemoryBytes {
		l.MemoryBytes = s.MemoryBytes
	}
	return l
}

// Stopped reports whether the snippet's own Context has ended.
func (s Snippet) Stopped() bool { return s.Context != nil && s.Context.Err() != nil }

// NeedsContainer reports whether the snippet has what only a container
// gives it: files, stdin or files to fetch.
func (s Snippet) NeedsContainer() bool {
	return len(s.Files) > 0 || len(s.Inputs) > 0 || s.Stdin != nil || len(s.Fetch) > 0
}
