// Package monty drives the Monty worker, pydantic's sandboxed Python
// interpreter, as a child process (`monty subprocess`) over its framed
// protobuf protocol.
//
// Wire facts (verified against pydantic-monty-runtime 1.4.0, the supported
// worker): each frame is a 4-byte little-endian length and one protobuf
// message; the parent sends one request and the child answers with zero or
// more Print events and exactly one turn-ending event. backyard-ls speaks
// protocol version 5; a worker that does not serve it is refused with an
// error naming the supported version.
package monty

// Supported worker and protocol.
const (
	// ProtocolVersion is the wire protocol version backyard-ls speaks.
	ProtocolVersion = 5
	// RuntimeVersion is the pinned pydantic-monty-runtime release the
	// protocol was verified against.
	RuntimeVersion = "1.4.0"
)
