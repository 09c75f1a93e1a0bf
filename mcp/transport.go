package mcp

// How the server takes messages: newline-delimited JSON-RPC on stdio
// (NewTransport) and streamable HTTP (Handler), each bounded and each
// keeping cancelled requests unanswered.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/internal/bounded"
	"github.com/backyard-ls/backyard-ls/internal/webguard"
)

// StdioTransport serves one client on stdin and stdout (see NewTransport).
func (s *Server) StdioTransport() sdk.Transport { return s.NewTransport(os.Stdin, os.Stdout) }

// NewTransport serves MCP as newline-delimited JSON-RPC on r and w, as the
// SDK's stdio transport does, except that no message ends the connection:
// one over contract.MaxRequestBytes is read past without being held and
// answered (a tools/call with a tool error, another request with a
// JSON-RPC error), a line that is not JSON gets a parse error, a request
// the client cancelled gets no response (the spec's rule), and the requests
// read before the input ends are answered before the server exits.
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
	return &answerAll{Connection: &cancelFilter{Connection: conn, cancelled: newCancelSet()}, log: t.log, serving: ctx, open: map[jsonrpc.ID]bool{},
		outgoing: map[jsonrpc.ID]bool{}, changed: make(chan struct{}, 1), closed: make(chan struct{})}, nil
}

// answerAll holds the end of the client's input back from the SDK until
// every request read before it is answered. The SDK cancels the requests in
// flight when its reader ends (go-sdk issue 1061), so a client that writes
// its requests and then closes stdin, as a JSON-RPC client of a finished
// stream may, would get no answers: not even to initialize, which then
// makes the initialized notification come "before initialize". Each
// request still ends within its limits (a cell's time limit); a client
// that will not wait sends SIGTERM, the spec's next step, and a request it
// cancelled is not waited for.
type answerAll struct {
	sdk.Connection
	log *zap.Logger
	// serving ends when the server stops (SIGTERM): the SDK's own contexts
	// never end, and its Close waits for the requests in flight.
	serving context.Context

	mu sync.Mutex
	// open are the client's requests read and not answered; outgoing, the
	// server's requests to the client not answered, which can get no
	// answer once the input ended: the SDK must see the end to give up on
	// them (the requests that wait for them end with them).
	open, outgoing map[jsonrpc.ID]bool
	// broken: a write failed, and the SDK writes nothing more
	broken    bool
	changed   chan struct{} // a request was answered, the server asked one or a write failed
	closed    chan struct{}
	closeOnce sync.Once
}

func (a *answerAll) Read(ctx context.Context) (jsonrpc.Message, error) {
	// The server's stop ends the read, and with it the requests in flight,
	// which the SDK's Close would otherwise wait for.
	ctx, cancel := context.WithCancel(ctx)
	defer context.AfterFunc(a.serving, cancel)()
	defer cancel()
	m, err := a.Connection.Read(ctx)
	if err != nil {
		a.drain(ctx, err)
		return nil, err
	}
	a.mu.Lock()
	switch m := m.(type) {
	case *jsonrpc.Request:
		if m.IsCall() {
			a.open[m.ID] = true
		} else if m.Method == methodCancelled {
			delete(a.open, cancelledID(m.Params)) // it gets no answer
		}
	case *jsonrpc.Response:
		delete(a.outgoing, m.ID)
	}
	a.mu.Unlock()
	return m, nil
}

// drain waits until the requests read are answered, the server asks the
// client something, a write fails, the connection closes, the server stops
// or ctx ends.
func (a *answerAll) drain(ctx context.Context, end error) {
	a.mu.Lock()
	n := len(a.open)
	a.mu.Unlock()
	if n > 0 {
		a.log.Info("the input ended: answering the requests read before it", zap.Int("requests", n), zap.Error(end))
	}
	for {
		a.mu.Lock()
		done := len(a.open) == 0 || len(a.outgoing) > 0 || a.broken
		a.mu.Unlock()
		if done {
			return
		}
		select {
		case <-a.changed:
		case <-a.closed:
			return
		case <-a.serving.Done():
			return
		case <-ctx.Done():
			return
		}
	}
}

func (a *answerAll) Write(ctx context.Context, m jsonrpc.Message) error {
	err := a.Connection.Write(ctx, m)
	a.mu.Lock()
	a.broken = a.broken || err != nil
	switch m := m.(type) {
	case *jsonrpc.Response:
		delete(a.open, m.ID)
	case *jsonrpc.Request:
		if m.IsCall() {
			a.outgoing[m.ID] = true
		}
	}
	a.mu.Unlock()
	select {
	case a.changed <- struct{}{}:
	default:
	}
	return err
}

