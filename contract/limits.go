package contract

// Limits of what the servers read from their clients. A message over its
// limit is read past without being held and gets an error of its own (a
// JSON-RPC error; on MCP, a tools/call gets a tool error; in a batch, the
// line gets an error record with its id); the server and every session go
// on.
const (
	// One LSP message (a didOpen carries the whole document).
	MaxLSPMessageBytes = 64 << 20
	// One request of a program: an MCP JSON-RPC message (a line on stdio, a request body over streamable HTTP), a batch input line (a snippet with its files and inputs), a request body of the HTTP service (its --max-body-bytes by default; over it, 413).
	MaxRequestBytes = 16 << 20
)
