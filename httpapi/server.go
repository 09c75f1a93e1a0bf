// Package httpapi is backyard-ls's HTTP service (`backyard-ls http`):
// SandboxFusion's /run_code and /run_jupyter, field for field, so that
// the RL trainers that speak it (verl, skyrl-agent, the sandbox-fusion
// client) use backyard-ls by changing a URL, plus stateful sessions of its
// own, all declared by contract.HTTPService. /run_code requests share one
// long-lived batch (sandbox.Batch): Monty workers and fork-server
// containers that serve every request, routed as the auto kernel routes.
//
// The service bounds what it takes: a cap on runs at once with a bounded
// queue behind it (past it 429 with Retry-After), a body size limit (413),
// a run whose client went away is stopped. It answers /healthz and
// Prometheus /metrics, and shuts down gracefully (Shutdown). Off loopback
// it needs a bearer token; on loopback it checks Host and Origin.
package httpapi

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/internal/webguard"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/monty"
)

// Options configure a Server.
type Options struct {
	// Settings are the effective backyard.* settings: the backend (auto by
	// default), the limits (Memory is the most a request may ask for;
	// Timeout the default of a session's runs), the Monty worker, the
	// container settings.
	Settings contract.Settings
	// Parallel is how many snippets run at once: Monty workers, and
	// fork-server containers for the snippets that need one (default 2).
	Parallel int
	// Preload are modules every fork server imports before any snippet.
	Preload []string
	// HashSeed is the PYTHONHASHSEED of the programs that run in a
	// container (sandbox.BatchOptions.HashSeed; empty: "0").
	HashSeed string
	// MaxRunning bounds the runs in progress (default DefaultMaxRunning);
	// MaxQueued the requests waiting for one of them (default
	// DefaultMaxQueued; negative: none). A request past both gets 429.
	MaxRunning, MaxQueued int
	// MaxBodyBytes bounds a request body (default DefaultMaxBodyBytes).
	MaxBodyBytes int64
	// MaxTimeout bounds a request's run_timeout and total_timeout (default
	// DefaultMaxTimeout).
	MaxTimeout time.Duration
	// MaxSessions bounds the sessions open at once (default
	// DefaultMaxSessions); IdleTimeout closes a session that ran nothing
	// for that long (default DefaultIdleTimeout).
	MaxSessions int
	IdleTimeout time.Duration
	// Token, when set, is the bearer token every request but /healthz
	// must carry.
	Token string
	// Loopback: the server listens on loopback only; requests must then
	// name a loopback Host (a DNS-rebinding page cannot) or one of
	// AllowHosts.
	Loopback   bool
	AllowHosts []string
	// AllowOrigins are the Origin values a browser page may send
	// (scheme://host[:port]) besides this machine's own pages; others are
	// refused with 403.
	AllowOrigins []string
	// PodName is SandboxFusion's executor_pod_name (MY_POD_NAME).
	PodName string
	Logger  *zap.Logger
	// Registry gets the service's metrics (default a new one, served at
	// /metrics).
	Registry *prometheus.Registry
}

// Defaults of Options.
const (
	DefaultMaxRunning   = 64
	DefaultMaxQueued    = 256
	DefaultMaxBodyBytes = contract.MaxRequestBytes
	DefaultMaxTimeout   = 5 * time.Minute
	DefaultMaxSessions  = 64
	DefaultIdleTimeout  = 10 * time.Minute
)

// Server is the HTTP service. New makes it, Handler serves it, Shutdown
// ends it.
type Server struct {
	opts     Options
	log      *zap.Logger
	hosts    webguard.Names
	origins  webguard.Names
	lanes    *lanes
	gate     *gate
	metrics  *metrics
	sessions *sessions
	mux      *http.ServeMux

	draining atomic.Bool
	// life ends when Shutdown gives up waiting: runs still going are
	// stopped.
	life context.Context
	stop context.CancelFunc
	runs sync.WaitGroup // handlers that run code
}

