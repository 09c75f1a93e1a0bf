package containerkernel

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/files"
	"github.com/backyard-ls/backyard-ls/internal/jsonval"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/internal/kcore"
	"github.com/backyard-ls/backyard-ls/pysrc/ipysyntax"
	"go.uber.org/zap"
)

// Options configure a container kernel.
type Options struct {
	// Container are the container settings (image, runtime, network,
	// workspace mount), passed to the engine as they are.
	Container contract.ContainerSettings
	// Install says how missing packages are installed.
	Install contract.InstallSettings
	// Workspace is the host folder the container sees when
	// Container.MountWorkspace is set and Files is nil.
	Workspace string
	// Files say what of the host the container sees (at the same paths,
	// when Container.MountWorkspace is set); nil: Workspace, nothing hidden.
	Files *files.Rules
	// Write is where the cells' writes go (files.write).
	Write contract.FilesWrite
	// Dir is the working directory; empty: the first root.
	Dir string
	// File is __file__ of the cells (kernel.Config.File).
	File string
	// OnIdleOutput gets what the container's threads print between cells
	// (kernel.Config.OnIdleOutput); nil: the next cell gets it.
	OnIdleOutput func(stream kernel.Stream, text string)
	// CopyBytes bounds the workspace copied into the container's overlay
	// (default a quarter of the memory limit); a larger one is read-only.
	CopyBytes int64
	// Pull is "missing" (default: pull a missing image) or "never".
	Pull string
	// DockerHost overrides DOCKER_HOST.
	DockerHost string
	// Limits: Timeout, MemoryBytes, RecursionDepth and MaxOutputBytes apply.
	Limits kernel.Limits
	// Env is added to the container's environment.
	Env map[string]string
	// InterruptGrace is how long a cell may keep running after its time
	// limit before the kernel is restarted (default 3 s). An interrupt
	// never restarts the kernel.
	InterruptGrace time.Duration
	// OnState, when set, is told of every state change.
	OnState func(kernel.State)
	// OnProgress follows an image pull or an install (percent -1 when
	// unknown).
	OnProgress func(title, message string, percent int, done bool)
	// OnWarning gets warnings for the user, each once per process.
	OnWarning func(string)
	// Confirm asks whether to install packages (install policy "ask"); nil
	// means no.
	Confirm func(ctx context.Context, packages []string) bool
	Logger  *zap.Logger
}

// Kernel is a kernel.Kernel that runs cells in full CPython inside a
// long-lived, hardened container (gVisor's runsc when the engine has it),
// started on the first execution or by Start.
//
// Interrupt sends one SIGINT per request, as Jupyter does: the cell gets a
// KeyboardInterrupt and the namespace keeps what the cell did until then.
// A cell that catches it runs on; only Restart, Close or the time limit
// (after its grace period) kill the container. The processes a stopped cell
// started are ended with it (see the driver).
type Kernel struct {
	kcore.Base
	opts   Options
	limits kernel.Limits
	log    *zap.Logger

	s *container.Session // owned by the goroutine holding q

	triedMu sync.Mutex      // a %pip install's host call may outlive its cell
	tried   map[string]bool // packages whose install was attempted

	// Guarded by mu.
	watched  *container.Session // the session whose death between cells is watched
	runtime  string
	id       string // container ID
	notes    []string
	versions map[string]string
}

