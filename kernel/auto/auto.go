package auto

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/containerkernel"
	"github.com/backyard-ls/backyard-ls/kernel/internal/kcore"
	"github.com/backyard-ls/backyard-ls/kernel/montykernel"
	"github.com/backyard-ls/backyard-ls/pysrc"
	"github.com/backyard-ls/backyard-ls/pysrc/ipysyntax"
	"go.uber.org/zap"
)

// Kernel is the auto kernel, the default: cells run on Monty, and what a
// person sees is what CPython shows. Host functions are called once per
// cell: a replay or a check in the container hears the answers Monty's run
// got (kcore.Recording).
//
//   - A cell that needs what Monty lacks (an import, a construct it rejects
//     or runs differently) moves the document to a container kernel before
//     it runs (plan.route).
//   - A cell Monty runs is compared with CPython when Monty's result is not
//     proven to be CPython's: an exception it raised, a limit of its own, a
//     construct it runs differently in some cases (plan.checks). The cell
//     runs again in the container, whose namespace follows Monty's (the
//     journal, replayed into it); when CPython gives the same, Monty's result
//     stands, otherwise CPython's is shown and the document moves.
//   - Where a shim makes Monty give CPython's answer, the cell stays on
//     Monty (shims.go).
//
// The journal holds every cell Monty ran to its end, with or without an
// exception, so that what a cell assigned before it raised is in the
// container too. Replay is safe because Monty code cannot have changed the
// outside world. Once started, the container replays the journal in the
// background, so a check or a move costs the cell itself. The document
// stays in the container until Restart, which goes back to Monty.
//
// Lock order: q, then sync, then mu; q serializes executions, sync the
// container's replay and checks (a background catch-up holds it too).
type Kernel struct {
	cfg          kernel.Config
	monty        *montykernel.Kernel
	newContainer func() (ContainerKernel, error)
	log          *zap.Logger
	q            kcore.Queue
	// life ends with Close: pre-warms and catch-ups run under it, and Close
	// waits for them.
	life context.Context
	end  context.CancelFunc
	warm sync.WaitGroup
	sync sync.Mutex
	// bg bounds the background catch-ups of the current container; Restart
	// and Close end them before they close it (guarded by mu).
	bg     context.Context
	bgStop context.CancelFunc

	// montyFile: Monty's __file__ is the document's path, as CPython's.
	montyFile bool

	// Owned by the goroutine holding q.
	caps *Capabilities
	seen map[string]bool // names the journal's cells mention
	// ordered are names whose values hold sets (or were computed next to
	// them): Monty iterates a set in another order than CPython, so every
	// cell that mentions one is checked.
	ordered map[string]bool
	// drawers are the names that draw when used (pysrc.Draws).
	drawers map[string]string
	// montyErr is the last exception the document showed, when Monty's
	// run raised it: the container, which never saw it, gets it with the
	// cells it runs (kernel.Request.LastError) until it shows one of its
	// own results, as IPython's %tb shows the last exception.
	montyErr *contract.ExecutionError

	mu       sync.Mutex // guards the fields below
	ctr      ContainerKernel
	started  bool // ctr's container runs
	moved    bool
	movedBy  rule
	count    int
	active   kernel.Kernel // the kernel running the current execution
	closed   bool
	warmDone chan struct{} // closed when a pre-warm ends
	cells    []contract.CellRun
	journal  []entry
	synced   int    // journal cells the container has run
	stale    bool   // the container's namespace left the journal: restart it before replaying
	drift    string // a replayed cell did not end as it did on Monty
	gen      int    // counts restarts and moves: a catch-up of an older one stops
	catching bool
	halted   bool // Restart or Close is ending the running execution
	// redrawNoted are the journal cells whose redrawn names a note named.
	redrawNoted map[*kcore.Replayable]bool
	// lost are notes on journal cells that could not be replayed in the
	// container (they were dropped): the next result shows them.
	lost []string
	// saidNoContainer: a result said that no container could check it;
	// the next ones stay quiet until a container starts.
	saidNoContainer bool
	// hist are the cells Monty ran (Code as written), in IPython's history; the container's
	// history holds those counted up to filed: it files the others with
	// the next cell it runs for the document (kernel.Request.Earlier).
	hist  []kernel.HistoryEntry
	filed int
}

// entry is a journal cell and how it ended on Monty.
type entry struct {
	rec    *kcore.Replayable // its code, inputs and host functions' answers
	status kernel.Status
	ename  string
	// draws is what the cell reads that differs from run to run
	// (pysrc.Draws); carry, the values of the names it bound then, as Monty
	// had them (load's payload; a replay keeps them), and rebuilt, those
	// that could not be carried.
	draws   []string
	carry   map[string]any
	rebuilt []string
	// wrote: the cell changed files (Monty's overlay), which only running
	// it again writes into the container's; future: it imports from
	// __future__, which changes how the cells after it compile; setting:
	// it changed a setting of the kernel (cell.setting).
	wrote, future, setting bool
	// filed: the cell in IPython's history, where its replay files it.
	filed kernel.HistoryEntry
}

var _ kernel.Prewarmer = (*Kernel)(nil)

// ContainerKernel is a container-backed kernel that can be started ahead
// of its first cell.
type ContainerKernel interface {
	kernel.Kernel
	kernel.Installer
	Start(ctx context.Context) error
}

// New returns an auto kernel; nothing starts until the first cell.
func New(cfg kernel.Config) (*Kernel, error) {
	a := &Kernel{cfg: cfg, log: cfg.Log(), q: kcore.NewQueue(), seen: map[string]bool{}, ordered: map[string]bool{}, montyFile: montykernel.ScriptName(cfg) != "",
		drawers: map[string]string{}, redrawNoted: map[*kcore.Replayable]bool{}}
	a.life, a.end = context.WithCancel(context.Background())
	a.bg, a.bgStop = context.WithCancel(a.life)
	mo := montykernel.OptionsOf(cfg)
	mo.OnState = a.forwardState(func() bool { return !a.isMoved() })
	mo.History = true
	m, err := montykernel.New(mo)
	if err != nil {
		return nil, err
	}
	a.monty = m
	a.newContainer = func() (ContainerKernel, error) {
		co := containerkernel.OptionsOf(cfg)
		co.OnState = a.forwardState(a.isMoved)
		if f := cfg.OnIdleOutput; f != nil {
			// A container that only checks cells prints nothing a person
			// asked for between them.
			co.OnIdleOutput = func(s kernel.Stream, text string) {
				if a.isMoved() {
					f(s, text)
				}
			}
		}
		return containerkernel.New(co)
	}
	return a, nil
}

func (a *Kernel) isMoved() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.moved
}

// forwardState passes a backend's state changes on while it is the one
// the document uses.
func (a *Kernel) forwardState(current func() bool) func(kernel.State) {
	return func(s kernel.State) {
		if a.cfg.OnState != nil && current() {
			a.cfg.OnState(s)
		}
	}
}

func (a *Kernel) capabilities(ctx context.Context) (*Capabilities, error) {
	if a.caps == nil {
		c, err := MontyCapabilities(ctx, a.monty.Binary())
		if err != nil {
			return nil, fmt.Errorf("probe the Monty worker: %w", err)
		}
		a.caps = c
		a.monty.SetPrelude(prelude(c.shims()))
	}
	return a.caps, nil
}

// Execute implements Kernel.
func (a *Kernel) Execute(ctx context.Context, req kernel.Request) (kernel.Result, error) {
	if err := a.q.Acquire(ctx); err != nil {
		return kernel.Result{}, err
	}
	defer a.q.Release()
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return kernel.Result{}, kernel.ErrClosed
	}
	moved, ctr, by := a.moved, a.ctr, a.movedBy
	if !req.Silent {
		a.count++
	}
	count := a.count
	a.mu.Unlock()
	if !req.Silent {
		req.Count = count // both histories number the cell as the document does
		req.Source = cmp.Or(req.Source, req.Code)
		req.LastError = a.montyErr
	}

	start := time.Now()
	var r kernel.Result
	var err error
	if moved {
		req.Earlier = a.earlier(req.Count)
		r, err = a.run(ctx, ctr, req)

		r.Routing = &contract.Routing{Rule: "moved", Reason: "the document moved to the container: " + by.reason, Note: note(r)}
	} else {
		r, err = a.onMonty(ctx, req)
		if r.Routing != nil {
			r.Duration = time.Since(start) // Monty's run, the container's and the comparison
		}
	}
	if err != nil && ctx.Err() != nil && !req.Silent {
		// Interrupted before the backend began the cell: the cell has its
		// number already, as in Jupyter, which numbers it on arrival.
		backend := contract.BackendMonty
		if moved {
			backend = contract.BackendContainer
		}
		r, err = kernel.Result{Status: kernel.StatusInterrupted, Backend: backend, Duration: time.Since(start),
			Error: &contract.ExecutionError{EName: "KeyboardInterrupt", Traceback: []contract.Frame{}}}, nil
	}
	// A backend that died between cells did not run the cell (count 0).
	if !req.Silent && !(r.Status == kernel.StatusCrashed && r.ExecutionCount == 0) {
		r.ExecutionCount = count
		a.note(r)
		a.lastError(r)
	}
	a.mu.Lock()
	r.Notes = append(r.Notes, a.lost...)
	a.lost = nil
	a.mu.Unlock()
	if r.Status == kernel.StatusCrashed {
		// The backend starts afresh: so does the count.
		a.mu.Lock()
		a.count = 0
		a.cells = nil
		a.hist, a.filed = nil, 0
		a.mu.Unlock()
	}
	return r, err
}

