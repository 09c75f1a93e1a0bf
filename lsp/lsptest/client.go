// Package lsptest is a small LSP client for driving backyard-ls in tests,
// benchmarks and measurements: in process (Pipe) or as a child process over
// real stdio (Exec). It records every notification and server-to-client
// request, answers the latter, and waits for messages by predicate.
package lsptest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"

	"github.com/backyard-ls/backyard-ls/lsp"
)

// Message is a notification or request the server sent.
type Message struct {
	Method string
	Params json.RawMessage
	Call   bool // a request (the client answered it)
}

// Decode unmarshals the params into v.
func (m Message) Decode(v any) error { return json.Unmarshal(m.Params, v) }

// Client is one connection to a server.
type Client struct {
	conn jsonrpc2.Conn

	mu      sync.Mutex
	msgs    []Message
	changed chan struct{} // closed and replaced on each new message
	refuse  map[string]bool
	answers map[string]func(params json.RawMessage) any

	closeFn func() error
}

// New runs a client over r (server output) and w (server input); closeFn
// ends the session (closes w, waits for the server).
func New(r io.Reader, w io.WriteCloser, closeFn func() error) *Client {
	c := &Client{changed: make(chan struct{}), refuse: map[string]bool{}, answers: map[string]func(json.RawMessage) any{}, closeFn: closeFn}
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(rwc{r, w}), jsonrpc2.WithCodec(jsonrpc2.JSONCodec{}))
	c.conn.Go(context.Background(), c.handle)
	return c
}

type rwc struct {
	io.Reader
	io.WriteCloser
}

func (c *Client) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	m := Message{Method: strings.Clone(req.Method()), Params: bytes.Clone(req.Params()), Call: req.IsCall()}
	c.mu.Lock()
	c.msgs = append(c.msgs, m)
	close(c.changed)
	c.changed = make(chan struct{})
	refused := c.refuse[m.Method]
	answer := c.answers[m.Method]
	c.mu.Unlock()
	if m.Call {
		// Answer from another goroutine: the read loop must keep reading,
		// or a server blocked writing to us would never read our answer.
		jsonrpc2.Async(ctx)
	}
	if m.Call && refused {
		return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", m.Method)
	}
	if m.Call && answer != nil {
		return answer(m.Params), nil
	}
	return nil, nil
}

// Answer makes the client answer server requests for method with what fn
// returns for their params (e.g. the choice of a window/showMessageRequest).
func (c *Client) Answer(method string, fn func(params json.RawMessage) any) {
	c.mu.Lock()
	c.answers[method] = fn
	c.mu.Unlock()
}

// Refuse makes the client answer server requests for method with
// MethodNotFound, as Neovim 0.7 does for workspace/codeLens/refresh.
func (c *Client) Refuse(method string) {
	c.mu.Lock()
	c.refuse[method] = true
	c.mu.Unlock()
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

// Close ends the session (see Pipe and Exec).
func (c *Client) Close() error {
	err := c.closeFn()
	_ = c.conn.Close()
	return err
}

// Call sends a request and decodes its result into result (nil discards).
func (c *Client) Call(ctx context.Context, method string, params, result any) error {
	var raw jsonrpc2.RawMessage
	if _, err := c.conn.Call(ctx, method, params, &raw); err != nil {
		return err
	}
	if result == nil || len(raw) == 0 {
		return nil
	}
	if p, ok := result.(*json.RawMessage); ok {
		*p = json.RawMessage(raw)
		return nil
	}
	return json.Unmarshal(raw, result)
}

// Notify sends a notification.
func (c *Client) Notify(ctx context.Context, method string, params any) error {
	return c.conn.Notify(ctx, method, params)
}

// Messages returns what the server sent so far, in order.
func (c *Client) Messages() []Message {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Message(nil), c.msgs...)
}

// Forget drops the messages received so far (long benchmarks); indices
// start again at 0.
func (c *Client) Forget() {
	c.mu.Lock()
	c.msgs = nil
	c.mu.Unlock()
}

// Len is the number of messages received so far; pass it to Wait to look
// only at later ones.
func (c *Client) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.msgs)
}

// Wait returns the first message at or after index from that matches, and
// its index.
func (c *Client) Wait(ctx context.Context, from int, match func(Message) bool) (Message, int, error) {
	for next := from; ; {
		c.mu.Lock()
		msgs := c.msgs
		ch := c.changed
		c.mu.Unlock()
		for ; next < len(msgs); next++ {
			if match(msgs[next]) {
				return msgs[next], next, nil
			}
		}
		select {
		case <-ch:
		case <-c.conn.Done():
			return Message{}, -1, errors.New("connection closed")
		case <-ctx.Done():
			return Message{}, -1, fmt.Errorf("waiting for a message: %w", ctx.Err())
		}
	}
}

// Done is closed when the connection ends.
func (c *Client) Done() <-chan struct{} { return c.conn.Done() }