// New returns a server whose batch lanes start at once (the Monty worker
// is probed for auto routing; containers start with their first snippet).
// It fails when the settings cannot run anything: no Monty worker for a
// backend that needs one.
func New(opts Options) (*Server, error) {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.Settings.Backend == "" {
		opts.Settings.Backend = contract.BackendAuto
	}
	if opts.Parallel <= 0 {
		opts.Parallel = 2
	}
	if opts.MaxRunning <= 0 {
		opts.MaxRunning = DefaultMaxRunning
	}
	if opts.MaxQueued < 0 {
		opts.MaxQueued = 0
	} else if opts.MaxQueued == 0 {
		opts.MaxQueued = DefaultMaxQueued
	}
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if opts.MaxTimeout <= 0 {
		opts.MaxTimeout = DefaultMaxTimeout
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.IdleTimeout <= 0 {
		opts.IdleTimeout = DefaultIdleTimeout
	}
	if opts.Registry == nil {
		opts.Registry = prometheus.NewRegistry()
	}
	if opts.Settings.Backend != contract.BackendContainer && opts.Settings.MontyPath == "" {
		p, err := monty.Find("")
		if err != nil {
			return nil, err
		}
		opts.Settings.MontyPath = p
	}
	s := &Server{opts: opts, log: opts.Logger.Named("http"), hosts: webguard.NewNames(opts.AllowHosts), origins: webguard.NewNames(opts.AllowOrigins)}
	s.life, s.stop = context.WithCancel(context.Background())
	s.metrics = newMetrics(opts.Registry)
	s.gate = newGate(opts.MaxRunning, opts.MaxQueued, s.metrics)
	l, err := startLanes(s.life, opts, s.log)
	if err != nil {
		s.stop()
		return nil, err
	}
	s.lanes = l
	s.sessions = newSessions(s)
	s.routes()
	return s, nil
}

// limits are the limits of a run: the settings', with the memory a
// request asked for when it asked for less (MiB; 0 or less: none).
func (s *Server) limits(memoryMB int) kernel.Limits {
	l := kernel.LimitsOf(s.opts.Settings).WithDefaults()
	if memoryMB > 0 && uint64(memoryMB)<<20 < l.MemoryBytes {
		l.MemoryBytes = uint64(memoryMB) << 20
	}
	return l
}

func (s *Server) routes() {
	s.mux = http.NewServeMux()
	handlers := map[string]http.HandlerFunc{
		"RunCode": s.runCode, "RunJupyter": s.runJupyter,
		"CreateSession": s.createSession, "RunInSession": s.runInSession,
		"ResetSession": s.resetSession, "CloseSession": s.closeSession,
	}
	for _, e := range contract.HTTPEndpoints {
		h := handlers[e.Name]
		if h == nil {
			panic("httpapi: no handler for " + e.Name)
		}
		s.mux.Handle(e.Method+" "+e.Path, s.observe(e.Path, h))
	}
	s.mux.HandleFunc("GET /healthz", s.healthz)
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(s.opts.Registry, promhttp.HandlerOpts{}))
	s.mux.Handle("/", s.observe("", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no endpoint %s %s (see docs/http.md)", r.Method, r.URL.Path))
	}))
}

// Handler serves the API: the guards (token, Host and Origin, body size)
// in front of the endpoints.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" {
			s.mux.ServeHTTP(w, r)
			return
		}
		// Refused before routing: counted under no endpoint (a client
		// chooses the path).
		if code, why := s.refuse(r); code != 0 {
			s.metrics.request("", code)
			writeError(w, code, why)
			return
		}
		if r.ContentLength > s.opts.MaxBodyBytes {
			s.metrics.request("", http.StatusRequestEntityTooLarge)
			writeError(w, http.StatusRequestEntityTooLarge, tooLarge(s.opts.MaxBodyBytes))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
		s.mux.ServeHTTP(w, r)
	})
}

func tooLarge(limit int64) string {
	return fmt.Sprintf("the request body is larger than this server takes (%d bytes, --max-body-bytes)", limit)
}

// refuse is why a request may not be served (an HTTP status and a
// message), 0 when it may.
func (s *Server) refuse(r *http.Request) (int, string) {
	if s.opts.Loopback && !s.hosts.Host(r.Host) {
		return http.StatusForbidden, fmt.Sprintf("Host %q is not served: the server listens on loopback and serves localhost (and --allow-host)", r.Host)
	}
	if o := r.Header.Get("Origin"); o != "" && !s.origins.Origin(o) {
		return http.StatusForbidden, fmt.Sprintf("Origin %q may not use this server (--allow-origin lists the pages that may)", o)
	}
	if s.opts.Token != "" && !s.authorized(r) {
		return http.StatusUnauthorized, "this server needs its token: Authorization: Bearer <token>, or in the URL, http://backyard:<token>@host:port"
	}
	return 0, ""
}

// authorized reports whether r carries the token: as a bearer token, or
// as the password of HTTP basic authentication, which is what clients
// that take only a URL (the sandbox-fusion client, verl) send for
// http://user:TOKEN@host/ (or as the user with no password: curl -u TOKEN:).
func (s *Server) authorized(r *http.Request) bool {
	same := func(got string) bool { return subtle.ConstantTimeCompare([]byte(got), []byte(s.opts.Token)) == 1 }
	if got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		return same(strings.TrimSpace(got))
	}
	if user, pass, ok := r.BasicAuth(); ok {
		return pass == "" && same(user) || pass != "" && same(pass)
	}
	return false
}

func (s *Server) healthz(w http.ResponseWriter, _ *http.Request) {
	if s.draining.Load() {
		writeError(w, http.StatusServiceUnavailable, "shutting down")
		return
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = w.Write([]byte("ok\n"))
}

// observe counts a request's answer by endpoint and status code.
func (s *Server) observe(endpoint string, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		cw := &codeWriter{ResponseWriter: w, code: http.StatusOK}
		h(cw, r)
		s.metrics.request(endpoint, cw.code)
	})
}

type codeWriter struct {
	http.ResponseWriter
	code int
}

func (c *codeWriter) WriteHeader(code int) {
	c.code = code
	c.ResponseWriter.WriteHeader(code)
}

// begin admits a run: it waits for a slot (false and the answer written
// when the server is shutting down, the queue is full or the client went
// away). end releases it.
func (s *Server) begin(w http.ResponseWriter, r *http.Request) bool {
	if s.draining.Load() {
		writeError(w, http.StatusServiceUnavailable, "the server is shutting down: send the request elsewhere")
		return false
	}
	s.runs.Add(1)
	if err := s.gate.enter(r.Context()); err != nil {
		s.runs.Done()
		if errors.Is(err, errBusy) {
			w.Header().Set("Retry-After", "1")
			writeError(w, http.StatusTooManyRequests, fmt.Sprintf("busy: %d runs in progress and %d waiting, the most this server takes (--max-running, --max-queued); retry after a second", s.opts.MaxRunning, s.opts.MaxQueued))
		}
		return false // a client that went away gets nothing
	}
	return true
}

// end releases a run that begin admitted.
func (s *Server) end() {
	s.gate.release()
	s.runs.Done()
}

// answer is what a run came to: the body of the answer (a
// *contract.HTTPError is a 500), the backend that ran it, and whether the
// server failed to carry it out.
type answer struct {
	body    any
	backend string
	failed  bool
}

// serveRun runs an admitted run (begin) in a context that ends when the
// client goes away or the server stops the runs still going, records its
// time and writes its answer (unless the client went away: its run was
// stopped, and nobody reads the answer).
func (s *Server) serveRun(w http.ResponseWriter, r *http.Request, endpoint string, start time.Time, run func(context.Context) answer) {
	ctx, cancel := s.runContext(r)
	defer cancel()
	a := run(ctx)
	s.metrics.answered(endpoint, a.backend, start, a.failed)
	if r.Context().Err() != nil {
		return
	}
	code := http.StatusOK
	if _, ok := a.body.(*contract.HTTPError); ok {
		code = http.StatusInternalServerError
	}
	writeJSON(w, code, a.body)
}

// Shutdown stops taking requests (healthz turns 503), lets the runs in
// progress finish until ctx ends, then stops those still going, closes
// every session and the batch lanes: no container is left. Serving
// (http.Server) must be shut down by the caller, ideally at the same
// time.
func (s *Server) Shutdown(ctx context.Context) {
	s.draining.Store(true)
	done := make(chan struct{})
	go func() {
		s.runs.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		s.log.Warn("stopping the runs still in progress at the shutdown deadline")
	}
	s.stop() // runs still going come back interrupted
	<-done
	s.sessions.closeAll()
	s.lanes.wait()
}

// writeJSON writes v as the answer.
func writeJSON(w http.ResponseWriter, code int, v any) {
	b := answers.Get().(*bytes.Buffer)
	defer func() {
		if b.Cap() <= keptBody {
			b.Reset()
			answers.Put(b)
		}
	}()
	if err := json.MarshalWrite(b, v); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header()["Content-Type"] = jsonType
	w.WriteHeader(code)
	_, _ = w.Write(b.Bytes())
}

// answers are the buffers answers are written into, kept between
// requests.
var answers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// jsonType is the Content-Type of the answers (shared: net/http only
// reads it).
var jsonType = []string{"application/json"}

// writeError answers with contract.HTTPError.
func writeError(w http.ResponseWriter, code int, detail string) {
	writeJSON(w, code, &contract.HTTPError{Detail: detail})
}
