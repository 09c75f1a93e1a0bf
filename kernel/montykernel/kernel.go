package montykernel

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/files"
	"github.com/backyard-ls/backyard-ls/internal/shortrepr"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/internal/kcore"
	"github.com/backyard-ls/backyard-ls/monty"
	"github.com/backyard-ls/backyard-ls/pysrc"
	"github.com/backyard-ls/backyard-ls/pysrc/ipysyntax"
)

// Options configure a Monty kernel.
type Options struct {
	// Binary is the worker executable; empty means monty.Find("").
	Binary string
	Limits kernel.Limits
	// Dir is the working directory (os.getcwd()); empty is "/".
	Dir string
	// Files are the files the cells see; nil: none (every file call is
	// refused).
	Files *files.FS
	// Env is added to the environment every kernel's cells see
	// (container.CellEnv).
	Env map[string]string
	// ScriptName is the document's file name when it lies in Dir: Monty's
	// __file__ is Dir joined with it (ScriptName).
	ScriptName string
	// Shims makes the kernel apply every shim (ProbedShims and AloneShims)
	// to its cells: a Monty kernel alone gives CPython's answers where a
	// shim can, as an auto kernel does with its own. An auto kernel's
	// Monty kernel leaves it off.
	Shims bool
	// History gives the cells IPython's history names: In, Out, _, __,
	// ___, _N, _i, _ii, _iii, _iN, _ih, _oh, _dh, each cell filed under
	// its Request.Count when set. Both the monty and the auto backend
	// keep them (an auto kernel files Monty's cells in its container's
	// history when the document moves).
	History bool
	// OnState, when set, is told of every state change.
	OnState func(kernel.State)
}

// Kernel is a kernel.Kernel backed by one Monty worker process, started on the
// first execution.
//
// Interrupt: Monty reads requests only between turns, so a running cell is
// stopped by killing the worker; a new worker then gets the namespace back
// as it was before that cell (see checkpoint). A cell waiting in time.sleep
// is interrupted in-band instead (KeyboardInterrupt; changes made before the
// sleep are kept, as in CPython).
type Kernel struct {
	kcore.Base
	opts   Options
	limits kernel.Limits

	// Owned by the goroutine holding q.
	w     *monty.Worker
	names map[string]bool // names seen in cells that ran, for Variables
	funcs funcNames       // the defs of the code run, for the functions shown
	hist  history         // with Options.History
	cp    checkpoint
	fed   string // the prelude the session has run (KernelPrelude + prelude), "" none

	envSet  map[string]string // guarded by mu: what %env set, for the sessions that follow
	version string            // guarded by mu
	watched *monty.Worker     // guarded by mu: the worker whose death between cells is watched
	prelude string            // guarded by mu

	// extensions are the IPython extensions %load_ext loaded (autoreload,
	// the one the host answers for), guarded by mu.
	extensions map[string]bool
}

// SetPrelude sets code that every session runs, silently, before its first
// cell: definitions that cells rewritten by the caller use (the auto
// kernel's shims). A running session runs it before its next cell. The
// prelude is part of the checkpoint, so an interrupt keeps it. With
// Options.History, IPython's history starts after it.
func (k *Kernel) SetPrelude(code string) {
	if k.opts.History {
		code += historyPrelude
	}
	k.Mu.Lock()
	k.prelude = code
	k.Mu.Unlock()
}

// runPrelude runs the prelude in a session that has not run it yet.
func (k *Kernel) runPrelude(ctx context.Context, w *monty.Worker) error {
	k.Mu.Lock()
	extra := k.prelude
	k.Mu.Unlock()
	// Every cell asks: k.fed is KernelPrelude and the extra it ran, so
	// only the extra is compared, and the code built when it is run.
	if len(k.fed) == len(KernelPrelude)+len(extra) && k.fed[len(KernelPrelude):] == extra {
		return nil
	}
	code := KernelPrelude + extra
	start := time.Now()
	k.funcs.add(code, true)
	o, err := w.Feed(ctx, code, monty.FeedOptions{})
	if err != nil {
		return fmt.Errorf("run the Monty prelude: %w", err)
	}
	if e := o.Exception; e != nil {
		return fmt.Errorf("run the Monty prelude: %s: %s", e.Type, e.Message)
	}
	k.fed = code
	if k.cp.record(&kcore.Replayable{Code: code}, time.Since(start), false) {
		return k.cp.take(w, k.opts.Files, k.startWorker)
	}
	return nil
}