func (a *answerAll) Close() error {
	a.closeOnce.Do(func() { close(a.closed) })
	return a.Connection.Close()
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

// HTTPOptions say which requests streamable HTTP serves besides those of
// the machine itself.
type HTTPOptions struct {
	// AllowedHosts are Host header values (a name, or name:port) served
	// besides loopback names (localhost, 127.0.0.1, [::1]), e.g. the name a
	// reverse proxy forwards.
	AllowedHosts []string
	// AllowedOrigins are browser origins (scheme://host[:port]) served
	// besides loopback ones; a request without an Origin is not a
	// browser's and is served.
	AllowedOrigins []string
}

// Handler serves streamable HTTP. A request whose Host or Origin is
// neither loopback nor allowed is refused with 403 (DNS rebinding, a page
// in the user's browser); a body over contract.MaxRequestBytes is read
// past and answered (a tools/call with a tool error, another request with
// a JSON-RPC error); a request the client cancelled gets no response.
func (s *Server) Handler(opts HTTPOptions) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.srv }, &sdk.StreamableHTTPOptions{
		PropagateRequestCancellation: true, // a client that drops the request interrupts the cell
		SessionTimeout:               s.opts.IdleTimeout,
		MaxRequestBodyBytes:          contract.MaxRequestBytes,
		// The guard below checks the Host, with the allowed names.
		DisableLocalhostProtection: true,
	})
	return &httpGuard{next: h, log: s.log, hosts: webguard.NewNames(opts.AllowedHosts), origins: webguard.NewNames(opts.AllowedOrigins),
		cancelled: map[string]*cancelSet{}}
}

type httpGuard struct {
	next    http.Handler
	log     *zap.Logger
	hosts   webguard.Names
	origins webguard.Names

	mu        sync.Mutex
	cancelled map[string]*cancelSet // by session ID
}

func (g *httpGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hosts.Host(r.Host) {
		g.log.Warn("refused a request for another host", zap.String("host", r.Host))
		http.Error(w, fmt.Sprintf("Forbidden: Host %q is not served (start the server with --allow-host %s to serve it)", r.Host, r.Host), http.StatusForbidden)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !g.origins.Origin(o) {
		g.log.Warn("refused a request from another origin", zap.String("origin", o))
		http.Error(w, fmt.Sprintf("Forbidden: Origin %q is not served (start the server with --allow-origin %s to serve it)", o, o), http.StatusForbidden)
		return
	}
	if r.Method != http.MethodPost || r.Body == nil {
		g.next.ServeHTTP(w, r)
		return
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, contract.MaxRequestBytes+1))
	if err != nil {
		http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	if len(body) > contract.MaxRequestBytes {
		g.refuse(w, io.MultiReader(bytes.NewReader(body), r.Body))
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	session := r.Header.Get("Mcp-Session-Id")
	if id, ok := cancelNotice(body); ok && session != "" {
		g.sessionCancels(session).add(id)
	}
	if session != "" {
		w = &cancelWriter{ResponseWriter: w, cancelled: g.sessionCancels(session)}
	}
	g.next.ServeHTTP(w, r)
}

// refuse reads past a body over the limit and answers it.
func (g *httpGuard) refuse(w http.ResponseWriter, body io.Reader) {
	h, err := bounded.Scan(body)
	g.log.Warn("a request over the limit", zap.Int64("bytes", h.Bytes), zap.String("method", h.Method), zap.Error(err))
	if h.ID == nil {
		http.Error(w, fmt.Sprintf("the request is over the server's limit of %d bytes", contract.MaxRequestBytes), http.StatusRequestEntityTooLarge)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if h.Method != "tools/call" {
		w.WriteHeader(http.StatusRequestEntityTooLarge)
	}
	w.Write(refusal(h))
}

func (g *httpGuard) sessionCancels(id string) *cancelSet {
	g.mu.Lock()
	defer g.mu.Unlock()
	c := g.cancelled[id]
	if c == nil {
		if len(g.cancelled) >= 4*DefaultMaxSessions {
			clear(g.cancelled) // sessions that ended: their cancels are moot
		}
		c = newCancelSet()
		g.cancelled[id] = c
	}
	return c
}

// cancelNotice reads the request id of a notifications/cancelled body.
func cancelNotice(body []byte) (jsonrpc.ID, bool) {
	if !bytes.Contains(body, []byte(methodCancelled)) {
		return jsonrpc.ID{}, false
	}
	m, err := jsonrpc.DecodeMessage(body)
	if req, ok := m.(*jsonrpc.Request); err == nil && ok && req.Method == methodCancelled {
		id := cancelledID(req.Params)
		return id, id.IsValid()
	}
	return jsonrpc.ID{}, false
}

// cancelWriter drops the server-sent event that carries the response to a
// cancelled request (the SDK writes each event in one Write).
type cancelWriter struct {
	http.ResponseWriter
	cancelled *cancelSet
}

func (c *cancelWriter) Write(p []byte) (int, error) {
	if c.cancelled.empty() {
		return c.ResponseWriter.Write(p)
	}
	if _, data, ok := bytes.Cut(p, []byte("\ndata: ")); ok && bytes.HasPrefix(p, []byte("event: message\n")) {
		if m, err := jsonrpc.DecodeMessage(bytes.TrimSpace(data)); err == nil {
			if resp, ok := m.(*jsonrpc.Response); ok && c.cancelled.take(resp.ID) {
				return len(p), nil
			}
		}
	}
	return c.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController flush the stream.
func (c *cancelWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }
