package mcp

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/internal/bounded"
)

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
	g := &httpGuard{next: h, log: s.log, hosts: map[string]bool{}, origins: map[string]bool{}, cancelled: map[string]*cancelSet{}}
	for _, x := range opts.AllowedHosts {
		g.hosts[strings.ToLower(x)] = true
	}
	for _, x := range opts.AllowedOrigins {
		g.origins[strings.ToLower(strings.TrimSuffix(x, "/"))] = true
	}
	return g
}

type httpGuard struct {
	next    http.Handler
	log     *zap.Logger
	hosts   map[string]bool
	origins map[string]bool

	mu        sync.Mutex
	cancelled map[string]*cancelSet // by session ID
}

func (g *httpGuard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !g.hostAllowed(r.Host) {
		g.log.Warn("refused a request for another host", zap.String("host", r.Host))
		http.Error(w, fmt.Sprintf("Forbidden: Host %q is not served (start the server with --allow-host %s to serve it)", r.Host, r.Host), http.StatusForbidden)
		return
	}
	if o := r.Header.Get("Origin"); o != "" && !g.originAllowed(o) {
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

func (g *httpGuard) hostAllowed(host string) bool {
	name := host
	if h, _, err := net.SplitHostPort(host); err == nil {
		name = h
	}
	return loopbackName(name) || g.hosts[strings.ToLower(host)] || g.hosts[strings.ToLower(name)]
}

func (g *httpGuard) originAllowed(origin string) bool {
	if g.origins[strings.ToLower(strings.TrimSuffix(origin, "/"))] {
		return true
	}
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && loopbackName(u.Hostname())
}

// loopbackName reports a name of this machine: localhost (and its
// subdomains), a loopback address.
func loopbackName(name string) bool {
	name = strings.TrimSuffix(strings.ToLower(strings.Trim(name, "[]")), ".")
	if name == "localhost" || strings.HasSuffix(name, ".localhost") {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}
