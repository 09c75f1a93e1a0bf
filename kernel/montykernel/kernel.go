package kernel

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/backyard-ls/backyard-ls/monty"
	"github.com/backyard-ls/backyard-ls/pysrc"
)

// MontyOptions configure a Monty kernel.
type MontyOptions struct {
	// Binary is the worker executable; empty means monty.Find("").
	Binary string
	Limits Limits
	// OnState, when set, is told of every state change.
	OnState func(State)
}

// Monty is a Kernel backed by one Monty worker process, started on the
// first execution.
//
// Interrupt: Monty reads requests only between turns, so a running cell is
// stopped by killing the worker; a new worker then gets the namespace back
// as it was before that cell (see checkpoint). A cell waiting in time.sleep
// is interrupted in-band instead (KeyboardInterrupt; changes made before the
// sleep are kept, as in CPython).
type Monty struct {
	base
	opts   MontyOptions
	limits Limits

	// Owned by the goroutine holding q.
	w     *monty.Worker
	names map[string]bool // names seen in cells that ran, for Variables
	cp    checkpoint

	version string // guarded by mu
}

// NewMonty returns a Monty kernel; the worker starts on first use. It fails
// only when no worker binary can be found.
func NewMonty(opts MontyOptions) (*Monty, error) {
	if opts.Binary == "" {
		p, err := monty.Find("")
		if err != nil {
			return nil, err
		}
		opts.Binary = p
	}
	return &Monty{base: newBase(opts.OnState), opts: opts, limits: opts.Limits.WithDefaults(), names: map[string]bool{}}, nil
}

func (k *Monty) workerConfig() monty.Config {
	return monty.Config{Binary: k.opts.Binary, Limits: monty.Limits{
		CellTime:       k.limits.Timeout,
		MemoryBytes:    k.limits.MemoryBytes,
		RecursionDepth: uint64(k.limits.RecursionDepth),
	}}
}

// worker returns a live worker, starting one when needed.
func (k *Monty) worker(ctx context.Context) (*monty.Worker, error) {
	if k.w != nil && k.w.Alive() {
		return k.w, nil
	}
	k.discard()
	k.setState(StateStarting)
	w, err := monty.Start(ctx, k.workerConfig())
	if err != nil {
		k.setState(StateDead)
		return nil, fmt.Errorf("start Monty kernel: %w", err)
	}
	k.w = w
	return w, nil
}

func (k *Monty) discard() {
	if k.w != nil {
		k.w.Kill()
		<-k.w.Exited()
		k.w = nil
	}
}

// Execute implements Kernel.
func (k *Monty) Execute(ctx context.Context, req Request) (Result, error) {
	if err := k.acquire(ctx); err != nil {
		return Result{}, err
	}
	defer k.q.release()
	w, err := k.worker(ctx)
	if err != nil {
		return Result{}, err
	}
	ctx, count, end := k.begin(ctx, req.Silent)
	defer end()

	out := newOutput(k.limits.MaxOutputBytes, req)
	c := &montyCell{code: req.Code, limits: k.limits, out: out}
	c.run(ctx, w)
	r := c.result
	r.Runtime = "monty"
	if !req.Silent {
		r.ExecutionCount = count
	}

	switch {
	case c.crash != nil:
		// DESIGN: a crashed backend is reported and the next run starts a
		// fresh kernel.
		k.fresh()
		r.Error.EValue += "; the next run starts a fresh kernel"
	case c.sessionLost || c.tainted:
		if err := k.recover(); err != nil {
			k.fresh()
			r.Error.EValue = strings.TrimSpace(r.Error.EValue + " (state could not be restored: " + err.Error() + "; the next run starts a fresh kernel)")
		}
	default:
		inBand := r.Status == StatusInterrupted || r.Status == StatusTimeout
		if k.cp.record(c.fed, r.Duration, inBand) {
			if err := k.cp.take(w); err != nil {
				k.fresh()
			}
		}
		k.scheduleIdleSnapshot()
	}
	if r.Status == StatusOK || r.Status == StatusError {
		for _, n := range pysrc.Names(req.Code) {
			k.names[n] = true
		}
	}
	if k.w != nil {
		k.setState(StateIdle)
	} else {
		k.setState(StateDead)
	}
	return r, nil
}

