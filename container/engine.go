package container

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/docker/docker/client"
	"go.uber.org/zap"
)

// UnreachableError says that the container engine did not answer.
type UnreachableError struct {
	Host string // the engine address that was tried
	Err  error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach the container engine at %s: %v; start dockerd or set DOCKER_HOST", e.Host, e.Err)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// EngineInfo describes an engine.
type EngineInfo struct {
	Host           string   // address, e.g. unix:///var/run/docker.sock
	Name           string   // "Docker Engine", "Podman Engine", …
	Version        string   // engine version, e.g. 20.10.24+dfsg1
	APIVersion     string   // the engine's API version, e.g. 1.41
	ClientAPI      string   // the API version negotiated by this client
	OS             string   // engine OS/arch
	Runtimes       []string // runtime names, sorted
	DefaultRuntime string
}

// String is e.g. "Docker Engine 20.10.24+dfsg1 (API 1.41)".
func (i EngineInfo) String() string {
	return fmt.Sprintf("%s %s (API %s)", i.Name, i.Version, i.APIVersion)
}

// Engine is a connection to a Docker-compatible engine (Docker, Podman's
// Docker-compatible socket, a remote engine). It is safe for concurrent
// use; open it with Connect or Shared.
type Engine struct {
	cli  *client.Client
	host string
	log  *zap.Logger

	mu     sync.Mutex
	info   *EngineInfo
	images map[string]string // image reference → ID, known to be present
	// pullFailed are the references whose last pull failed (PullRetry).
	pullFailed map[string]failedPull
}

// Connect opens the engine at host (empty: DOCKER_HOST, else the platform's
// default socket) and checks that it answers within ctx. An engine that does
// not answer is an *UnreachableError.
func Connect(ctx context.Context, host string, log *zap.Logger) (*Engine, error) {
	if log == nil {
		log = zap.NewNop()
	}
	opts := []client.Opt{client.FromEnv, client.WithAPIVersionNegotiation()}
	if host != "" {
		opts = append(opts, client.WithHost(host))
	}
	cli, err := client.NewClientWithOpts(opts...)
	if err != nil {
		return nil, fmt.Errorf("container engine address: %w", err)
	}
	e := &Engine{cli: cli, host: cli.DaemonHost(), log: log, images: map[string]string{}, pullFailed: map[string]failedPull{}}
	pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ping, err := cli.Ping(pctx)
	if err != nil {
		cli.Close()
		return nil, &UnreachableError{Host: e.host, Err: err}
	}
	// Negotiated here, before the client is shared: the library's lazy
	// negotiation on the first requests writes the version that concurrent
	// requests read.
	cli.NegotiateAPIVersionPing(ping)
	return e, nil
}

var shared struct {
	sync.Mutex
	engines map[string]*Engine
	// forgotten engines may still serve the kernels that hold them;
	// CloseShared closes them too.
	forgotten []*Engine
}

// Shared returns a process-wide Engine for host (see Connect), connecting
// on first use; kernels share it so they share its cached facts. An engine
// that later fails to answer is dropped by Forget.
func Shared(ctx context.Context, host string, log *zap.Logger) (*Engine, error) {
	shared.Lock()
	defer shared.Unlock()
	if e := shared.engines[host]; e != nil {
		return e, nil
	}
	e, err := Connect(ctx, host, log)
	if err != nil {
		return nil, err
	}
	if shared.engines == nil {
		shared.engines = map[string]*Engine{}
	}
	shared.engines[host] = e
	return e, nil
}

// CloseShared closes the clients of the shared engines (their idle
// keep-alive connections, which otherwise live as long as the process) and
// forgets them; a later Shared connects again. For the end of a program or
// of a test binary.
func CloseShared() {
	shared.Lock()
	engines, forgotten := shared.engines, shared.forgotten
	shared.engines, shared.forgotten = nil, nil
	shared.Unlock()
	for _, e := range engines {
		_ = e.Close()
	}
	for _, e := range forgotten {
		_ = e.Close()
	}
}

// forget drops e from the shared engines so that the next Shared call
// reconnects (the engine went away).
func (e *Engine) forget() {
	shared.Lock()
	defer shared.Unlock()
	for h, x := range shared.engines {
		if x == e {
			delete(shared.engines, h)
			shared.forgotten = append(shared.forgotten, e)
		}
	}
	e.mu.Lock()
	e.info = nil
	clear(e.images)
	e.mu.Unlock()
}

// Host is the engine's address.
func (e *Engine) Host() string { return e.host }

// Close releases the client's connections.
func (e *Engine) Close() error { return e.cli.Close() }

// Info describes the engine; the answer is cached.
func (e *Engine) Info(ctx context.Context) (EngineInfo, error) {
	e.mu.Lock()
	if e.info != nil {
		defer e.mu.Unlock()
		return *e.info, nil
	}
	e.mu.Unlock()
	v, err := e.cli.ServerVersion(ctx)
	if err != nil {
		return EngineInfo{}, e.wrap(err)
	}
	sys, err := e.cli.Info(ctx)
	if err != nil {
		return EngineInfo{}, e.wrap(err)
	}
	info := EngineInfo{
		Host: e.host, Name: v.Platform.Name, Version: v.Version, APIVersion: v.APIVersion,
		ClientAPI: e.cli.ClientVersion(), OS: v.Os + "/" + v.Arch, DefaultRuntime: sys.DefaultRuntime,
	}
	for _, c := range v.Components {
		if c.Name == "Podman Engine" { // Podman names its platform after the OS
			info.Name, info.Version = c.Name, c.Version
		}
	}
	if info.Name == "" || strings.Contains(info.Name, "/") {
		info.Name = "Docker Engine"
	}
	for name := range sys.Runtimes {
		info.Runtimes = append(info.Runtimes, name)
	}
	sort.Strings(info.Runtimes)
	e.mu.Lock()
	e.info = &info
	e.mu.Unlock()
	return info, nil
}

// wrap turns a failure to talk to the engine into an *UnreachableError
// (and forgets the engine); other errors pass through.
func (e *Engine) wrap(err error) error {
	if err == nil || !connectionLost(err) {
		return err
	}
	e.forget()
	var u *UnreachableError
	if errors.As(err, &u) {
		return err
	}
	return &UnreachableError{Host: e.host, Err: err}
}

// connectionLost reports whether err means the engine could not be talked
// to at all (as opposed to an answer that says no).
func connectionLost(err error) bool {
	var op *net.OpError
	return client.IsErrConnectionFailed(err) || errors.As(err, &op) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.ENOENT) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)
}