// New returns a Monty kernel; the worker starts on first use. It fails
// only when no worker binary can be found.
func New(opts Options) (*Kernel, error) {
	if opts.Binary == "" {
		p, err := monty.Find("")
		if err != nil {
			return nil, err
		}
		opts.Binary = p
	}
	k := &Kernel{Base: kcore.NewBase(opts.OnState), opts: opts, limits: opts.Limits.WithDefaults(), names: map[string]bool{}}
	if opts.Shims {
		k.prelude = ShimPrelude(allShims)
	}
	if opts.History {
		k.prelude += historyPrelude
	}
	return k, nil
}

// allShims are the shims of a Monty kernel alone.
var allShims = slices.Concat(ProbedShims, AloneShims)

// budgetCeiling is the worker's own time budget per feed: the host stops a
// cell at its time limit (which an execution may override), so the budget
// is only a backstop. It cannot be the limit itself: a worker session
// keeps the limits it started with (a snapshot restored under looser ones
// keeps the stricter).
const budgetCeiling = 24 * time.Hour

func (k *Kernel) workerConfig() monty.Config {
	c := WorkerConfig(k.opts.Binary, k.limits)
	c.Limits.CellTime = budgetCeiling
	c.Cwd, c.FS, c.ScriptName = k.opts.Dir, k.opts.Files, k.opts.ScriptName
	c.BlockingReads = true // one cell at a time: see monty.Config
	k.Mu.Lock()
	env := k.opts.Env
	if len(k.envSet) > 0 {
		env = maps.Clone(env)
		if env == nil {
			env = map[string]string{}
		}
		maps.Copy(env, k.envSet)
	}
	k.Mu.Unlock()
	setCellEnv(&c, env)
	return c
}

// setCellEnv gives c's sessions the environment cells see (cellEnv with
// extra) and its time zone.
func setCellEnv(c *monty.Config, extra map[string]string) {
	c.Env = cellEnv(extra)
	c.TimeZone = TimeZone(c.Env["TZ"])
}

// TimeZone is the IANA name a TZ value gives Monty's sessions, "" when it
// names none the host knows (a POSIX rule such as "UTC+3": then Monty's
// local time is UTC).
func TimeZone(tz string) string {
	tz = strings.TrimPrefix(tz, ":")
	if tz == "" || tz == "Local" || strings.HasPrefix(tz, "/") {
		return ""
	}
	if _, err := time.LoadLocation(tz); err != nil {
		return ""
	}
	return tz
}

// ScriptName is the name Monty's __file__ ends with for cfg: the
// document's file name when the document lies in the kernel's working
// directory (Monty joins the two), else "".
func ScriptName(cfg kernel.Config) string {
	if cfg.File == "" || filepath.Dir(cfg.File) != filepath.Clean(cfg.WorkDir()) {
		return ""
	}
	return filepath.Base(cfg.File)
}

// cellEnv is os.environ: what a container kernel's cells see, with extra.
func cellEnv(extra map[string]string) map[string]string {
	env := map[string]string{}
	for _, kv := range container.CellEnv() {
		if k, v, ok := strings.Cut(kv, "="); ok {
			env[k] = v
		}
	}
	maps.Copy(env, extra)
	return env
}

// worker returns a live worker, starting one when needed.
func (k *Kernel) worker(ctx context.Context) (*monty.Worker, error) {
	if k.w != nil && k.w.Alive() {
		return k.w, nil
	}
	k.discard()
	k.SetState(kernel.StateStarting)
	cfg := k.workerConfig()
	w, err := monty.Start(ctx, cfg)
	if err != nil && cfg.TimeZone != "" && ctx.Err() == nil {
		// A zone the host knows and the worker's own database does not.
		cfg.TimeZone = ""
		w, err = monty.Start(ctx, cfg)
	}
	if err != nil {
		k.SetState(kernel.StateDead)
		return nil, fmt.Errorf("start Monty kernel: %w", err)
	}
	k.setWorker(w)
	k.fed = ""
	return w, nil
}