// note records which backend ran an execution, for Info.
func (a *Kernel) note(r kernel.Result) {
	c := contract.CellRun{ExecutionCount: r.ExecutionCount, Backend: r.Backend}
	if r.Routing != nil {
		c.Rule, c.Check = r.Routing.Rule, r.Routing.Check
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cells = append(a.cells, c); len(a.cells) > maxCells {
		a.cells = a.cells[len(a.cells)-maxCells:]
	}
}

// lastError keeps track of the last exception a result showed, which
// IPython's %tb shows again: one Monty raised is kept for the container,
// and once the container has shown a result, it knows the last one itself
// (it got montyErr with the cell, or raised a later one).
func (a *Kernel) lastError(r kernel.Result) {
	switch {
	case r.Backend == contract.BackendContainer && !r.Unavailable:
		a.montyErr = nil
	case r.Backend == contract.BackendMonty && r.Status != kernel.StatusOK && r.Status != kernel.StatusCrashed && r.Error != nil:
		a.montyErr = fromEarlierCell(r.Error, r.ExecutionCount)
	}
}

// fromEarlierCell is e as a later cell shows it: the frames of the cell
// that raised it (execution count n) as frames of an earlier cell.
func fromEarlierCell(e *contract.ExecutionError, n int) *contract.ExecutionError {
	if e == nil {
		return nil
	}
	x := *e
	x.Traceback = make([]contract.Frame, len(e.Traceback))
	for i, f := range e.Traceback {
		if f.Line > 0 {
			f = contract.Frame{Name: f.Name, Text: fmt.Sprintf("cell %d:%d: %s", n, f.Line, f.Text)}
		}
		x.Traceback[i] = f
	}
	x.Cause, x.Context = fromEarlierCell(e.Cause, n), fromEarlierCell(e.Context, n)
	x.Exceptions = make([]contract.ExecutionError, len(e.Exceptions))
	for i := range e.Exceptions {
		x.Exceptions[i] = *fromEarlierCell(&e.Exceptions[i], n)
	}
	return &x
}

// maxCells bounds Info's list of executions.
const maxCells = 500

func (a *Kernel) run(ctx context.Context, k kernel.Kernel, req kernel.Request) (kernel.Result, error) {
	a.mu.Lock()
	if a.halted {
		// Restart or Close is under way: the cell's next step does not
		// start.
		a.mu.Unlock()
		return kernel.Result{Status: kernel.StatusInterrupted, Backend: k.Info().Backend, Error: kcore.Restarted()}, nil
	}
	a.active = k
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		a.active = nil
		a.mu.Unlock()
	}()
	return k.Execute(ctx, req)
}

func (a *Kernel) onMonty(ctx context.Context, req kernel.Request) (kernel.Result, error) {
	caps, err := a.capabilities(ctx)
	if err != nil {
		return kernel.Result{}, err
	}
	code, err := a.automagic(ctx, req.Code)
	if err != nil {
		return kernel.Result{}, err
	}
	if why, ok := magicRule(code, a.monty.HasLineMagic); ok {
		return a.route(ctx, req, why)
	}
	req.Code = plainCode(req.Code) // what Monty runs, replays too
	c := analyze(req.Code)
	c.setting = setsKernel(code)
	if !req.Silent {
		// Code as written: earlier transforms it, only for a container.
		c.filed = kernel.HistoryEntry{Count: req.Count, Code: code, Source: req.Source}
	}
	p := planCell(c, caps, a.montyFile)
	if p.route != nil {
		return a.route(ctx, req, *p.route)
	}
	if req.OnInput == nil && readsInput(c) {
		// No one can answer: IPython's kernel raises
		// StdinNotImplementedError, which Monty can only stand in for.
		return a.route(ctx, req, rule{"construct:no-stdin", "reads input(), and the front end gives no stdin, which IPython's kernel answers with StdinNotImplementedError, a type Monty lacks"})
	}
	var shown echo
	funcs, rec := kcore.Recording(req) // before the shims: replays run the cell's own code
	mreq := req                        // input(), the requirements and the rest go with it
	mreq.Code, mreq.OnOutput, mreq.Functions = p.code, shown.tee(req.OnOutput), funcs
	r, err := a.run(ctx, a.monty, mreq)
	if err != nil {
		return r, err
	}
	if c.filed.Count > 0 && r.Status != kernel.StatusCrashed {
		c.filed.Value = r.Value != nil
		a.mu.Lock()
		a.hist = append(a.hist, c.filed)
		a.mu.Unlock()
	}
	if p.code != req.Code {
		unshim(r.Error, req.Code, p.code)
	}

	a.mu.Lock()
	drift := a.drift
	a.mu.Unlock()
	rules := judge(p, r, a.seen)
	if drift != "" {
		rules = append(rules, rule{"check:replay", drift})
	}
	if n := a.orderedName(c); n != "" {
		rules = append(rules, rule{"value:set-order", "uses " + n + ", whose value holds a set, which Monty iterates in another order than CPython"})
	}
	if len(rules) == 0 {
		a.record(c, rec, r, false)
		return r, nil
	}
	if readsInput(c) && !(r.Error != nil && r.Error.EName == "NotImplementedError" && r.Error.EValue == "Monty does not support the built-in input") {
		// Running it again would ask the person again (unless Monty could
		// not ask).
		return a.unconfirmed(c, rec, r, rules[0], "the cell reads input(), which a second run would ask for again"), nil
	}
	return a.check(ctx, req, c, rec, r, rules, &shown)
}

// automagic is code as the router judges it: an automagic line
// (ipysyntax.Automagic) as the magic it is when its name is not bound in
// Monty's namespace, which is known only now, before the cell runs. The
// cell itself goes as written: Monty's kernel and the container's shell
// each make the same choice again in their own namespace, which holds the
// same names.
func (a *Kernel) automagic(ctx context.Context, code string) (string, error) {
	name, args, ok := ipysyntax.Automagic(code, a.monty.HasLineMagic)
	if !ok {
		return code, nil
	}
	if a.seen[name] { // else no cell that ran on Monty could have bound it
		bound, err := a.monty.NameBound(ctx, name)
		if err != nil || bound {
			return code, err
		}
	}
	return ipysyntax.Escaped(name, args), nil
}

// unshim makes the frames of an error Monty raised in a cell it ran with
// shims applied (shimmed) read the cell's own lines (code); a rewritten
// line's span is not the cell's, and is dropped.
func unshim(e *contract.ExecutionError, code, shimmed string) {
	if e == nil {
		return
	}
	lines, got := strings.Split(code, "\n"), strings.Split(shimmed, "\n")
	for i := range e.Traceback {
		f := &e.Traceback[i]
		if f.Line < 1 || f.Line > len(lines) || f.Line > len(got) {
			continue
		}
		f.Text = strings.TrimSpace(lines[f.Line-1])
		for l := f.Line; l <= max(f.EndLine, f.Line) && l <= len(lines); l++ {
			if l > len(got) || lines[l-1] != got[l-1] {
				f.Col, f.EndLine, f.EndCol = 0, 0, 0
				break
			}
		}
	}
}

// readsInput reports a cell that calls input().
func readsInput(c *cell) bool {
	for _, sig := range c.Regions {
		for i := 0; i+1 < len(sig); i++ {
			if sig[i].Kind == pysrc.Name && sig[i].Text == "input" && isOp(sig[i+1], "(") && (i == 0 || !isOp(sig[i-1], ".")) {
				return true
			}
		}
	}
	return false
}

// record adds cell c, which Monty ran, to the journal; ranInContainer says
// the container ran it too (a check), in the same namespace.
func (a *Kernel) record(c *cell, rec *kcore.Replayable, r kernel.Result, ranInContainer bool) {
	switch {
	case r.Restored:
		// Monty put the namespace back as it was before the cell (a limit
		// stopped it): there is nothing of it to replay.
		if ranInContainer {
			a.setStale()
		}
		return
	case r.Status == kernel.StatusOK, r.Status == kernel.StatusError:
	case r.Status == kernel.StatusCrashed:
		// A fresh Monty kernel: nothing to replay, and the container's
		// namespace is the old one.
		a.mu.Lock()
		a.journal, a.synced, a.stale, a.drift = nil, 0, true, ""
		clear(a.redrawNoted)
		a.mu.Unlock()
		clear(a.seen)
		clear(a.ordered)
		clear(a.drawers)
		return
	default:
		// Interrupted or timed out: Monty's namespace is the one from before
		// the cell (or, for a sleep interrupted in-band, part of the cell);
		// the container's may hold part of it.
		if ranInContainer {
			a.mu.Lock()
			a.stale = true
			a.mu.Unlock()
		}
		return
	}
	for _, n := range c.Names {
		a.seen[n] = true
	}
	e := entry{rec: rec, status: r.Status, draws: pysrc.Draws(rec.Code, a.drawers), wrote: len(r.Files) > 0,
		future: slices.ContainsFunc(c.Imports, func(i pysrc.Import) bool { return i.Module == "__future__" }), setting: c.setting, filed: c.filed}
	e.carry, e.rebuilt = a.drawnCarry(a.life, rec.Code, e.draws)
	if r.Error != nil {
		e.ename = r.Error.EName
	}
	a.mu.Lock()
	inSync := a.synced == len(a.journal)
	a.journal = append(a.journal, e)
	if ranInContainer && inSync {
		a.synced = len(a.journal)
	} else if ranInContainer {
		a.stale = true
	}
	a.mu.Unlock()
	a.catchUp()
}

// check runs the cell in the container, after the journal, and shows
// CPython's result when it differs from Monty's (mr), moving the document.
func (a *Kernel) check(ctx context.Context, req kernel.Request, c *cell, rec *kcore.Replayable, mr kernel.Result, rules []rule, shown *echo) (kernel.Result, error) {
	why := rules[0]
	a.sync.Lock()
	defer a.sync.Unlock()
	ctr, err := a.syncedContainer(ctx, false)
	if err != nil {
		return a.unconfirmed(c, rec, mr, why, a.noContainer(ctx, err)), nil
	}
	creq := req
	creq.OnOutput = shown.resume(req.OnOutput)
	creq.OnDisplay = nil                     // Monty's displays were not streamed either; the record has CPython's
	creq.Functions = rec.Request().Functions // Monty's run called the host; this one hears its answers
	creq.Spent = req.Spent + mr.Duration     // one budget per cell: the container gets what Monty left
	if creq.TimeLeft(a.limits(req)) <= 0 {
		return a.unconfirmed(c, rec, mr, why, "Monty's run used the cell's whole time limit"), nil
	}
	creq.Earlier = a.earlier(req.Count) // filed now: the container runs the cell
	cr, err := a.run(ctx, ctr, creq)
	if err != nil {
		a.setStale()
		return a.unconfirmed(c, rec, mr, why, "the container could not run it: "+err.Error()), nil
	}

	ended := func(r kernel.Result) bool { return r.Status == kernel.StatusOK || r.Status == kernel.StatusError }
	switch {
	case !ended(mr) && ended(cr):
		// Monty's limit or crash: CPython ran the cell.
		return a.moveAfter(cr, why, mr), nil
	case !ended(mr):
		a.record(c, rec, mr, true)
		if mr.Status == kernel.StatusTimeout {
			a.setStale() // the container may have done part of the cell
		}
		mr.Routing = &contract.Routing{Rule: why.id, Reason: why.reason, Check: contract.CheckConfirmed, Note: "the container did not finish the cell either: " + errorText(cr)}
		return mr, nil
	case !ended(cr):
		// The container was interrupted or failed: no verdict.
		a.setStale()
		return a.unconfirmed(c, rec, mr, why, "the container did not finish the cell: "+errorText(cr)), nil
	}
	same, exception := sameOutput(mr, cr), sameException(mr, cr)
	if same || exception {
		diff, sets := a.compareValues(ctx, ctr, c)
		if diff != "" {
			return a.moveAfter(cr, rule{why.id, why.reason + "; " + diff}, mr), nil
		}
		if sets || a.orderedName(c) != "" {
			for _, n := range comparedNames(c) {
				a.ordered[n] = true
			}
		}
		a.record(c, rec, mr, true)
		a.followDraws(ctx, ctr, rec)
		if same {
			mr.Routing = &contract.Routing{Rule: why.id, Reason: why.reason, Check: contract.CheckConfirmed}
			return mr, nil
		}
		cr.Routing = &contract.Routing{Rule: why.id, Reason: why.reason, Check: contract.CheckMessage, MontyError: mr.Error, Note: note(cr)}
		return cr, nil
	}
	return a.moveAfter(cr, why, mr), nil
}