// New returns a container kernel. It does not contact the engine:
// the first Execute (or Start) does, and fails with a clear error when the
// engine is unreachable or the image missing.
func New(opts Options) (*Kernel, error) {
	switch opts.Container.Runtime {
	case contract.RuntimeAuto, contract.RuntimeRunc, contract.RuntimeRunsc:
	default:
		return nil, fmt.Errorf("unknown container runtime %q (want runc, runsc or empty)", opts.Container.Runtime)
	}
	if opts.InterruptGrace <= 0 {
		opts.InterruptGrace = 3 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	return &Kernel{
		Base: kcore.NewBase(opts.OnState), opts: opts, limits: opts.Limits.WithDefaults(), log: opts.Logger.Named("container"),
		runtime: string(opts.Container.Runtime), tried: map[string]bool{},
	}, nil
}

func (k *Kernel) config() container.Config {
	o := k.opts
	rules := o.Files
	if rules != nil && !o.Container.MountWorkspace {
		rules = files.NewRules(nil, nil)
	}
	return container.Config{
		ContainerSettings: o.Container, Workspace: o.Workspace, Rules: rules, Write: o.Write, Dir: o.Dir, CopyBytes: o.CopyBytes,
		DockerHost: o.DockerHost, Pull: container.PullPolicy(o.Pull),
		MemoryBytes: int64(k.limits.MemoryBytes), RecursionLimit: k.limits.RecursionDepth,
		OnProgress: o.OnProgress, Logger: k.log, Packages: true, Env: o.Env,
	}
}

// Start starts the kernel's container now, if it is not running, so that the
// first cell does not wait for it.
func (k *Kernel) Start(ctx context.Context) error {
	ctx, cancel := k.Bound(ctx)
	defer cancel()
	if err := k.Acquire(ctx); err != nil {
		return err
	}
	defer k.Q.Release()
	_, err := k.session(ctx)
	if err == nil {
		k.SetState(kernel.StateIdle)
	}
	return err
}

// session returns the running container, starting one when needed.
func (k *Kernel) session(ctx context.Context) (*container.Session, error) {
	if k.s != nil && k.s.Alive() {
		return k.s, nil
	}
	k.discard()
	k.SetState(kernel.StateStarting)
	cfg := k.config()
	e, err := container.Shared(ctx, cfg.DockerHost, k.log)
	if err == nil {
		if k.s = k.fromPool(cfg); k.s == nil {
			k.s, err = e.Start(ctx, cfg)
		}
	}
	if err != nil {
		k.SetState(kernel.StateDead)
		return nil, fmt.Errorf("start container kernel: %w", err)
	}
	info, _ := e.Info(ctx)
	rt := k.s.Runtime()
	if rt.Warning != "" {
		k.log.Warn("container kernel runs without gVisor", zap.String("runtime", rt.Name))
		warnOnce(rt.Warning, k.opts.OnWarning)
	}
	if f := k.opts.OnIdleOutput; f != nil {
		k.s.SetIdleOutput(func(stream, text string) { f(kernel.Stream(stream), text) })
	}
	k.Mu.Lock()
	k.runtime, k.id, k.watched = rt.Name, k.s.ID(), k.s
	go k.watchIdle(k.s)
	for _, n := range []string{rt.Warning, k.s.FilesNote()} {
		if n != "" && !slices.Contains(k.notes, n) {
			k.notes = append(k.notes, n)
		}
	}
	k.versions = map[string]string{
		"image":  fmt.Sprintf("%s (%s)", cfg.WithDefaults().Image, shortImageID(k.s.ImageID())),
		"engine": info.String(),
		"python": k.s.Python(),
	}
	k.Mu.Unlock()
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

// watchIdle waits for s to end: a death between cells (the container
// killed from outside) turns the kernel dead at once; the next run says so.
func (k *Kernel) watchIdle(s *container.Session) {
	select {
	case <-s.Ended():
	case <-k.Life().Done():
		return
	}
	if k.DeadIfIdle(func() bool { return k.watched == s }) {
		k.log.Warn("kernel container died between cells", zap.String("why", s.Exit(k.Life()).Describe()))
	}
}

// diedIdle reports a session that ended between cells, not by the kernel's
// own hand: its namespace is gone.
func (k *Kernel) diedIdle(ctx context.Context) (string, bool) {
	if k.s == nil || k.s.Alive() || k.s.Killed() {
		return "", false
	}
	return k.s.Exit(ctx).Describe(), true
}

// discard removes the container and forgets the namespace.
func (k *Kernel) discard() {
	if k.s == nil {
		return
	}
	k.Mu.Lock()
	k.watched = nil
	k.Mu.Unlock()
	if err := k.s.Close(); err != nil {
		k.log.Warn("remove kernel container", zap.Error(err))
	}
	k.s = nil
	k.ResetCount()
	k.Mu.Lock()
	k.id = ""
	k.Mu.Unlock()
}

// ContainerID is the ID of the kernel's running container, "" when none
// runs.
func (k *Kernel) ContainerID() string {
	k.Mu.Lock()
	defer k.Mu.Unlock()
	return k.id
}

// Execute implements Kernel.
func (k *Kernel) Execute(ctx context.Context, req kernel.Request) (kernel.Result, error) {
	if err := k.limits.CheckOverride(req.Limits); err != nil {
		return kernel.Result{}, err
	}
	for name, v := range req.Inputs {
		if _, err := jsonval.Normalize(v); err != nil {
			return kernel.Result{}, fmt.Errorf("input %s %w", name, err)
		}
	}
	limits := k.limits.Override(req.Limits)
	ctx, cancel := k.Bound(ctx)
	defer cancel()
	if err := k.Acquire(ctx); err != nil {
		return kernel.Result{}, err
	}
	defer k.Q.Release()
	if why, died := k.diedIdle(ctx); died {
		rt := k.s.Runtime().Name
		k.discard()
		k.SetState(kernel.StateDead)
		return kcore.DiedIdle(contract.BackendContainer, rt, why), nil
	}
	s, err := k.session(ctx)
	if err != nil {
		return kernel.Result{}, err
	}
	ctx, count, hard, end := k.Begin(ctx, req.Silent || req.Count == kernel.Uncounted)
	defer end()
	if req.Count != 0 {
		count = req.Count
	}

	out := kcore.NewCellOutput(limits.MaxOutputBytes, req)
	if len(req.Requirements) > 0 && !req.Silent {
		if err := k.ensurePackages(ctx, req.Requirements, out, "the script block's dependencies"); err != nil {
			out.Write(kernel.Stderr, "[backyard: "+err.Error()+"]\n")
		}
	}
	source := cmp.Or(req.Source, req.Code) // the cell as written, for %history
	req.Code = ipysyntax.Transform(req.Code).Code
	c := k.newCell(req, source, count, limits, out, hard)
	c.run(ctx, s)
	if dist, ok := k.installable(&c.result); ok && !req.Silent && !c.ended {
		// Install the missing package and run the cell again.
		if note := k.installMissing(ctx, dist, out); note != "" {
			c.result.Notes = append(c.result.Notes, note)
		} else {
			s.Exec(k.Life(), container.ExecRequest{Code: invalidateCaches, Silent: true}, func(string, string) {})
			c = k.newCell(req, source, count, limits, out, hard)
			c.run(ctx, s)
		}
	}
	r := c.result
	r.Backend, r.Runtime = contract.BackendContainer, s.Runtime().Name
	if note := s.FilesNote(); note != "" && r.Error != nil && (r.Error.EName == "PermissionError" || r.Error.EName == "OSError") {
		// A write the read-only workspace refused: say why with the error,
		// not only in kernelInfo.
		r.Notes = append(r.Notes, note)
	}
	if !req.Silent && count > 0 {
		r.ExecutionCount = count
	}
	k.Track(nil)
	if c.ended {
		// Crashed, or killed after its time limit: the next run starts a
		// fresh kernel.
		k.discard()
	}
	if k.s != nil {
		k.SetState(kernel.StateIdle)
	} else {
		k.SetState(kernel.StateDead)
	}
	return r, nil
}

// newCell is the cell about to run, known to Interrupt (its repeats).
func (k *Kernel) newCell(req kernel.Request, source string, count int, limits kernel.Limits, out *kcore.Output, hard <-chan struct{}) *containerCell {
	c := &containerCell{earlier: historyOf(req.Earlier), held: make(chan struct{}, 1), code: req.Code, source: source, file: k.opts.File, silent: req.Silent, limits: limits, spent: req.Spent, grace: k.opts.InterruptGrace, out: out, log: k.log,
		life: k.Life(), hard: hard, onInput: req.OnInput, rep: kcore.NewRepeats(), inputs: req.Inputs, funcs: req.Functions}
	if !req.Silent || req.Count > 0 { // a replay of a cell the document ran elsewhere is filed too
		c.count = max(count, 0)
	}
	c.pip = func(context.Context, string) string { return "" } // a replay installs nothing
	if !req.Silent {
		c.lastError = req.LastError
		c.onSent, c.onDisplay = req.OnSent, req.OnDisplay
		c.pip = func(ctx context.Context, line string) string {
			defer c.hold()()
			return k.pipInstall(ctx, line, limits.MaxOutputBytes)
		}
	}
	k.Track(c.rep)
	return c
}

// Restart implements Kernel: the container is removed (a running cell is
// stopped at once) and the next execution starts an empty one.
func (k *Kernel) Restart(ctx context.Context) error { return k.RestartWith(ctx, k.discard) }

// Variables implements Kernel: the names in the namespace, modules and
// dunder names left out.
func (k *Kernel) Variables(ctx context.Context) ([]kernel.Variable, error) {
	if err := k.Acquire(ctx); err != nil {
		return nil, err
	}
	defer k.Q.Release()
	if k.s == nil || !k.s.Alive() {
		return nil, nil
	}
	vs, err := k.s.Variables(ctx, kernel.MaxVariableRepr)
	if err != nil {
		return nil, fmt.Errorf("list variables: %w", err)
	}
	out := make([]kernel.Variable, 0, len(vs))
	for _, v := range vs {
		out = append(out, kernel.Variable{Name: v.Name, Type: v.Type, Repr: kcore.CutRepr(v.Repr)})
	}
	kcore.SortVariables(out)
	return out, nil
}

// Info implements Kernel. Versions has "image", "engine" and "python" once
// the container has started.
func (k *Kernel) Info() kernel.Info {
	k.Mu.Lock()
	defer k.Mu.Unlock()
	versions := make(map[string]string, len(k.versions))
	for n, v := range k.versions {
		versions[n] = v
	}
	write := k.opts.Write
	if write == "" {
		write = contract.FilesSandbox
	}
	return kernel.Info{
		Backend: contract.BackendContainer, Runtime: k.runtime, State: k.StateLocked(), ExecutionCount: k.CountLocked(),
		Versions: versions, Notes: append([]string(nil), k.notes...), Write: write,
	}
}

var _ kernel.FileKeeper = (*Kernel)(nil)

// Files implements kernel.FileKeeper: what the container's cells wrote
// that differs from the workspace.
func (k *Kernel) Files(ctx context.Context) ([]contract.FileEntry, error) {
	if err := k.Acquire(ctx); err != nil {
		return nil, err
	}
	defer k.Q.Release()
	if k.s == nil || !k.s.Alive() {
		return nil, nil
	}
	return k.s.Overlay(ctx)
}

// SaveFiles implements kernel.FileKeeper.
func (k *Kernel) SaveFiles(ctx context.Context, paths []string) ([]string, error) {
	if err := k.Acquire(ctx); err != nil {
		return nil, err
	}
	defer k.Q.Release()
	if k.s == nil || !k.s.Alive() {
		if len(paths) == 0 {
			return nil, nil
		}
		return nil, fmt.Errorf("the kernel's container is not running: it has no files to save")
	}
	return k.s.SaveFiles(ctx, paths)
}

// Close implements Kernel: the container is removed. The error says when
// the engine could not remove it (it is then left for
// container.ReapOrphans).
func (k *Kernel) Close() error {
	if !k.MarkClosed() {
		return nil
	}
	k.Q <- struct{}{} // wait for the running execution
	var err error
	if k.s != nil {
		err = k.s.Close()
		k.s = nil
	}
	k.Q.Release()
	k.NotifyDead()
	if err != nil && !errors.Is(err, kernel.ErrClosed) {
		return err
	}
	return nil
}

// OptionsOf are the options of a container kernel configured by cfg.
func OptionsOf(cfg kernel.Config) Options {
	dir := cfg.WorkDir()
	return Options{
		Container: cfg.Settings.Container, Install: cfg.Settings.Install, Workspace: cfg.Workspace, DockerHost: cfg.DockerHost,
		Files: files.NewRules(cfg.FileRoots(), cfg.Settings.Files.Hide), Write: cfg.Settings.Files.Write, Dir: dir, File: cfg.File, OnIdleOutput: cfg.OnIdleOutput,
		Limits: kernel.LimitsOf(cfg.Settings), Env: cfg.Env, OnState: cfg.OnState, OnProgress: cfg.OnProgress, OnWarning: cfg.OnWarning,
		Confirm: cfg.Confirm, Logger: cfg.Logger,
	}
}

// historyOf is the driver's form of earlier cells for IPython's history.
func historyOf(es []kernel.HistoryEntry) []container.HistoryEntry {
	var out []container.HistoryEntry
	for _, e := range es {
		out = append(out, container.HistoryEntry{Count: e.Count, Code: e.Code, Source: e.Source, Value: e.Value})
	}
	return out
}