// setWorker makes w the kernel's worker and watches it: a death between
// cells (killed from outside) turns the kernel dead at once, and the next
// run says so.
func (k *Kernel) setWorker(w *monty.Worker) {
	k.w = w
	k.Mu.Lock()
	k.watched = w
	k.Mu.Unlock()
	go func() {
		select {
		case <-w.Exited():
		case <-k.Life().Done():
			return
		}
		k.DeadIfIdle(func() bool { return k.watched == w })
	}()
}

// diedIdle reports a worker that died between cells, not by the kernel's
// own hand (the kernel forgets a worker before it stops it).
func (k *Kernel) diedIdle() (string, bool) {
	if k.w == nil {
		return "", false
	}
	k.Mu.Lock()
	ours := k.watched == k.w
	k.Mu.Unlock()
	if e := k.w.ExitError(); e != nil && ours {
		return deathText(e, k.limits), true
	}
	return "", false
}

func (k *Kernel) discard() {
	k.Mu.Lock()
	k.watched = nil
	k.Mu.Unlock()
	if k.w != nil {
		k.w.Kill()
		<-k.w.Exited()
		k.w = nil
	}
}

// automagic is code as IPython runs it: a line naming a line magic as
// that magic, unless the name is bound.
func (k *Kernel) automagic(ctx context.Context, w *monty.Worker, code string) (string, error) {
	name, args, ok := ipysyntax.Automagic(code, k.HasLineMagic)
	if !ok {
		return code, nil
	}
	bound, err := k.bound(ctx, w, name)
	if err != nil || bound {
		return code, err
	}
	return ipysyntax.Escaped(name, args), nil
}

// magicError is the error of a cell with IPython syntax (u) run on Monty
// alone.
func magicError(u ipysyntax.Use) *contract.ExecutionError {
	return &contract.ExecutionError{EName: "UsageError", EValue: u.String() + " needs IPython's shell, which Monty does not have: the auto and container backends run it (backyard.backend)"}
}

