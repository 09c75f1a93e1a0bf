package kernel

import "time"

// Snippet is one independent piece of code of a batch: it runs from an
// empty namespace, and nothing it does reaches another snippet.
type Snippet struct {
	Code string
	// Inputs are the lines its stdin holds, in order (what input() reads).
	Inputs []string
	// Files are written into its working directory before it runs:
	// relative slash-separated path → UTF-8 text.
	Files map[string]string
	// Timeout replaces the limits' time limit when positive.
	Timeout time.Duration
}

// Of are the limits l with the snippet's own time limit.
func (s Snippet) Of(l Limits) Limits {
	if s.Timeout > 0 {
		l.Timeout = s.Timeout
	}
	return l
}
