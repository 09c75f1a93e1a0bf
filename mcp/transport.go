package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/internal/bounded"
)

// StdioTransport serves one client on stdin and stdout (see NewTransport).
func (s *Server) StdioTransport() sdk.Transport { return s.NewTransport(os.Stdin, os.Stdout) }

// NewTransport serves MCP as newline-delimited JSON-RPC on r and w, as the
// SDK's stdio transport does, except that no message ends the connection:
// one over contract.MaxRequestBytes is read past without being held and
// answered (a tools/call with a tool error, another request with a
// JSON-RPC error), a line that is not JSON gets a parse error, and a
// request the client cancelled gets no response (the spec's rule).
func (s *Server) NewTransport(r io.Reader, w io.Writer) sdk.Transport {
	return &transport{r: r, w: w, log: s.log}
}

type transport struct {
	r   io.Reader
	w   io.Writer
	log *zap.Logger
}

func (t *transport) Connect(ctx context.Context) (sdk.Connection, error) {
	out := &lockedWriter{w: t.w}
	in := &lineFilter{r: t.r, lines: bounded.NewLines(t.r, contract.MaxRequestBytes), out: out, log: t.log}
	conn, err := (&sdk.IOTransport{Reader: in, Writer: out, MaxLineLength: contract.MaxRequestBytes + 2}).Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &cancelFilter{Connection: conn, cancelled: newCancelSet()}, nil
}

// lockedWriter keeps the SDK's messages and the filter's answers whole.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (l *lockedWriter) Close() error { return nil }

// lineFilter passes the SDK the lines it can take and answers the others.
type lineFilter struct {
	r       io.Reader
	lines   *bounded.Lines
	out     io.Writer
	log     *zap.Logger
	pending []byte
}

func (f *lineFilter) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		line, over, err := f.lines.Next()
		switch {
		case err != nil:
			return 0, err
		case over != nil:
			f.log.Warn("a message over the limit", zap.Int64("bytes", over.Bytes), zap.String("method", over.Method))
			if over.ID != nil {
				f.answer(refusal(*over))
			}
		case len(bytes.TrimSpace(line)) == 0:
		case !json.Valid(line):
			f.log.Warn("a line that is not JSON", zap.Int("bytes", len(line)))
			f.answer(rpcError(nil, jsonrpc.CodeParseError, "the line is not a JSON-RPC message: it was skipped"))
		default:
			f.pending = append(append(f.pending[:0], line...), '\n')
		}
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

func (f *lineFilter) answer(msg []byte) {
	if _, err := f.out.Write(append(msg, '\n')); err != nil {
		f.log.Debug("answer a refused message", zap.Error(err))
	}
}

func (f *lineFilter) Close() error {
	if c, ok := f.r.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// refusal is the answer to a request over the limit: a tool error for a
// tools/call (the model reads it), else a JSON-RPC error.
func refusal(h bounded.Head) []byte {
	msg := fmt.Sprintf("the request is %d bytes, over the server's limit of %d bytes: it was not run; send less code or data per call", h.Bytes, contract.MaxRequestBytes)
	if h.Method == "tools/call" {
		b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": h.ID, "result": map[string]any{
			"content": []map[string]string{{"type": "text", "text": msg}}, "isError": true}})
		return b
	}
	return rpcError(h.ID, jsonrpc.CodeInvalidRequest, msg)
}

func rpcError(id json.RawMessage, code int, msg string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	return b
}

// cancelFilter drops the response to a request the client cancelled: "the
// receiver … should not send a response for the cancelled request".
type cancelFilter struct {
	sdk.Connection
	cancelled *cancelSet
}

func (f *cancelFilter) Read(ctx context.Context) (jsonrpc.Message, error) {
	m, err := f.Connection.Read(ctx)
	if req, ok := m.(*jsonrpc.Request); ok && !req.IsCall() && req.Method == methodCancelled {
		f.cancelled.add(cancelledID(req.Params))
	}
	return m, err
}

func (f *cancelFilter) Write(ctx context.Context, m jsonrpc.Message) error {
	if resp, ok := m.(*jsonrpc.Response); ok && f.cancelled.take(resp.ID) {
		return nil
	}
	return f.Connection.Write(ctx, m)
}

const methodCancelled = "notifications/cancelled"

// cancelledID is the requestId of a notifications/cancelled's params.
func cancelledID(params json.RawMessage) jsonrpc.ID {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return jsonrpc.ID{}
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil {
		return jsonrpc.ID{}
	}
	return id
}

// cancelSet holds the ids of cancelled requests until their response is
// dropped; it keeps the last maxCancelled (a cancel for a request that
// already ended stays until pushed out).
type cancelSet struct {
	mu    sync.Mutex
	ids   map[jsonrpc.ID]bool
	order []jsonrpc.ID
}

const maxCancelled = 1024

func newCancelSet() *cancelSet { return &cancelSet{ids: map[jsonrpc.ID]bool{}} }

func (c *cancelSet) add(id jsonrpc.ID) {
	if !id.IsValid() {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.order) >= maxCancelled {
		delete(c.ids, c.order[0])
		c.order = c.order[1:]
	}
	c.ids[id] = true
	c.order = append(c.order, id)
}

func (c *cancelSet) empty() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.ids) == 0
}

// take reports whether id was cancelled, forgetting it.
func (c *cancelSet) take(id jsonrpc.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ids[id] {
		return false
	}
	delete(c.ids, id)
	return true
}