// limits are the limits of one execution of req.
func (a *Kernel) limits(req kernel.Request) kernel.Limits {
	return kernel.LimitsOf(a.cfg.Settings).WithDefaults().Override(req.Limits)
}

func note(r kernel.Result) string {
	if r.Routing != nil {
		return r.Routing.Note
	}
	return ""
}

// followDraws gives the container Monty's values of what cell rec (just
// run in both) drew: the container drew its own.
func (a *Kernel) followDraws(ctx context.Context, ctr kernel.Kernel, rec *kcore.Replayable) {
	a.mu.Lock()
	var carry map[string]any
	if n := len(a.journal); n > 0 && a.journal[n-1].rec == rec {
		carry = a.journal[n-1].carry
	}
	a.mu.Unlock()
	if err := load(ctx, ctr, carry); err != nil {
		a.setStale()
	}
}

// unconfirmed is Monty's result shown without CPython's word on it, and
// why (msg; "" leaves the result without a note).
func (a *Kernel) unconfirmed(c *cell, rec *kcore.Replayable, mr kernel.Result, why rule, msg string) kernel.Result {
	a.log.Info("Monty's result is unconfirmed", zap.String("rule", why.id), zap.String("why", msg))
	a.record(c, rec, mr, false)
	mr.Routing = &contract.Routing{Rule: why.id, Reason: why.reason, Check: contract.CheckUnconfirmed}
	if msg != "" {
		mr.Routing.Note = "Monty's result could not be compared with CPython's: " + msg
	}
	return mr
}

// noContainer is the note on a result no container could check (err: why
// not). That none could start is said once, as IPython would warn once:
// the results after it are unconfirmed without a word, until a container
// starts. A cell that needs the container still says why it cannot run
// (BackendUnavailable).
func (a *Kernel) noContainer(ctx context.Context, err error) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.started || ctx.Err() != nil {
		// It started but could not catch up, or the cell was stopped.
		return "no container could confirm it: " + err.Error()
	}
	a.log.Info("no container to check a cell", zap.Error(err))
	if a.saidNoContainer {
		return ""
	}
	a.saidNoContainer = true
	return "no container could confirm it, nor the results of the next cells that want a check (they say no more until one starts): " + err.Error()
}

func (a *Kernel) setStale() {
	a.mu.Lock()
	a.stale = true
	a.mu.Unlock()
}

// orderedName is a name of the cell whose value holds a set, "" when none
// is.
func (a *Kernel) orderedName(c *cell) string {
	for _, n := range comparedNames(c) {
		if a.ordered[n] {
			return n
		}
	}
	return ""
}

// compareValues compares what the names the cell mentions hold on Monty
// and in the container after it ran in both; it says how they differ, ""
// when they agree. sets reports values that agree only once their sets are
// read in one order.
func (a *Kernel) compareValues(ctx context.Context, ctr kernel.Kernel, c *cell) (diff string, sets bool) {
	names := comparedNames(c)
	if len(names) == 0 {
		return "", false
	}
	fp := fingerprint(names)
	m, err := a.run(ctx, a.monty, kernel.Request{Code: fp, Count: kernel.Uncounted})
	if err != nil || m.Status != kernel.StatusOK {
		return "its values could not be read on Monty", false
	}
	cr, err := a.run(ctx, ctr, kernel.Request{Code: fp, Count: kernel.Uncounted})
	if err != nil || cr.Status != kernel.StatusOK {
		return "its values could not be read in the container", false
	}
	ml, cl := strings.Split(normalizeRepr(m.Stdout), "\n"), strings.Split(normalizeRepr(cr.Stdout), "\n")
	for i, n := range names {
		switch {
		case i >= len(ml) || i >= len(cl):
			return "its values could not be read", false
		case ml[i] == cl[i] || opaque(ml[i]) && opaque(cl[i]):
		case setOrderFree(ml[i]) == setOrderFree(cl[i]):
			sets = true
		default:
			return fmt.Sprintf("%s holds another value in CPython", n), false
		}
	}
	return "", sets
}

