package kernel

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/backyard-ls/backyard-ls/container"
	"go.uber.org/zap"
)

// ContainerOptions configure a container kernel.
type ContainerOptions struct {
	Container ContainerConfig
	// Limits: Timeout, MemoryBytes, RecursionDepth and MaxOutputBytes apply.
	Limits Limits
	// InterruptGrace is how long a cell may keep running after an interrupt
	// or its time limit before the kernel is restarted (default 3 s).
	InterruptGrace time.Duration
	// OnState, when set, is told of every state change.
	OnState func(State)
	Logger  *zap.Logger
}

// Container is a Kernel that runs cells in full CPython inside a
// long-lived, hardened container (gVisor's runsc when the engine has it),
// started on the first execution or by Start.
//
// Interrupt sends SIGINT: the cell gets a KeyboardInterrupt and the
// namespace keeps what the cell did until then, as in Jupyter. A cell that
// does not stop within the grace period is killed with its container, and
// the result says that the kernel was restarted.
type Container struct {
	base
	opts   ContainerOptions
	limits Limits
	log    *zap.Logger

	s     *container.Session // owned by the goroutine holding q
	tried map[string]bool    // packages whose install was attempted

	// Guarded by mu.
	runtime  string
	id       string // container ID
	notes    []string
	versions map[string]string
}

// interruptRepeat is how often SIGINT is sent again while a cell has not
// stopped: the first one can land just before the cell starts, or be
// swallowed by the cell's own `except KeyboardInterrupt`.
const interruptRepeat = 500 * time.Millisecond

// NewContainer returns a container kernel. It does not contact the engine:
// the first Execute (or Start) does, and fails with a clear error when the
// engine is unreachable or the image missing.
func NewContainer(opts ContainerOptions) (*Container, error) {
	switch opts.Container.Runtime {
	case "", container.RuntimeRunc, container.RuntimeRunsc:
	default:
		return nil, fmt.Errorf("unknown container runtime %q (want runc, runsc or empty)", opts.Container.Runtime)
	}
	if opts.InterruptGrace <= 0 {
		opts.InterruptGrace = 3 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	return &Container{
		base: newBase(opts.OnState), opts: opts, limits: opts.Limits.WithDefaults(), log: opts.Logger.Named("container"),
		runtime: opts.Container.Runtime, tried: map[string]bool{},
	}, nil
}

func (k *Container) config() container.Config {
	c := k.opts.Container
	return container.Config{
		DockerHost: c.DockerHost, Image: c.Image, Pull: container.PullPolicy(c.Pull), Runtime: c.Runtime,
		Network: c.Network, Workspace: c.Workspace, WorkspaceMount: c.WorkspaceMount,
		MemoryBytes: int64(k.limits.MemoryBytes), CPUs: c.CPUs, PidsLimit: c.PidsLimit,
		RecursionLimit: k.limits.RecursionDepth, OnProgress: c.OnProgress, Logger: k.log,
		Packages: true,
	}
}

// Start starts the kernel's container now, if it is not running, so that the
// first cell does not wait for it.
func (k *Container) Start(ctx context.Context) error {
	if err := k.acquire(ctx); err != nil {
		return err
	}
	defer k.q.release()
	_, err := k.session(ctx)
	if err == nil {
		k.setState(StateIdle)
	}
	return err
}

// session returns the running container, starting one when needed.
func (k *Container) session(ctx context.Context) (*container.Session, error) {
	if k.s != nil && k.s.Alive() {
		return k.s, nil
	}
	if k.s != nil {
		// It died between cells (killed from outside): its namespace is gone.
		k.log.Warn("kernel container stopped between cells", zap.String("why", k.s.Exit(ctx).Describe()))
		k.discard()
	}
	k.setState(StateStarting)
	cfg := k.config()
	e, err := container.Shared(ctx, cfg.DockerHost, k.log)
	if err == nil {
		k.s, err = e.Start(ctx, cfg)
	}
	if err != nil {
		k.setState(StateDead)
		return nil, fmt.Errorf("start container kernel: %w", err)
	}
	info, _ := e.Info(ctx)
	rt := k.s.Runtime()
	if rt.Warning != "" {
		k.log.Warn("container kernel runs without gVisor", zap.String("runtime", rt.Name))
		warnOnce(rt.Warning, k.opts.Container.OnWarning)
	}
	k.mu.Lock()
	k.runtime, k.id = rt.Name, k.s.ID()
	if rt.Warning != "" && !slices.Contains(k.notes, rt.Warning) {
		k.notes = append(k.notes, rt.Warning)
	}
	k.versions = map[string]string{
		"image":  fmt.Sprintf("%s (%s)", cfg.WithDefaults().Image, shortImageID(k.s.ImageID())),
		"engine": info.String(),
		"python": k.s.Python(),
	}
	k.mu.Unlock()
	return k.s, nil
}

var warned sync.Map // warnings already given to the user by this process

// warnOnce gives a warning to the user once per process: every document's
// kernel would otherwise repeat it.
func warnOnce(w string, to func(string)) {
	if to == nil {
		return
	}
	if _, dup := warned.LoadOrStore(w, true); !dup {
		to(w)
	}
}

func shortImageID(id string) string {
	if len(id) > 19 {
		return id[:19] // "sha256:" + 12 hex digits
	}
	return id
}

// discard removes the container and forgets the namespace.
func (k *Container) discard() {
	if k.s == nil {
		return
	}
	if err := k.s.Close(); err != nil {
		k.log.Warn("remove kernel container", zap.Error(err))
	}
	k.s = nil
	k.mu.Lock()
	k.count, k.id = 0, ""
	k.mu.Unlock()
}

// ContainerID is the ID of the kernel's running container, "" when none
// runs.
func (k *Container) ContainerID() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.id
}

