// Package lsptest is an LSP client for driving backyard-ls in tests,
// benchmarks and measurements: in process (Pipe) or as a child process over
// real stdio (Exec). It behaves as an editor does:
//
//   - it keeps each open document's text and version and applies the
//     changes it sends (documents.go), so a test asserts on what an editor
//     would hold;
//   - it records what the server sends, decoded into go.lsp.dev/protocol
//     and contract types (State, state.go), and answers the server's
//     requests (configuration from SetSettings, a choice from
//     OnShowMessageRequest, MethodNotFound for Refuse);
//   - it waits for expectations on that state (Await, expect.go) and, when
//     one is not met, fails with a dump of the state: documents, recent
//     messages, diagnostics, executions, pending server requests.
//
// Requests to the server go through the library's typed dispatcher
// (Server) or the helpers in lsp.go; backyard's commands take and return
// the contract package's types (ExecuteCommand).
package lsptest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"reflect"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/lsp"
)

// Message is a notification or request the server sent.
type Message struct {
	// Seq numbers the messages of a session from 0 (see Client.Mark).
	Seq    int
	Method string
	Params json.RawMessage
	// Call: a request, which the client answered.
	Call bool
	// Value is Params decoded into its protocol or contract type (a
	// pointer, e.g. *contract.ExecutionStateParams), nil for a method this
	// package does not know or params that did not decode.
	Value any
}

// Decode unmarshals the params into v.
func (m Message) Decode(v any) error { return json.Unmarshal(m.Params, v) }

// Client is one connection to a server.
type Client struct {
	conn   jsonrpc2.Conn
	server protocol.Server

	mu      sync.Mutex
	state   State
	waiters map[*waiter]struct{}
	changed chan struct{} // closed and replaced on each change of state
	refuse  map[string]bool
	answers map[string]func(params json.RawMessage) any
	choose  func(*protocol.ShowMessageRequestParams) *protocol.MessageActionItem
	holds   map[string]chan struct{}

	closeFn func() error
}

// New runs a client over r (server output) and w (server input); closeFn
// ends the session (closes w, waits for the server).
func New(r io.Reader, w io.WriteCloser, closeFn func() error) *Client {
	c := &Client{
		state:   newState(),
		waiters: map[*waiter]struct{}{},
		changed: make(chan struct{}),
		refuse:  map[string]bool{},
		answers: map[string]func(json.RawMessage) any{},
		holds:   map[string]chan struct{}{},
		closeFn: closeFn,
	}
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(rwc{r, w}), jsonrpc2.WithCodec(lsp.Codec{}))
	c.server = protocol.ServerDispatcher(c.conn)
	c.conn.Go(context.Background(), c.handle)
	return c
}

type rwc struct {
	io.Reader
	io.WriteCloser
}

// Pipe starts lsp.Serve in process and connects a client to it. Close
// ends the session and returns Serve's error.
func Pipe(opts lsp.Options) *Client {
	sr, cw := io.Pipe() // client → server
	cr, sw := io.Pipe() // server → client
	done := make(chan error, 1)
	go func() {
		err := lsp.Serve(context.Background(), sr, sw, opts)
		_ = sw.Close()
		done <- err
	}()
	var once sync.Once
	var serveErr error
	return New(cr, cw, func() error {
		once.Do(func() {
			_ = cw.Close()
			serveErr = <-done
		})
		return serveErr
	})
}

// Exec starts the backyard-ls binary with args and connects a client to
// its stdin and stdout; stderr goes to stderr (nil discards it). Close
// closes the server's stdin and waits for it to exit.
func Exec(binary string, stderr io.Writer, args ...string) (*Client, *exec.Cmd, error) {
	cmd := exec.Command(binary, args...)
	cmd.Stderr = stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	var once sync.Once
	var waitErr error
	c := New(out, in, func() error {
		once.Do(func() {
			_ = in.Close()
			waitErr = cmd.Wait()
		})
		return waitErr
	})
	return c, cmd, nil
}

// Close ends the session (see Pipe and Exec) and waits for the client's
// connection to end.
func (c *Client) Close() error {
	c.mu.Lock()
	for method, ch := range c.holds {
		delete(c.holds, method)
		close(ch)
	}
	c.mu.Unlock()
	err := c.closeFn()
	_ = c.conn.Close()
	return err
}

// Done is closed when the connection ends.
func (c *Client) Done() <-chan struct{} { return c.conn.Done() }

// Server is the server's typed face (the library's dispatcher): every LSP
// request and notification, e.g. c.Server().Hover(ctx, params).
func (c *Client) Server() protocol.Server { return c.server }

// Call sends a request and decodes its result into result (nil discards;
// a *json.RawMessage gets the raw result). Params are encoded as the server
// encodes (lsp.Codec): protocol and contract types, or any JSON value.
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	var raw jsonrpc2.RawMessage
	if _, err := c.conn.Call(ctx, method, params, &raw); err != nil {
		return err
	}
	return decodeResult(raw, result)
}

// decodeResult decodes a protocol type with the library (its unions need
// it), anything else (contract types, a test's own struct) as
// encoding/json does.
func decodeResult(raw []byte, result any) error {
	if result == nil || len(raw) == 0 {
		return nil
	}
	if p, ok := result.(*json.RawMessage); ok {
		*p = bytes.Clone(raw)
		return nil
	}
	t := reflect.TypeOf(result)
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.PkgPath() == protocolPackage {
		return protocol.Unmarshal(raw, result)
	}
	return json.Unmarshal(raw, result)
}