// route runs a cell the plan sends to the container, which then holds the
// document. When no container can take over, the document stays on Monty
// and the cell's result says why.
func (a *Kernel) route(ctx context.Context, req kernel.Request, why rule) (kernel.Result, error) {
	a.sync.Lock()
	defer a.sync.Unlock()
	ctr, err := a.syncedContainer(ctx, true)
	if err != nil {
		return unavailable(why, err), nil
	}
	req.Earlier = a.earlier(req.Count)
	r, err := a.run(ctx, ctr, req)
	a.moveTo(why)

	r.Routing = &contract.Routing{Rule: why.id, Reason: why.reason, Moved: true, Note: note(r)}
	return r, err
}

// moveAfter shows CPython's result (cr) of a cell that ran on both and
// moves the document.
func (a *Kernel) moveAfter(cr kernel.Result, why rule, mr kernel.Result) kernel.Result {
	a.moveTo(why)
	cr.Routing = &contract.Routing{Rule: why.id, Reason: why.reason, Check: contract.CheckDiffers, Moved: true, MontyError: mr.Error, Note: note(cr)}
	return cr
}

// moveTo makes the container the document's kernel.
func (a *Kernel) moveTo(why rule) {
	a.mu.Lock()
	a.moved, a.movedBy = true, why
	a.journal, a.synced, a.drift = nil, 0, ""
	clear(a.redrawNoted)
	a.gen++
	ctr := a.ctr
	a.mu.Unlock()
	clear(a.seen)
	clear(a.ordered)
	clear(a.drawers)
	a.monty.Restart(a.life) // its worker is not needed any more
	a.log.Info("document moved to the container", zap.String("rule", why.id), zap.String("reason", why.reason))
	if a.cfg.OnState != nil {
		a.cfg.OnState(ctr.Info().State)
	}
}

func unavailable(why rule, err error) kernel.Result {
	return kernel.Result{Status: kernel.StatusError, Backend: contract.BackendContainer, Error: &contract.ExecutionError{
		EName:  "BackendUnavailable",
		EValue: fmt.Sprintf("this cell needs the container backend (%s), which is not available: %v", why.reason, err),
	}, Routing: &contract.Routing{Rule: why.id, Reason: why.reason}, Unavailable: true}
}

func firstLine(code string) string {
	line, _, _ := strings.Cut(code, "\n")
	return line
}

// container returns the started container kernel, waiting for a pre-warm
// in progress.
func (a *Kernel) container(ctx context.Context) (ContainerKernel, error) {
	a.mu.Lock()
	done := a.warmDone
	a.mu.Unlock()
	if done != nil {
		select {
		case <-done:
		case <-ctx.Done():
			return nil, context.Cause(ctx)
		}
	}
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil, kernel.ErrClosed
	}
	if a.ctr == nil {
		ctr, err := a.newContainer()
		if err != nil {
			a.mu.Unlock()
			return nil, err
		}
		a.ctr = ctr
	}
	ctr := a.ctr
	a.warmDone = nil
	a.mu.Unlock()
	// Start returns at once when the pre-warm succeeded.
	if err := ctr.Start(ctx); err != nil {
		return nil, err
	}
	a.mu.Lock()
	a.started, a.saidNoContainer = true, false
	a.mu.Unlock()
	return ctr, nil
}

// syncedContainer returns the started container with Monty's namespace
// in it: with carry (a move, Monty's namespace is the one before the
// cell) into an empty container, by carrying values (carryAll); else by
// replaying the journal cells it has not run, with the values of cells
// that draw carried after them. The caller holds sync.
func (a *Kernel) syncedContainer(ctx context.Context, carry bool) (ContainerKernel, error) {
	ctr, err := a.container(ctx)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	stale, gen := a.stale, a.gen
	a.mu.Unlock()
	if stale {
		if err := ctr.Restart(ctx); err != nil {
			return nil, err
		}
		a.mu.Lock()
		a.synced, a.stale, a.filed = 0, false, 0
		a.mu.Unlock()
	}
	a.mu.Lock()
	empty := a.synced == 0 && len(a.journal) > 0
	a.mu.Unlock()
	if carry && empty {
		ok, err := a.carryAll(ctx, ctr, gen)
		if err != nil {
			a.setStale()
			if ctx.Err() != nil {
				return nil, err
			}
			a.log.Info("carrying values into the container failed: replaying the journal", zap.Error(err))
			return a.syncedContainer(ctx, false)
		}
		if ok {
			return ctr, nil
		}
	}
	for {
		a.mu.Lock()
		if a.gen != gen {
			a.mu.Unlock()
			return nil, errors.New("the kernel restarted")
		}
		if a.synced >= len(a.journal) {
			a.mu.Unlock()
			return ctr, nil
		}
		i, e, n := a.synced, a.journal[a.synced], len(a.journal)
		a.mu.Unlock()
		r, err := ctr.Execute(ctx, a.replay(e))
		if err == nil && (r.Status == kernel.StatusOK || r.Status == kernel.StatusError) && len(e.carry) > 0 {
			err = load(ctx, ctr, e.carry)
		}
		if err == nil && len(e.rebuilt) > 0 {
			a.mu.Lock()
			if !a.redrawNoted[e.rec] {
				a.redrawNoted[e.rec] = true
				a.lost = append(a.lost, redrawn(e.rebuilt, e.draws))
			}
			a.mu.Unlock()
		}
		if err == nil && r.Status != kernel.StatusOK && r.Status != kernel.StatusError {
			if ctx.Err() != nil {
				err = fmt.Errorf("replaying cell %d of %d: %w", i+1, n, context.Cause(ctx))
			} else {
				// It dies or runs out of time in CPython: drop it, so that
				// no later cell tries again (and fails the same way), and
				// start the replay afresh without it.
				a.drop(gen, e, r)
				return a.syncedContainer(ctx, carry)
			}
		}
		if err != nil {
			a.setStale()
			return nil, err
		}
		a.mu.Lock()
		if a.gen == gen && a.synced == i {
			a.synced++
			if got := ending(r); got != ending(kernel.Result{Status: e.status, Error: &contract.ExecutionError{EName: e.ename}}) && a.drift == "" {
				a.drift = fmt.Sprintf("cell %d of the journal ended %s on Monty, %s in CPython", i+1, ending(kernel.Result{Status: e.status, Error: &contract.ExecutionError{EName: e.ename}}), got)
				a.log.Warn("a replayed cell ended otherwise in the container", zap.String("drift", a.drift))
			}
		}
		a.mu.Unlock()
	}
}