// Execute implements Kernel.
func (k *Kernel) Execute(ctx context.Context, req kernel.Request) (kernel.Result, error) {
	limits, err := k.callLimits(req)
	if err != nil {
		return kernel.Result{}, err
	}
	ctx, cancel := k.Bound(ctx)
	defer cancel()
	if err := k.Acquire(ctx); err != nil {
		return kernel.Result{}, err
	}
	defer k.Q.Release()
	if why, died := k.diedIdle(); died {
		k.fresh()
		k.SetState(kernel.StateDead)
		return kcore.DiedIdle(contract.BackendMonty, "monty", why), nil
	}
	w, err := k.worker(ctx)
	if err != nil {
		return kernel.Result{}, err
	}
	if err := k.runPrelude(ctx, w); err != nil {
		k.fresh()
		return kernel.Result{}, err
	}
	uncounted := req.Silent || req.Count == kernel.Uncounted
	ctx, count, hard, end := k.Begin(ctx, uncounted)
	defer end()
	if req.Count > 0 {
		count = req.Count
	}
	src := req.Code // the cell as run: tracebacks show its lines
	if req.Code, err = k.automagic(ctx, w, req.Code); err != nil {
		return kernel.Result{}, err
	}
	t := ipysyntax.Transform(req.Code)
	if u, ok := t.Single(); ok && (u.MontyAnswers(k.HasLineMagic) || u.Name == "env" && strings.TrimSpace(u.Args) == "") {
		r := kernel.Result{Status: kernel.StatusOK, Backend: contract.BackendMonty, Runtime: "monty"}
		switch {
		case !k.HasLineMagic(u.Name):
			// As IPython shows it: the message, no traceback.
			r.Status, r.Error = kernel.StatusError, &contract.ExecutionError{EName: "UsageError", EValue: ipysyntax.UnknownMagic(u.Name), Traceback: []contract.Frame{}}
		case u.Name == "pwd":
			r.Value = &contract.Value{Text: ipysyntax.PyRepr(cmp.Or(k.opts.Dir, "/"))}
		case u.Name == "lsmagic":
			r.Value = &contract.Value{Text: ipysyntax.PyRepr(container.LsMagic(k.loadedExtensions()...))}
		case u.Name == "env":
			_, env, _ := k.env(w, "")
			r.Value = &contract.Value{Text: prettyDict(env.(map[string]any))}
		default: // who
			var names []string
			if len(k.names) > 0 {
				vs, err := k.listBound(ctx, true, false)
				if err != nil {
					return kernel.Result{}, err
				}
				for _, v := range vs {
					names = append(names, v.Name)
				}
			}
			r.Stdout = ipysyntax.Who(names)
		}
		if r.Stdout != "" && req.OnOutput != nil && !req.Silent {
			req.OnOutput(kernel.Stdout, r.Stdout)
		}
		if !uncounted {
			r.ExecutionCount = count
		}
		return r, nil
	}
	var host *magicHost
	if plain, ok := t.Plain(); ok {
		// Cleaned up as IPython does (a pasted session's prompts gone),
		// and only magics that ask nothing (%matplotlib inline).
		req.Code = plain
	} else if t.Magics() {
		hosted, bad, ok := t.Hosted(k.HasLineMagic, k.magicNames(t.Code))
		if !ok {
			// Monty alone cannot run other magics or shell escapes: an auto
			// kernel moves such a cell to a container, where IPython's
			// shell answers.
			r := kernel.Result{Status: kernel.StatusError, Backend: contract.BackendMonty, Runtime: "monty", Error: magicError(bad)}
			if !uncounted {
				r.ExecutionCount = count
			}
			return r, nil
		}
		host = &magicHost{k: k, w: w}
		req.Code, req.Functions = hosted, host.funcs(req.Functions)
	}

	out := kcore.NewCellOutput(limits.MaxOutputBytes, req)
	given := req.Inputs
	histCount := 0
	if k.opts.History && !uncounted {
		// Bound before the cell runs, and again when it is replayed.
		in, raw := t.Code, src
		if req.Source != "" && req.Source != src {
			// The document's cell, which the code run was rewritten from
			// (as it is, it is src, whose forms are at hand).
			raw = req.Source
			if in, err = k.automagic(ctx, w, raw); err != nil {
				return kernel.Result{}, err
			}
			in = ipysyntax.Transform(in).Code
		}
		req.Inputs = k.hist.inputs(given, count, in, raw, pysrc.Names(t.Code))
		histCount = count
	}
	funcs, rec := kcore.Recording(req)
	code := req.Code
	var names []string // the cell's names, for Variables
	if k.opts.Shims {
		a := pysrc.Analyze(req.Code)
		code, _ = ApplyShims(code, a.Regions, allShims)
		names = a.Names
	}
	k.funcs.add(code, false)
	wfuncs := workerFuncs(funcs)
	var displays displayed
	if !req.Silent {
		// Not recorded: a replay shows nothing.
		wfuncs = displays.bind(wfuncs, limits.MaxOutputBytes, &k.funcs)
		displays.ds.Position = func() (int, int) { return out.Len(kernel.Stdout), out.Len(kernel.Stderr) }
	}
	c := &montyCell{code: code, src: src, limits: limits, spent: req.Spent, out: out, inputs: req.Inputs, funcs: wfuncs,
		hard: hard, rep: kcore.NewRepeats(), prelude: true, history: histCount, names: &k.funcs}
	if !req.Silent {
		c.input, c.onSent = req.OnInput, req.OnSent
	}
	c.noStdin = c.input == nil
	if host != nil {
		c.ended = host.ended(out)
	}
	k.Track(c.rep)
	c.run(ctx, w)
	k.Track(nil)
	rec.Code = c.fed
	r := c.result
	if host != nil {
		usageResult(r.Error)
	}
	r.Displays = displays.list(len(r.Stdout), len(r.Stderr))
	r.Runtime = "monty"
	if !uncounted {
		r.ExecutionCount = count
	}

	switch {
	case c.crash != nil:
		// DESIGN: a crashed backend is reported and the next run starts a
		// fresh kernel.
		k.fresh()
		r.Error.EValue += "; the next run starts a fresh kernel"
	case c.restarted:
		// Restart or Close ended it: the namespace goes anyway.
		k.fresh()
	case c.sessionLost || c.tainted:
		if notes, err := k.recover(hard); err != nil {
			k.fresh()
			r.Error.EValue = strings.TrimSpace(r.Error.EValue + " (state could not be restored: " + err.Error() + "; the next run starts a fresh kernel)")
		} else {
			r.Notes = append(append(r.Notes, restoredNote), notes...)
			r.Restored = true
		}
	default:
		inBand := r.Status == kernel.StatusInterrupted || r.Status == kernel.StatusTimeout || c.outcome.Interrupted
		if k.cp.record(rec, r.Duration, inBand) {
			if err := k.cp.take(w, k.opts.Files, k.startWorker); err != nil {
				k.fresh()
			}
		}
		k.scheduleIdleSnapshot()
	}
	if r.Status == kernel.StatusOK || r.Status == kernel.StatusError {
		if names == nil {
			names = pysrc.Names(req.Code)
		}
		for _, n := range names {
			if strings.HasPrefix(n, ipysyntax.HostedPrefix) {
				continue
			}
			if n != "display" || slices.Contains(first(pysrc.Bindings(req.Code)), n) {
				k.names[n] = true // the prelude's display is not a variable
			}
		}
		for n := range given {
			k.names[n] = true
		}
	}
	if k.w != nil {
		k.SetState(kernel.StateIdle)
	} else {
		k.SetState(kernel.StateDead)
	}
	r.Files = k.changes()
	return r, nil
}