// Execute implements Kernel.
func (k *Container) Execute(ctx context.Context, req Request) (Result, error) {
	if err := k.acquire(ctx); err != nil {
		return Result{}, err
	}
	defer k.q.release()
	s, err := k.session(ctx)
	if err != nil {
		return Result{}, err
	}
	ctx, count, end := k.begin(ctx, req.Silent)
	defer end()

	out := newOutput(k.limits.MaxOutputBytes, req)
	if len(req.Requirements) > 0 && !req.Silent {
		if err := k.ensurePackages(ctx, req.Requirements, out); err != nil {
			out.write(Stderr, "[backyard: "+err.Error()+"]\n")
		}
	}
	c := &containerCell{code: req.Code, silent: req.Silent, limits: k.limits, grace: k.opts.InterruptGrace, out: out, log: k.log}
	c.run(ctx, s)
	if dist, ok := k.installable(c.result); ok && !req.Silent && !c.ended {
		// Install the missing package and run the cell again.
		if note := k.installMissing(ctx, dist, out); note != "" {
			c.result.Error.EValue += "; " + note
		} else {
			s.Exec(context.Background(), container.ExecRequest{Code: "__import__('importlib').invalidate_caches()", Silent: true}, func(string, string) {})
			c = &containerCell{code: req.Code, limits: k.limits, grace: k.opts.InterruptGrace, out: out, log: k.log}
			c.run(ctx, s)
		}
	}
	r := c.result
	r.Backend, r.Runtime = BackendContainer, s.Runtime().Name
	if !req.Silent {
		r.ExecutionCount = count
	}
	if c.ended {
		// Crashed, killed after an interrupt, or sys.exit: the next run
		// starts a fresh kernel.
		k.discard()
	}
	if k.s != nil {
		k.setState(StateIdle)
	} else {
		k.setState(StateDead)
	}
	return r, nil
}

// Restart implements Kernel: the container is removed (a running cell is
// stopped at once) and the next execution starts an empty one.
func (k *Container) Restart(ctx context.Context) error { return k.restart(ctx, k.discard) }

// Variables implements Kernel: the names in the namespace, modules and
// dunder names left out.
func (k *Container) Variables(ctx context.Context) ([]Variable, error) {
	if err := k.acquire(ctx); err != nil {
		return nil, err
	}
	defer k.q.release()
	if k.s == nil || !k.s.Alive() {
		return nil, nil
	}
	vs, err := k.s.Variables(ctx, MaxVariableRepr)
	if err != nil {
		return nil, fmt.Errorf("list variables: %w", err)
	}
	out := make([]Variable, 0, len(vs))
	for _, v := range vs {
		repr := v.Repr
		if len(repr) > MaxVariableRepr {
			repr = truncateUTF8(repr, MaxVariableRepr) + "…"
		}
		out = append(out, Variable{Name: v.Name, Type: v.Type, Repr: repr})
	}
	sortVariables(out)
	return out, nil
}

// Info implements Kernel. Versions has "image", "engine" and "python" once
// the container has started.
func (k *Container) Info() Info {
	k.mu.Lock()
	defer k.mu.Unlock()
	state := k.state
	if k.closed {
		state = StateDead
	}
	versions := make(map[string]string, len(k.versions))
	for n, v := range k.versions {
		versions[n] = v
	}
	return Info{
		Backend: BackendContainer, Runtime: k.runtime, State: state, ExecutionCount: k.count,
		Versions: versions, Notes: append([]string(nil), k.notes...),
	}
}

// Close implements Kernel: the container is removed. The error says when
// the engine could not remove it (it is then left for
// container.ReapOrphans).
func (k *Container) Close() error {
	if !k.markClosed() {
		return nil
	}
	k.q <- struct{}{} // wait for the running execution
	var err error
	if k.s != nil {
		err = k.s.Close()
		k.s = nil
	}
	k.q.release()
	k.notifyDead()
	if err != nil && !errors.Is(err, ErrClosed) {
		return err
	}
	return nil
}