// replay is the request that runs journal cell e again in the container,
// filed in its IPython history after the cells before it.
func (a *Kernel) replay(e entry) kernel.Request {
	req := e.rec.Request()
	if e.filed.Count > 0 {
		req.Count, req.Source = e.filed.Count, e.filed.Source
		req.Earlier = a.earlier(e.filed.Count)
	}
	return req
}

// earlier are the cells Monty ran before cell n that the container has
// not filed in its IPython history, for the request that runs cell n
// there (kernel.Request.Earlier): from then on they count as filed (a
// container that loses its namespace is restarted and files them again).
func (a *Kernel) earlier(n int) []kernel.HistoryEntry {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []kernel.HistoryEntry
	for _, e := range a.hist {
		if e.Count > a.filed && e.Count < n {
			e.Code = ipysyntax.Transform(e.Code).Code // In[n] holds it as IPython transforms it
			out = append(out, e)
		}
	}
	a.filed = max(a.filed, n)
	return out
}

// drop takes journal cell e, whose replay ended r, out of the journal of
// generation gen; the container restarts before the next replay, and
// the next result says what is missing there.
func (a *Kernel) drop(gen int, e entry, r kernel.Result) {
	a.mu.Lock()
	defer a.mu.Unlock()
	i := slices.IndexFunc(a.journal, func(x entry) bool { return x.rec == e.rec })
	if a.gen != gen || i < 0 {
		return
	}
	a.journal = append(a.journal[:i:i], a.journal[i+1:]...)
	a.stale = true
	a.lost = append(a.lost, fmt.Sprintf("an earlier cell (%s) could not be rebuilt in the container (%s): what it defined is missing there",
		strings.TrimSpace(firstLine(e.rec.Code)), errorText(r)))
	a.log.Warn("a journal cell could not be replayed in the container", zap.String("why", errorText(r)))
}

func ending(r kernel.Result) string {
	if r.Status == kernel.StatusError && r.Error != nil {
		return "with " + r.Error.EName
	}
	return "without an exception"
}

// catchUp replays the journal into a started container in the background,
// so that a later check or move waits only for its own cell.
func (a *Kernel) catchUp() {
	a.mu.Lock()
	if a.catching || a.closed || a.moved || !a.started || a.synced >= len(a.journal) {
		a.mu.Unlock()
		return
	}
	a.catching = true
	a.warm.Add(1)
	bg := a.bg
	a.mu.Unlock()
	go func() {
		defer a.warm.Done()
		a.sync.Lock()
		defer a.sync.Unlock()
		defer func() {
			a.mu.Lock()
			a.catching = false
			a.mu.Unlock()
		}()
		a.mu.Lock()
		skip := a.closed || a.moved || !a.started
		a.mu.Unlock()
		if skip {
			return
		}
		if _, err := a.syncedContainer(bg, false); err != nil && bg.Err() == nil {
			a.log.Info("replaying the journal into the container", zap.Error(err))
		}
	}()
}

