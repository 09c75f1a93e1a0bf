package monty

import (
	"fmt"
	"strings"
)

// ProtocolError is a violation of the wire protocol by either side: an
// undecodable or unexpected event, or a FatalError from the worker. The
// worker is killed when one happens.
type ProtocolError struct {
	Msg string
}

func (e *ProtocolError) Error() string { return "monty protocol: " + e.Msg }

// VersionError is returned by Start when the worker does not serve
// ProtocolVersion.
type VersionError struct {
	Binary string
	Detail string // the worker's own message
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("monty worker %s does not speak protocol version %d, the one backyard-ls supports (pydantic-monty-runtime %s): %s",
		e.Binary, ProtocolVersion, RuntimeVersion, e.Detail)
}

// CrashError reports a worker that exited or was killed while it was
// expected to answer.
type CrashError struct {
	ExitCode int    // -1 when killed by a signal
	Signal   string // e.g. "SIGKILL"; "" when it exited
	Stderr   string // the last lines it wrote to stderr
}

// ExitOutOfMemory is the worker's exit code when its allocator cap is hit.
const ExitOutOfMemory = 65

// OutOfMemory reports whether the worker died on its memory cap.
func (e *CrashError) OutOfMemory() bool { return e.ExitCode == ExitOutOfMemory }

func (e *CrashError) Error() string {
	var b strings.Builder
	b.WriteString("monty worker ")
	switch {
	case e.OutOfMemory():
		b.WriteString("ran out of memory (exit 65)")
	case e.Signal != "":
		b.WriteString("was killed by signal " + e.Signal)
	default:
		fmt.Fprintf(&b, "exited with code %d", e.ExitCode)
	}
	if s := strings.TrimSpace(e.Stderr); s != "" {
		b.WriteString(": " + s)
	}
	return b.String()
}

// InputError is returned by Feed for inputs that cannot cross into the
// sandbox; nothing was sent and the worker is unaffected.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }

func (e *InputError) Unwrap() error { return e.Err }