// callLimits are the limits of one execution: the kernel's with the
// request's overrides. A worker session's memory and recursion limits are
// fixed, and inputs that cannot cross are refused before anything runs.
func (k *Kernel) callLimits(req kernel.Request) (kernel.Limits, error) {
	l := k.limits.Override(req.Limits)
	if err := k.limits.CheckOverride(req.Limits); err != nil {
		return l, err
	}
	for name, v := range req.Inputs {
		if err := monty.CheckValue(v); err != nil {
			return l, fmt.Errorf("input %s %w", name, err)
		}
	}
	return l, nil
}

// changes are the files the execution that just ended changed.
func (k *Kernel) changes() []contract.FileChange {
	if k.opts.Files == nil {
		return nil
	}
	return k.opts.Files.Changes()
}

// recover brings back the namespace from before the last cell: the
// checkpoint's worker becomes the kernel's, or the same worker when there
// is no snapshot and it lives. Restart and Close (hard) stop it. notes say
// what the replay drew anew.
func (k *Kernel) recover(hard <-chan struct{}) ([]string, error) {
	ctx, cancel := context.WithCancel(k.Life())
	defer cancel()
	go func() {
		select {
		case <-hard:
			cancel()
		case <-ctx.Done():
		}
	}()
	start := func() (*monty.Worker, error) { return monty.Start(ctx, k.workerConfig()) }
	w, notes, err := k.cp.restore(ctx, k.w, k.limits.Timeout, k.opts.Files, start)
	if err != nil {
		return nil, err
	}
	if w != k.w {
		k.discard()
		k.setWorker(w)
	}
	return notes, k.cp.take(k.w, k.opts.Files, k.startWorker)
}

// startWorker starts a worker of the kernel's configuration (a keeper).
func (k *Kernel) startWorker() (*monty.Worker, error) { return monty.Start(k.Life(), k.workerConfig()) }

// fresh drops the worker and all state: the next run starts an empty kernel.
func (k *Kernel) fresh() {
	k.discard()
	k.cp.reset()
	if k.opts.Files != nil {
		k.opts.Files.Reset()
	}
	k.fed = ""
	clear(k.names)
	k.funcs.reset()
	k.hist = history{}
	k.Mu.Lock()
	k.envSet = nil
	k.extensions = nil
	k.Mu.Unlock()
	k.ResetCount()
}

// scheduleIdleSnapshot snapshots a journal worth keeping once the kernel
// has been idle for a while, so a later interrupt replays nothing slow.
func (k *Kernel) scheduleIdleSnapshot() {
	if !k.cp.worthKeeping() {
		return
	}
	if k.cp.idle != nil {
		k.cp.idle.Reset(idleSnapshot) // one timer per kernel, not one per cell
		return
	}
	k.cp.idle = time.AfterFunc(idleSnapshot, func() {
		select {
		case k.Q <- struct{}{}:
		default:
			return // busy: the running execution reschedules
		}
		defer k.Q.Release()
		if k.w != nil && k.w.Alive() && k.cp.worthKeeping() {
			if err := k.cp.take(k.w, k.opts.Files, k.startWorker); err != nil && k.w.Alive() {
				k.fresh() // a death is the next run's to report
			}
		}
	})
}