// recover brings back the namespace from before the last cell, in the same
// worker when it lives, else in a new one.
func (k *Monty) recover() error {
	if k.w == nil || !k.w.Alive() {
		k.discard()
		w, err := monty.Start(context.Background(), k.workerConfig())
		if err != nil {
			return err
		}
		k.w = w
	}
	if err := k.cp.restore(context.Background(), k.w, k.limits.Timeout); err != nil {
		return err
	}
	return k.cp.take(k.w)
}

// fresh drops the worker and all state: the next run starts an empty kernel.
func (k *Monty) fresh() {
	k.discard()
	k.cp.reset()
	clear(k.names)
	k.resetCount()
}

// scheduleIdleSnapshot snapshots a non-empty journal once the kernel has
// been idle for a while, so a later interrupt replays nothing.
func (k *Monty) scheduleIdleSnapshot() {
	if len(k.cp.journal) == 0 {
		return
	}
	if k.cp.idle != nil {
		k.cp.idle.Stop()
	}
	k.cp.idle = time.AfterFunc(idleSnapshot, func() {
		select {
		case k.q <- struct{}{}:
		default:
			return // busy: the running execution reschedules
		}
		defer k.q.release()
		if k.w != nil && k.w.Alive() && len(k.cp.journal) > 0 {
			if err := k.cp.take(k.w); err != nil {
				k.fresh()
			}
		}
	})
}

// Restart implements Kernel: the worker is stopped (a running cell is
// interrupted first) and the next execution starts an empty one.
func (k *Monty) Restart(ctx context.Context) error { return k.restart(ctx, k.fresh) }

// Variables implements Kernel. Monty has no globals(): candidate names come
// from the cells that ran, and the worker is asked for the type and repr of
// those that are bound.
func (k *Monty) Variables(ctx context.Context) ([]Variable, error) {
	if err := k.acquire(ctx); err != nil {
		return nil, err
	}
	defer k.q.release()
	if k.w == nil || !k.w.Alive() || len(k.names) == 0 {
		return nil, nil
	}
	var cand []string
	for n := range k.names {
		cand = append(cand, n)
	}
	for len(cand) > 0 {
		var b strings.Builder
		b.WriteString("(")
		for _, n := range cand {
			fmt.Fprintf(&b, "(type(%s).__name__, repr(%s)), ", n, n)
		}
		b.WriteString(")")
		o, err := k.w.Feed(ctx, b.String(), monty.FeedOptions{})
		if err != nil {
			return nil, err
		}
		if o.Exception != nil {
			if len(o.Undefined) == 0 {
				return nil, fmt.Errorf("list variables: %s: %s", o.Exception.Type, o.Exception.Message)
			}
			cand = without(cand, o.Undefined)
			continue
		}
		return variables(cand, o.Value), nil
	}
	return nil, nil
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
	return cpythonBuiltins[name] && (typ == "builtin_function_or_method" || typ == "type")
}

func variables(names []string, v *monty.Value) []Variable {
	items := v.Items()
	out := make([]Variable, 0, len(names))
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
		if hiddenTypes[typ] || strings.HasPrefix(n, "__") || isBuiltin(n, typ) {
			continue
		}
		if len(repr) > MaxVariableRepr {
			repr = truncateUTF8(repr, MaxVariableRepr) + "…"
		}
		out = append(out, Variable{Name: n, Type: typ, Repr: repr})
	}
	sortVariables(out)
	return out
}

// Info implements Kernel.
func (k *Monty) Info() Info {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.version == "" {
		k.version, _ = monty.Version(k.opts.Binary)
	}
	state := k.state
	if k.closed {
		state = StateDead
	}
	return Info{
		Backend: BackendMonty, Runtime: "monty", State: state, ExecutionCount: k.count,
		Versions: map[string]string{"monty": k.version, "protocol": strconv.Itoa(monty.ProtocolVersion)},
	}
}

// Close implements Kernel.
func (k *Monty) Close() error {
	if !k.markClosed() {
		return nil
	}
	k.q <- struct{}{} // wait for the running execution
	if k.w != nil {
		k.w.Close()
		k.w = nil
	}
	if k.cp.idle != nil {
		k.cp.idle.Stop()
	}
	k.q.release()
	k.notifyDead()
	return nil
}
