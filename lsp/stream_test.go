package lsp_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp"
)

// rawSession drives an in-process server with hand-written frames.
type rawSession struct {
	t    *testing.T
	w    *io.PipeWriter
	msgs chan jsonrpc2.Message // read continuously: io.Pipe has no buffer
	done chan error
}

func newRaw(t *testing.T) *rawSession {
	sr, cw := io.Pipe()
	cr, sw := io.Pipe()
	r := &rawSession{t: t, w: cw, msgs: make(chan jsonrpc2.Message, 1024), done: make(chan error, 1)}
	in := jsonrpc2.NewHeaderStream(struct {
		io.Reader
		io.WriteCloser
	}{cr, cw})
	frames := in.(interface {
		ReadFrame(context.Context) ([]byte, int64, error)
	})
	go func() {
		defer close(r.msgs)
		for {
			body, _, err := frames.ReadFrame(context.Background())
			if err != nil {
				return
			}
			// Decoded messages borrow their frame: decode an owned copy.
			m, err := jsonrpc2.DecodeMessage(bytes.Clone(body))
			if err != nil {
				return
			}
			r.msgs <- m
		}
	}()
	go func() {
		err := lsp.Serve(context.Background(), sr, sw, lsp.Options{Logger: testLogger()})
		sw.Close()
		r.done <- err
	}()
	t.Cleanup(func() {
		cw.Close()
		<-r.done
	})
	return r
}

// send writes raw bytes.
func (r *rawSession) send(s string) {
	r.t.Helper()
	if _, err := io.WriteString(r.w, s); err != nil {
		r.t.Fatal(err)
	}
}

// frame writes body as one well-formed frame.
func frame(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

func call(id int, method, params string) string {
	return frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
}

// response reads messages until the response with id (0 for a null id)
// and returns it.
func (r *rawSession) response(id int64) *jsonrpc2.Response {
	r.t.Helper()
	ctx := testCtx(r.t)
	for {
		var m jsonrpc2.Message
		select {
		case m = <-r.msgs:
		case <-ctx.Done():
			r.t.Fatalf("waiting for the response %d: %v", id, ctx.Err())
		}
		if m == nil {
			r.t.Fatalf("the server closed the connection before the response %d", id)
		}
		resp, ok := m.(*jsonrpc2.Response)
		if !ok {
			continue
		}
		if n, isNum := resp.ID().Number(); isNum && n == id || id == 0 && !resp.ID().IsValid() {
			return resp
		}
	}
}

const initParams = `{"processId":null,"rootUri":null,"capabilities":{}}`

func TestMalformedJSON(t *testing.T) {
	r := newRaw(t)
	r.send(call(1, "initialize", initParams))
	if resp := r.response(1); resp.Err() != nil {
		t.Fatal(resp.Err())
	}
	r.send(frame(`{"jsonrpc":"2.0","id":2,"method":`)) // cut short
	if resp := r.response(0); rpcCode(resp.Err()) != jsonrpc2.ParseError {
		t.Fatalf("malformed JSON: got %v, want ParseError", resp.Err())
	}
	r.send(frame(`{"jsonrpc":"2.0","id":3}`)) // no method, no result
	if resp := r.response(0); rpcCode(resp.Err()) != jsonrpc2.InvalidRequest {
		t.Fatalf("invalid request: got %v, want InvalidRequest", resp.Err())
	}
	r.send(frame(`[`))
	r.response(0)
	r.send(call(4, "textDocument/codeLens", `{"textDocument":{"uri":"file:///a.py"}}`))
	if resp := r.response(4); resp.Err() != nil {
		t.Fatalf("after malformed input: %v", resp.Err())
	}
}

func TestWrongContentLength(t *testing.T) {
	r := newRaw(t)
	r.send(call(1, "initialize", initParams))
	r.response(1)
	lens := func(id int) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"textDocument/codeLens","params":{"textDocument":{"uri":"file:///a.py"}}}`, id)
	}

	// Too short: the body is cut, its tail is garbage before the next header.
	body := lens(2)
	r.send(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body)-10, body))
	r.send(call(3, "textDocument/codeLens", `{"textDocument":{"uri":"file:///a.py"}}`))
	if resp := r.response(3); resp.Err() != nil {
		t.Fatalf("after a short Content-Length: %v", resp.Err())
	}

	// Too long: the body swallows the start of the next message, which is
	// lost; the one after it is answered.
	body = lens(4)
	r.send(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body)+20, body))
	r.send(call(5, "textDocument/codeLens", `{"textDocument":{"uri":"file:///a.py"}}`))
	r.send(call(6, "textDocument/codeLens", `{"textDocument":{"uri":"file:///a.py"}}`))
	if resp := r.response(6); resp.Err() != nil {
		t.Fatalf("after a long Content-Length: %v", resp.Err())
	}

	// Header garbage and a header without Content-Length.
	r.send("this is not a header\r\n\r\n")
	r.send("Content-Type: application/json\r\n\r\n{}")
	r.send("Content-Length: abc\r\n\r\n")
	r.send(call(7, "textDocument/codeLens", `{"textDocument":{"uri":"file:///a.py"}}`))
	if resp := r.response(7); resp.Err() != nil {
		t.Fatalf("after header garbage: %v", resp.Err())
	}

	// An overlong garbage line ending in a header.
	r.send(strings.Repeat("x", 200<<10) + call(8, "textDocument/codeLens", `{"textDocument":{"uri":"file:///a.py"}}`))
	if resp := r.response(8); resp.Err() != nil {
		t.Fatalf("after a long garbage line: %v", resp.Err())
	}
}

// sendBig writes one frame whose body is head, n bytes of padding inside
// a JSON string, and tail, without building it in memory.
func (r *rawSession) sendBig(head string, n int, tail string) {
	r.t.Helper()
	r.send(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(head)+n+len(tail), head))
	chunk := strings.Repeat("x", 1<<20)
	for left := n; left > 0; left -= len(chunk) {
		r.send(chunk[:min(left, len(chunk))])
	}
	r.send(tail)
}

// A message over the limit is read past: a request gets an error with its
// id, a notification a message to the user; the session goes on.
func TestMessageOverTheLimit(t *testing.T) {
	r := newRaw(t)
	r.send(call(1, "initialize", initParams))
	r.response(1)
	big := contract.MaxLSPMessageBytes + 1
	r.sendBig(`{"jsonrpc":"2.0","method":"textDocument/codeLens","params":{"pad":"`, big, `"},"id":2}`)
	if resp := r.response(2); rpcCode(resp.Err()) != jsonrpc2.InvalidRequest || !strings.Contains(resp.Err().Error(), "over the server's limit") {
		t.Fatalf("got %v, want InvalidRequest", resp.Err())
	}
	r.sendBig(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///big.py","languageId":"python","version":1,"text":"`, big, `"}}}`)
	ctx := testCtx(t)
	for shown := false; !shown; {
		select {
		case m := <-r.msgs:
			if n, ok := m.(*jsonrpc2.Notification); ok && n.Method() == "window/showMessage" {
				if !strings.Contains(string(n.Params()), "textDocument/didOpen") {
					t.Fatalf("%s", n.Params())
				}
				shown = true
			}
		case <-ctx.Done():
			t.Fatal("no window/showMessage for a notification over the limit")
		}
	}
	r.send(call(3, "textDocument/codeLens", `{"textDocument":{"uri":"file:///a.py"}}`))
	if resp := r.response(3); resp.Err() != nil {
		t.Fatalf("after a message over the limit: %v", resp.Err())
	}
}