// Restart implements Kernel: the worker is stopped (a running cell is
// killed first) and the next execution starts an empty one.
func (k *Kernel) Restart(ctx context.Context) error { return k.RestartWith(ctx, k.fresh) }

// Variables implements Kernel. Monty has no globals(): candidate names come
// from the cells that ran, and the worker is asked for the type and the
// short repr (shortrepr) of those that are bound. A listing that takes
// longer than variablesTime (an object's own __repr__ that does not
// return) stops the worker; the namespace is restored and the listing made
// again without calling any object's own __repr__.
func (k *Kernel) Variables(ctx context.Context) ([]kernel.Variable, error) {
	if err := k.Acquire(ctx); err != nil {
		return nil, err
	}
	defer k.Q.Release()
	if k.w == nil || !k.w.Alive() || len(k.names) == 0 {
		return nil, nil
	}
	vs, err := k.listVariables(ctx, false)
	if !errors.Is(err, errSlowListing) {
		return vs, err
	}
	if k.w.Alive() { // stopped in-band (a sleep in a repr)
		return k.listVariables(ctx, true)
	}
	if _, err := k.recover(nil); err != nil {
		k.fresh()
		return nil, fmt.Errorf("list variables: an object's repr ran past %s, and the namespace could not be restored: %w", variablesTime, err)
	}
	return k.listVariables(ctx, true)
}

// variablesTime bounds one listing of the variables.
const variablesTime = 3 * time.Second

var errSlowListing = errors.New("listing the variables took too long")

// listVariables lists the bound candidates; safe calls no object's own
// __repr__.
func (k *Kernel) listVariables(ctx context.Context, safe bool) ([]kernel.Variable, error) {
	return k.listBound(ctx, safe, true)
}

// listBound lists the bound candidates; shown keeps only those the
// variables view shows (no modules, functions, dunders or builtins), else
// every name the cells bound (builtins left out), as %who lists them.
func (k *Kernel) listBound(ctx context.Context, safe, shown bool) ([]kernel.Variable, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, variablesTime, errSlowListing)
	defer cancel()
	var cand []string
	for n := range k.names {
		cand = append(cand, n)
	}
	mode := "False"
	if safe {
		mode = "True"
	}
	for len(cand) > 0 {
		var b strings.Builder
		b.WriteString(shortrepr.Source)
		b.WriteString("\n(")
		for _, n := range cand {
			fmt.Fprintf(&b, "(type(%s).__name__, %s(%s, %d, %s)), ", n, shortrepr.Func, n, kernel.MaxVariableRepr, mode)
		}
		b.WriteString(")")
		o, err := k.w.Feed(ctx, b.String(), monty.FeedOptions{})
		if err != nil {
			return nil, err
		}
		if o.Interrupted {
			return nil, context.Cause(ctx)
		}
		if o.Exception != nil {
			if len(o.Undefined) == 0 {
				return nil, fmt.Errorf("list variables: %s: %s", o.Exception.Type, o.Exception.Message)
			}
			cand = without(cand, o.Undefined)
			continue
		}
		return variables(cand, o.Value, shown), nil
	}
	return nil, nil
}

// NameBound reports whether name is bound in the namespace: a name an
// automagic line starts with (ipysyntax.Automagic) keeps Python's meaning
// then, as in IPython. It waits for the executions queued before it.
func (k *Kernel) NameBound(ctx context.Context, name string) (bool, error) {
	if err := k.Acquire(ctx); err != nil {
		return false, err
	}
	defer k.Q.Release()
	if k.w == nil || !k.w.Alive() {
		return false, nil
	}
	return k.bound(ctx, k.w, name)
}

// bound is NameBound on worker w. A name no cell that ran mentions is not
// bound; for one that is, the worker is asked: type(name) calls no code of
// the cells'.
func (k *Kernel) bound(ctx context.Context, w *monty.Worker, name string) (bool, error) {
	if !k.names[name] {
		return false, nil
	}
	o, err := w.Feed(ctx, "type("+name+") is None", monty.FeedOptions{})
	if err != nil {
		return false, err
	}
	return o.Exception == nil || !slices.Contains(o.Undefined, name), nil
}