// Prewarm starts the container in the background when any of the
// document's cells will likely need it (it is routed or checked, or it
// raises on purpose), so a move or a check costs only the cell.
// It returns whether a start was begun.
func (a *Kernel) Prewarm(codes []string) bool {
	a.mu.Lock()
	if a.closed || a.moved || a.warmDone != nil || a.started {
		a.mu.Unlock()
		return false
	}
	a.mu.Unlock()
	caps, err := MontyCapabilities(a.life, a.monty.Binary())
	if err != nil {
		return false
	}
	why := -1
	for i, c := range codes {
		if mayNeedContainer(c, caps, a.montyFile) {
			why = i
			break
		}
	}
	if why < 0 {
		return false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed || a.moved || a.warmDone != nil || a.started {
		return false
	}
	if a.ctr == nil {
		ctr, err := a.newContainer()
		if err != nil {
			return false
		}
		a.ctr = ctr
	}
	done := make(chan struct{})
	a.warmDone = done
	ctr := a.ctr
	a.warm.Add(1)
	go func() {
		defer a.warm.Done()
		// A failed pre-warm is tried again by the move, which reports it.
		err := ctr.Start(a.life)
		a.mu.Lock()
		if err == nil && a.ctr == ctr {
			a.started = true
		}
		a.mu.Unlock()
		close(done)
		if err != nil {
			a.log.Info("pre-warming the container failed", zap.Error(err))
			return
		}
		a.catchUp()
	}()
	a.log.Info("pre-warming the container", zap.Int("for cell", why+1))
	return true
}

// Install implements kernel.Installer: into the container's package
// volume, also before the document moved (it finds them there).
func (a *Kernel) Install(ctx context.Context, packages []string) error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return kernel.ErrClosed
	}
	if a.ctr == nil {
		ctr, err := a.newContainer()
		if err != nil {
			a.mu.Unlock()
			return err
		}
		a.ctr = ctr
	}
	ctr := a.ctr
	a.mu.Unlock()
	return ctr.Install(ctx, packages)
}

// Stop implements kernel.Stopper: the running execution ends at once,
// and so does what the cell would run next (a check, a comparison).
func (a *Kernel) Stop() {
	a.mu.Lock()
	k := a.active
	a.mu.Unlock()
	if s, ok := k.(kernel.Stopper); ok {
		s.Stop()
	}
}

// halt stops the running execution for Restart or Close: it ends at once
// and nothing further of the cell starts until unhalt.
func (a *Kernel) halt() {
	a.mu.Lock()
	a.halted = true
	a.mu.Unlock()
	a.Stop()
}

// Interrupt implements Kernel.
func (a *Kernel) Interrupt() error {
	a.mu.Lock()
	k := a.active
	a.mu.Unlock()
	if k != nil {
		return k.Interrupt()
	}
	return nil
}

// Restart implements Kernel: state is cleared and the document goes back
// to Monty.
func (a *Kernel) Restart(ctx context.Context) error {
	a.halt()
	if err := a.q.Acquire(ctx); err != nil {
		a.mu.Lock()
		a.halted = false
		a.mu.Unlock()
		return err
	}
	defer a.q.Release()
	a.mu.Lock()
	a.halted = false
	ctr := a.ctr
	a.ctr, a.moved, a.movedBy, a.count, a.started = nil, false, rule{}, 0, false
	a.warmDone = nil
	a.journal, a.synced, a.stale, a.drift, a.cells, a.lost = nil, 0, false, "", nil, nil
	a.saidNoContainer = false
	a.hist, a.filed = nil, 0
	clear(a.redrawNoted)
	a.gen++
	a.bgStop()
	a.bg, a.bgStop = context.WithCancel(a.life)
	a.mu.Unlock()
	clear(a.seen)
	clear(a.ordered)
	clear(a.drawers)
	a.montyErr = nil
	// Closing the container ends a catch-up's replayed cell at once, and
	// the catch-up then stops.
	var errs []error
	if ctr != nil {
		errs = append(errs, ctr.Close())
	}
	a.sync.Lock()
	a.sync.Unlock()
	errs = append(errs, a.monty.Restart(ctx))
	return errors.Join(errs...)
}

// Variables implements Kernel.
func (a *Kernel) Variables(ctx context.Context) ([]kernel.Variable, error) {
	a.mu.Lock()
	k := kernel.Kernel(a.monty)
	if a.moved {
		k = a.ctr
	}
	a.mu.Unlock()
	return k.Variables(ctx)
}

// Info implements Kernel: the backend the document uses now, with the rule
// that moved it, and the backend of each execution.
func (a *Kernel) Info() kernel.Info {
	a.mu.Lock()
	moved, by, count, ctr := a.moved, a.movedBy, a.count, a.ctr
	warming := (a.warmDone != nil || a.started) && !moved
	cells := append([]contract.CellRun(nil), a.cells...)
	a.mu.Unlock()
	var info kernel.Info
	if moved {
		info = ctr.Info()
		info.Notes = append([]string{"moved from Monty to the container: " + by.reason}, info.Notes...)
	} else {
		info = a.monty.Info()
		if warming {
			info.Notes = append(info.Notes, "a container runs beside Monty (pre-warmed or started for a check), replaying its cells")
		}
	}
	info.Mode = contract.BackendAuto
	info.Reason, info.Rule = by.reason, by.id
	info.ExecutionCount = count
	info.Cells = cells
	return info
}

// Close implements Kernel.
func (a *Kernel) Close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	ctr := a.ctr
	a.mu.Unlock()
	a.end() // a pre-warm's start and a catch-up stop
	a.halt()
	// The kernels end their running cells at once; then the pre-warm and
	// catch-up goroutines are done.
	var errs [2]error
	var wg sync.WaitGroup
	wg.Go(func() { errs[0] = a.monty.Close() })
	if ctr != nil {
		wg.Go(func() { errs[1] = ctr.Close() })
	}
	wg.Wait()
	a.warm.Wait()
	return errors.Join(errs[:]...)
}