var protocolPackage = reflect.TypeFor[protocol.Position]().PkgPath()

// Notify sends a notification.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	return c.conn.Notify(ctx, method, params)
}

// Refuse makes the client answer server requests for method with
// MethodNotFound, as Neovim 0.7 does for workspace/codeLens/refresh.
func (c *Client) Refuse(method string) {
	c.mu.Lock()
	c.refuse[method] = true
	c.mu.Unlock()
}

// Answer makes the client answer server requests for method with what fn
// returns for their raw params: for requests this package has no typed
// hook for (backyard's own). It overrides the typed hooks.
func (c *Client) Answer(method string, fn func(params json.RawMessage) any) {
	c.mu.Lock()
	c.answers[method] = fn
	c.mu.Unlock()
}

// OnShowMessageRequest makes the client answer window/showMessageRequest
// with what choose returns (nil: the message was dismissed, the default).
func (c *Client) OnShowMessageRequest(choose func(*protocol.ShowMessageRequestParams) *protocol.MessageActionItem) {
	c.mu.Lock()
	c.choose = choose
	c.mu.Unlock()
}

// Hold makes the client keep its answers to server requests of method
// until release is called (they stay in State.Pending): to see what the
// server does while it waits for the editor.
func (c *Client) Hold(method string) (release func()) {
	ch := make(chan struct{})
	c.mu.Lock()
	c.holds[method] = ch
	c.mu.Unlock()
	return func() { c.release(method, ch) }
}

func (c *Client) release(method string, ch chan struct{}) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.holds[method] == ch {
		delete(c.holds, method)
		close(ch)
	}
}

// SetSettings sets the value the client answers for section in
// workspace/configuration (value is encoded as JSON; nil removes it, and a
// section without a value is answered with null). It does not tell the
// server: see ChangeConfiguration.
func (c *Client) SetSettings(section string, value any) error {
	var raw jsontext.Value
	if value != nil {
		b, err := lsp.Codec{}.Marshal(value)
		if err != nil {
			return err
		}
		raw = jsontext.Value(b)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if raw == nil {
		delete(c.state.Settings, section)
	} else {
		c.state.Settings[section] = raw
	}
	return nil
}

// handle records what the server sent, in wire order on the read loop,
// then answers a request off the loop: a server blocked writing to us
// must not wait for its own answer.
func (c *Client) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	m := Message{Method: strings.Clone(req.Method()), Params: bytes.Clone(req.Params()), Call: req.IsCall()}
	m.Value = decodeParams(m.Method, m.Params)
	c.mu.Lock()
	m = c.state.observe(m)
	c.changedLocked()
	refused, answer, choose, hold := c.refuse[m.Method], c.answers[m.Method], c.choose, c.holds[m.Method]
	c.mu.Unlock()
	if !m.Call {
		return nil, nil
	}
	jsonrpc2.Async(ctx)
	if hold != nil {
		<-hold // Close releases it too
	}
	res, err := c.answer(m, refused, answer, choose)
	c.mu.Lock()
	delete(c.state.Pending, m.Seq)
	c.changedLocked()
	c.mu.Unlock()
	return res, err
}

func (c *Client) answer(m Message, refused bool, answer func(json.RawMessage) any, choose func(*protocol.ShowMessageRequestParams) *protocol.MessageActionItem) (any, error) {
	switch {
	case refused:
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", m.Method)
	case answer != nil:
		return answer(m.Params), nil
	}
	switch p := m.Value.(type) {
	case *protocol.ApplyWorkspaceEditParams:
		return c.applyEdit(p.Edit), nil
	case *protocol.ShowDocumentParams:
		return &protocol.ShowDocumentResult{Success: true}, nil // shown, as an editor does
	case *protocol.ShowMessageRequestParams:
		if choose != nil {
			return choose(p), nil
		}
	case *protocol.ConfigurationParams:
		c.mu.Lock()
		defer c.mu.Unlock()
		items := make([]protocol.LSPAny, len(p.Items))
		for i, it := range p.Items {
			items[i] = protocol.LSPAny("null")
			if it.Section != nil {
				if v, ok := c.state.Settings[*it.Section]; ok {
					items[i] = v
				}
			}
		}
		return items, nil
	}
	return nil, nil
}

// changedLocked wakes Wait and checks the waiters of Await; c.mu is held.
func (c *Client) changedLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
	for w := range c.waiters {
		if v, _ := check(&c.state, w.exps); v != Unmet {
			delete(c.waiters, w)
			w.verdict <- v
		}
	}
}

// Mark is the Seq the next message will have: pass it to After (or
// MessagesSince) to look only at what comes later.
func (c *Client) Mark() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state.next
}

// Len is Mark, by its older name.
func (c *Client) Len() int { return c.Mark() }

// Messages returns the messages received and not forgotten, in order.
func (c *Client) Messages() []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Message(nil), c.state.messages...)
}

// MessagesSince returns the messages from mark on.
func (c *Client) MessagesSince(mark int) []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Message(nil), c.state.since(mark)...)
}

// Forget drops the messages and execution records received so far (long
// benchmarks); documents, diagnostics and kernel states stay. Seq numbers
// go on.
func (c *Client) Forget() {
	c.mu.Lock()
	c.state.forget()
	c.mu.Unlock()
}

// Inspect runs f on the client's state, under its lock: f must not call
// the client. Prefer the accessors and Await.
func (c *Client) Inspect(f func(s *State)) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f(&c.state)
}

// Dump describes the client's state (what Await prints when it fails).
func (c *Client) Dump() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state.String()
}