// Values reads the values the names are bound to in the namespace, as
// the worker sends them (monty.Value); a name that is not bound, or whose
// value the worker cannot send, is left out. The values are read together
// when they can be: they then share one arena, where an object that
// several of them hold is one node, and a str or a float that is one object
// under two names is one Value. order is the names read, in the order the
// worker sent them. It waits for the executions queued before it. The
// values are read from the checkpoint's keeper, a snapshot of the
// namespace taken first when the journal is not empty, never from the
// kernel's worker: some values make the worker fail to send them (and
// die), which must not cost the namespace.
func (k *Kernel) Values(ctx context.Context, names []string) (vals map[string]*monty.Value, order []string, err error) {
	if err := k.Acquire(ctx); err != nil {
		return nil, nil, err
	}
	defer k.Q.Release()
	vals = map[string]*monty.Value{}
	if k.w == nil || !k.w.Alive() || len(names) == 0 {
		return vals, nil, nil
	}
	// First whether each is bound, a class, and its id(), which the worker
	// sends whatever the value: together, else one at a time; a name whose
	// probe fails (a cell rebound isinstance, say) is read alone.
	ids := map[string]int64{}
	var classes, alone []string
	groups := [][]string{names}
	for g := 0; g < len(groups); g++ {
		group := groups[g]
		probe := make([]string, len(group))
		for i, n := range group {
			probe[i] = "(isinstance(" + n + ", type(int)), id(" + n + "))"
		}
		o, err := k.readKeeper(ctx, tupleOf(probe))
		if err != nil {
			return nil, nil, err
		}
		if o == nil || o.Exception != nil {
			switch {
			case len(group) > 1:
				groups = append(groups, split(group)...)
			case o == nil || o.Exception.Type != "NameError":
				alone = append(alone, group[0])
			}
			continue
		}
		for i, it := range o.Value.Items() {
			pair := it.Items()
			id, _ := pair[1].Int()
			ids[group[i]] = id
			if pair[0].Repr() == "True" {
				classes = append(classes, group[i])
			} else {
				order = append(order, group[i])
			}
		}
	}
	// A class last: the worker fails to send an instance after its class.
	order = append(order, classes...)
	readAlone := func(names []string) ([]string, error) {
		var read []string
		for _, n := range names {
			o, err := k.readKeeper(ctx, n)
			if err != nil {
				return nil, err
			}
			if o != nil && o.Exception == nil {
				vals[n] = o.Value
				read = append(read, n)
			}
		}
		return read, nil
	}
	if len(order) == 0 {
		order, err = readAlone(alone)
		return vals, order, err
	}
	o, err := k.readKeeper(ctx, tupleOf(order))
	if err != nil {
		return nil, nil, err
	}
	if o == nil || o.Exception != nil || len(o.Value.Items()) != len(order) {
		// Some value cannot be sent: each on its own.
		order, err = readAlone(append(order, alone...))
		return vals, order, err
	}
	first := map[int64]*monty.Value{}
	for i, v := range o.Value.Items() {
		n := order[i]
		if f, ok := first[ids[n]]; ok && f.SameScalar(v) {
			v = f
		} else if !ok {
			first[ids[n]] = v
		}
		vals[n] = v
	}
	read, err := readAlone(alone)
	return vals, append(order, read...), err
}

// split is each name alone, the groups probed when one of names is not
// bound.
func split(names []string) [][]string {
	out := make([][]string, len(names))
	for i, n := range names {
		out[i] = []string{n}
	}
	return out
}

func tupleOf(exprs []string) string { return "(" + strings.Join(exprs, ", ") + ",)" }

// readKeeper evaluates expr in the keeper (a snapshot of the namespace,
// taken anew when the journal is not empty or the keeper died); nil: the
// worker failed to send its value, and died.
func (k *Kernel) readKeeper(ctx context.Context, expr string) (*monty.Outcome, error) {
	if len(k.cp.journal) > 0 || k.cp.keeper == nil || !k.cp.keeper.Alive() {
		if err := k.cp.take(k.w, k.opts.Files, k.startWorker); err != nil {
			return nil, fmt.Errorf("read values: %w", err)
		}
	}
	o, err := k.cp.keeper.Feed(ctx, expr, monty.FeedOptions{})
	if err != nil {
		k.cp.keeper.Kill() // the next read takes a new snapshot
		return nil, nil
	}
	return &o, nil
}

func without(names, drop []string) []string {
	out := names[:0]
	for _, n := range names {
		if !contains(drop, n) {
			out = append(out, n)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// hiddenTypes are bound names a person does not think of as variables.
var hiddenTypes = map[string]bool{"module": true}

// isBuiltin reports a name that resolves to a built-in (a cell used print or
// ValueError) rather than to a global the cells bound.
func isBuiltin(name, typ string) bool {
	return pysrc.IsBuiltin(name) && (typ == "builtin_function_or_method" || typ == "type")
}

func variables(names []string, v *monty.Value, shown bool) []kernel.Variable {
	items := v.Items()
	out := make([]kernel.Variable, 0, len(names))
	for i, n := range names {
		if i >= len(items) {
			break
		}
		pair := items[i].Items()
		if len(pair) != 2 {
			continue
		}
		typ, _ := pair[0].Str()
		repr, _ := pair[1].Str()
		if isBuiltin(n, typ) || shown && (hiddenTypes[typ] || strings.HasPrefix(n, "__") || ipysyntax.IsHistoryName(n)) {
			continue
		}
		out = append(out, kernel.Variable{Name: n, Type: typ, Repr: kcore.CutRepr(repr)})
	}
	kcore.SortVariables(out)
	return out
}

// Info implements Kernel.
func (k *Kernel) Info() kernel.Info {
	k.Mu.Lock()
	defer k.Mu.Unlock()
	if k.version == "" {
		k.version, _ = monty.Version(k.opts.Binary)
	}
	info := kernel.Info{
		Backend: contract.BackendMonty, Runtime: "monty", State: k.StateLocked(), ExecutionCount: k.CountLocked(),
		Versions: map[string]string{"monty": k.version, "protocol": strconv.Itoa(monty.ProtocolVersion)},
	}
	if k.opts.Files != nil {
		info.Write = k.opts.Files.Write()
	}
	return info
}

var _ kernel.FileKeeper = (*Kernel)(nil)

// Files implements kernel.FileKeeper.
func (k *Kernel) Files(context.Context) ([]contract.FileEntry, error) {
	if k.opts.Files == nil {
		return nil, nil
	}
	return k.opts.Files.Entries(), nil
}

// SaveFiles implements kernel.FileKeeper.
func (k *Kernel) SaveFiles(_ context.Context, paths []string) ([]string, error) {
	if k.opts.Files == nil {
		return nil, fmt.Errorf("the kernel has no files")
	}
	return k.opts.Files.Save(paths)
}

// Close implements Kernel.
func (k *Kernel) Close() error {
	if !k.MarkClosed() {
		return nil
	}
	k.Q <- struct{}{} // wait for the running execution
	if k.w != nil {
		k.Mu.Lock()
		k.watched = nil
		k.Mu.Unlock()
		k.w.Close()
		k.w = nil
	}
	if k.cp.idle != nil {
		k.cp.idle.Stop()
	}
	k.cp.reset()
	k.Q.Release()
	k.NotifyDead()
	return nil
}

// OptionsOf are the options of a Monty kernel configured by cfg: its files
// are the workspace under the files.* settings, with an overlay that may
// hold as much as the kernel's memory limit.
func OptionsOf(cfg kernel.Config) Options {
	lim := kernel.LimitsOf(cfg.Settings)
	fs := files.New(files.Options{
		Rules: files.NewRules(cfg.FileRoots(), cfg.Settings.Files.Hide),
		Write: cfg.Settings.Files.Write, Limit: int64(lim.WithDefaults().MemoryBytes),
	})
	dir := cfg.WorkDir()
	if dir != "" {
		dir = files.KernelPath(dir)
	}
	return Options{Binary: cfg.Settings.MontyPath, Limits: lim, Dir: dir, Files: fs, Env: cfg.Env, ScriptName: ScriptName(cfg), OnState: cfg.OnState}
}

// Binary is the worker executable.
func (k *Kernel) Binary() string { return k.opts.Binary }
