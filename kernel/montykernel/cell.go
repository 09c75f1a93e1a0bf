package montykernel

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/internal/kcore"
	"github.com/backyard-ls/backyard-ls/monty"
	"github.com/backyard-ls/backyard-ls/pysrc"
	"github.com/backyard-ls/backyard-ls/pysrc/ipysyntax"
)

// timeoutGrace is how long past the time limit the host waits before it
// stops a worker that Monty's own budget did not stop (the budget counts
// only bytecode time).
const timeoutGrace = time.Second

// stopGrace is how long a cell stopped in-band (a KeyboardInterrupt raised
// in a sleep or a host call at its time limit) may run on, having caught
// it, before its worker is killed.
const stopGrace = time.Second

// displayCode rewrites a cell so that Monty itself computes the repr of the
// trailing expression (the value crossing the wire loses __repr__ and
// container types), and sends only its first max characters with its
// length: a huge value never crosses the wire. Lines keep their numbers.
// ok is false when the cell does not end in an expression.
func displayCode(code string, max int) (string, bool) {
	return rewriteTrailing(code, "(lambda r: (len(r), r[:"+strconv.Itoa(max)+"]))(repr((", ")))")
}

// preludeDisplayCode is displayCode for a session that ran the prelude:
// the trailing expression is passed to its valueFunc, which a trivial
// cell's feed runs in about 25 µs less than displayCode's lambda (Monty
// builds a function object per run). The signatures of the cell's
// functions (signaturesCode, and lambdaValueCode for a lambda that is the
// value) are kept before the value is shown: as valueFunc's third
// argument, or on a line after the cell. With count, the
// value goes into IPython's output history as Out[count]: valueFunc keeps
// it in Out, _, __ and ___, and the cell binds _count (a walrus at the
// module's level: Monty has no globals()), unless it is None or Out.
func preludeDisplayCode(code string, max, count int) (string, bool) {
	sigs := signaturesCode(code)
	code = lambdaValueCode(code)
	before, after := valueFunc+"((", "), "+strconv.Itoa(max)
	if count > 0 {
		n := strconv.Itoa(count)
		before = valueFunc + "((" + lastValue + " := ("
		after = ")), " + strconv.Itoa(max) + ", " + cmp.Or(sigs, "None") + ", " + n + ", (_" + n + " := " + lastValue + ") if " +
			lastValue + " is not None and " + lastValue + " is not Out else None"
	} else if sigs != "" {
		after += ", " + sigs
	}
	if fed, ok := rewriteTrailing(code, before, after+")"); ok {
		return fed, true
	}
	if sigs == "" {
		return code, false
	}
	return code + "\nif " + sigs + ":\n    pass\n", false
}

// lastValue is the global a cell's value is bound to on its way to
// valueFunc, with Options.History.
const lastValue = "__backyard_v__"

// cutDisplayCode is displayCode for a batch's pipeline: the value comes
// back as the repr's first max+1 characters alone, which costs the worker
// about half the instructions of the pair (Monty builds a function object
// per run; a trivial snippet's whole feed is ~58,000 instructions against
// ~101,000). A repr longer than max comes back max+1 characters long: such
// a snippet is run again alone with displayCode, for the exact count its
// marker gives (see cutShort).
func cutDisplayCode(code string, max int) (string, bool) {
	return rewriteTrailing(code, "repr((", "))[:"+strconv.Itoa(max+1)+"]")
}

// rewriteTrailing puts code's trailing expression between before and
// after, in place (lines keep their numbers); ok is false when code does
// not end in an expression.
func rewriteTrailing(code, before, after string) (string, bool) {
	start, end, ok := pysrc.TrailingExpr(code)
	if !ok {
		return code, false
	}
	return code[:start] + before + code[start:end] + after + code[end:], true
}

// cutShort reports whether a value from cutDisplayCode is a repr longer
// than max characters.
func cutShort(v *monty.Value, max int) bool {
	s, ok := v.Str()
	return ok && len(s) > max && utf8.RuneCountInString(s) > max
}

// restoredNote is the note of a run whose namespace was put back.
const restoredNote = "the namespace was restored to its state before this cell: Monty cannot keep what a stopped cell did"

// montyCell runs one cell on a worker and turns the outcome into a Result.
// It reports whether the worker's session can still be trusted; when not,
// the caller restores or replaces it.
type montyCell struct {
	code   string
	src    string // the cell as written, when code has shims applied
	limits kernel.Limits
	out    *kcore.Output
	input  func(ctx context.Context, prompt string, password bool) (string, error)
	onSent func()
	fresh  bool // empty namespace before running
	// program: run as a program, no value shown (kernel.Snippet.Program)
	program bool
	// noStdin: a cell whose front end gives no stdin (input() raises
	// StdinNotImplementedError, as in IPython's kernel)
	noStdin bool
	// cut: the value comes from cutDisplayCode (a whole repr), not
	// displayCode (a count and a cut repr)
	cut bool
	// prelude: the session ran the prelude, so its valueFunc shows the
	// value (preludeDisplayCode)
	prelude bool
	// history is the execution count the value is kept under in IPython's
	// output history (Options.History); 0: none.
	history int
	// names ties functions shown by Monty's repr to their defs (nil: none).
	names   *funcNames
	result  kernel.Result
	outcome monty.Outcome
	fed     string // the code as fed (rewritten for display)
	// sessionLost is set when the worker died or was killed; tainted when
	// it lives but a limit fired inside the cell (heap not trustworthy).
	sessionLost bool
	tainted     bool
	crash       error

	// grace is how long past the time limit the host waits for the
	// worker's own budget to stop the cell (0: the host stops it).
	grace time.Duration
	// spent is what the cell spent of its time limit on another backend
	// (kernel.Request.Spent): it may run for what is left.
	spent  time.Duration
	inputs map[string]any
	funcs  map[string]monty.Func
	// dismissed: the person dismissed an input() question.
	dismissed bool

	// hard closes when Restart or Close must end the cell at once; rep
	// carries interrupt requests after the first (the worker is killed:
	// Monty takes one in-band interrupt per cell). Both nil in a batch.
	hard <-chan struct{}
	rep  *kcore.Repeats
	// ended, when set, may write to out once the feed is over (raised:
	// the cell ended in an exception).
	ended func(raised bool)
	// killedBy says why the host killed the cell's worker after the cell
	// was stopped: a restart, another interrupt, its time limit.
	mu        sync.Mutex
	killedBy  error
	over      bool // the cell ended: nothing kills its worker any more
	restarted bool
}

// enforce ends a cell that goes on after it was stopped, whatever it does
// (it catches every KeyboardInterrupt, it loops on sleeps): Restart and
// Close kill its worker at once, a second interrupt too, and its time
// limit after stopGrace. Each is a callback (a timer, Repeats.OnStop), not
// a goroutine waiting for them: most cells end in microseconds, and a
// goroutine per cell cost a thread woken and two switches. The worker is
// never killed once the returned function has returned (the cell is over).
func (c *montyCell) enforce(w *monty.Worker) (over func()) {
	kill := func(why error) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.over || c.killedBy != nil {
			return
		}
		c.killedBy = why
		w.Kill()
	}
	limit := time.AfterFunc(c.left()+c.grace+stopGrace, func() { kill(kcore.ErrTimedOut) })
	if c.rep != nil {
		c.rep.OnStop(kill)
		select {
		case <-c.rep.C: // a request came before OnStop
			kill(kcore.ErrInterrupted)
		default:
		}
	}
	select {
	case <-c.hard: // closed before OnStop (a nil hard never is)
		kill(kcore.ErrRestarted)
	default:
	}
	return func() {
		limit.Stop()
		if c.rep != nil {
			c.rep.OnStop(nil)
		}
		c.mu.Lock()
		c.over = true
		c.mu.Unlock()
	}
}

// left is the time the cell may run.
func (c *montyCell) left() time.Duration { return max(c.limits.Timeout-c.spent, 0) }

func (c *montyCell) run(ctx context.Context, w *monty.Worker) {
	code, wrapped := c.code, false
	switch {
	case c.program:
	case c.prelude:
		code, wrapped = preludeDisplayCode(c.code, c.limits.MaxOutputBytes, c.history)
	default:
		code, wrapped = displayCode(c.code, c.limits.MaxOutputBytes)
	}
	if c.rep != nil {
		c.rep.Running(ctx)
	}
	ctx, cancel := context.WithTimeoutCause(ctx, c.left()+c.grace, kcore.ErrTimedOut)
	defer cancel()
	defer c.enforce(w)()
	start := time.Now()
	opt := monty.FeedOptions{Fresh: c.fresh, OnPrint: func(s monty.Stream, text string) {
		if s == monty.Stderr {
			c.out.Write(kernel.Stderr, text)
		} else {
			c.out.Write(kernel.Stdout, text)
		}
	}, Inputs: c.inputs, Functions: c.funcs, OnSent: c.onSent, NoStdin: c.noStdin}
	if c.input != nil {
		opt.Input = func(ctx context.Context, prompt string) (*string, bool) {
			line, err := c.input(ctx, prompt, false)
			if err != nil {
				c.dismissed = c.dismissed || errors.Is(err, kernel.ErrInputDismissed)
				return nil, errors.Is(err, kernel.ErrInputDismissed)
			}
			return &line, false
		}
	}
	o, err := w.Feed(ctx, code, opt)
	if err == nil && code != c.code && o.Exception != nil && o.Exception.Type == "SyntaxError" {
		// The rewrite must never change what the cell means: a parse error
		// happens before anything runs, so run the cell as written.
		opt.Fresh = false
		code = c.code
		o, err = w.Feed(ctx, code, opt)
		wrapped = false
	}
	var stopped error
	if ctx.Err() != nil {
		stopped = context.Cause(ctx)
	}
	if o.TimedOut {
		stopped = kcore.ErrTimedOut // a sleep after a caught interrupt reached the time limit
	}
	c.mu.Lock()
	if c.killedBy != nil && err != nil {
		// The host killed the worker after the cell was stopped: that is
		// why it ended.
		stopped = c.killedBy
	}
	c.mu.Unlock()
	c.finish(stopped, o, err, code, wrapped, time.Since(start))
}

// finish turns a feed's outcome (o, or err when the worker failed) into
// the cell's result; stopped is why the feed was stopped (kcore.ErrTimedOut
// for its time limit, anything else an interrupt), nil when it was not;
// fed is what was fed.
func (c *montyCell) finish(stopped error, o monty.Outcome, err error, fed string, wrapped bool, took time.Duration) {
	c.outcome, c.fed = o, fed
	r := &c.result
	r.Duration = took
	r.Backend = contract.BackendMonty
	if c.ended != nil {
		c.ended(err == nil && o.Exception != nil)
	}
	c.out.End()
	r.Stdout, r.Stderr = c.out.Stdout(), c.out.Stderr()
	switch {
	case err != nil:
		c.sessionLost = true
		switch {
		case errors.Is(stopped, kcore.ErrRestarted) || errors.Is(stopped, kernel.ErrClosed):
			c.restarted = true
			r.Status = kernel.StatusInterrupted
			r.Error = kcore.Restarted()
		case errors.Is(stopped, kcore.ErrTimedOut):
			r.Status = kernel.StatusTimeout
			r.Error = &contract.ExecutionError{EName: "TimeoutError", EValue: fmt.Sprintf("cell exceeded the %s time limit", c.limits.Timeout)}
		case stopped != nil:
			r.Status = kernel.StatusInterrupted
			r.Error = &contract.ExecutionError{EName: "KeyboardInterrupt", EValue: ""}
		default:
			c.crash = err
			r.Status = kernel.StatusCrashed
			r.Error = &contract.ExecutionError{EName: "KernelCrashed", EValue: deathText(err, c.limits)}
		}
	case o.Exception != nil:
		e := o.Exception
		r.Status = kernel.StatusError
		src := ipysyntax.Clean(c.src) // as IPython's traceback shows the cell
		if src == "" {
			src = c.code
		}
		r.Error = &contract.ExecutionError{EName: e.Type, EValue: e.Message, Traceback: frames(e.Frames, src, fed)}
		if e.Type == "KeyError" {
			r.Error.EValue = keyErrorValue(e.Message)
		}
		honest(r.Error)
		switch {
		case e.Type == "TimeoutError" && strings.Contains(e.Message, "time limit exceeded") && len(e.Frames) == 0:
			r.Status, c.tainted = kernel.StatusTimeout, true
			r.Error.EValue = fmt.Sprintf("cell exceeded the %s time limit", c.limits.Timeout)
		case e.Type == "MemoryError" && strings.Contains(e.Message, "memory limit exceeded"):
			c.tainted = true
		case e.Type == "KeyboardInterrupt" && errors.Is(stopped, kcore.ErrTimedOut):
			// Stopped in-band (in a sleep) by the time limit.
			r.Status = kernel.StatusTimeout
			r.Error = &contract.ExecutionError{EName: "TimeoutError", EValue: fmt.Sprintf("cell exceeded the %s time limit", c.limits.Timeout), Traceback: r.Error.Traceback}
		case e.Type == "KeyboardInterrupt" && (stopped != nil || o.Interrupted || c.dismissed):
			// The person stopped it; a cell's own raise is an error, as
			// in Jupyter.
			r.Status = kernel.StatusInterrupted
		}
	case o.TypingError != "":
		r.Status = kernel.StatusError
		r.Error = &contract.ExecutionError{EName: "TypeCheckError", EValue: o.TypingError}
	default:
		r.Status = kernel.StatusOK
		// Only a rewritten cell has a value to show: otherwise the cell ends
		// in a statement or in `expr;` (IPython's way to hide a value).
		if steps, ok := valueSteps(o.Value); wrapped && !c.cut && ok {
			r.Value = &contract.Value{Text: layoutSteps(steps, c.names)}
			kcore.CapValue(r.Value, c.limits.MaxOutputBytes, 0, nil)
		} else if s, ok := o.Value.Str(); wrapped && c.cut && ok {
			if s != "None" {
				r.Value = &contract.Value{Text: s}
				kcore.CapValue(r.Value, c.limits.MaxOutputBytes, 0, nil)
			}
		} else if v := o.Value.Items(); wrapped && !c.cut && len(v) == 2 {
			n, _ := v[0].Int()
			s, _ := v[1].Str()
			if s != "None" {
				r.Value = &contract.Value{Text: s}
				kcore.CapValue(r.Value, c.limits.MaxOutputBytes, int(n)-utf8.RuneCountInString(s), nil)
			}
		}
	}
}

// deathText says how the worker ended, in the words every backend uses.
func deathText(err error, limits kernel.Limits) string {
	var ce *monty.CrashError
	if !errors.As(err, &ce) {
		return err.Error() // a protocol failure: the worker was stopped for it
	}
	return kcore.Death{Signal: ce.Signal, Code: ce.ExitCode, OOM: ce.OutOfMemory(), MemoryBytes: limits.MemoryBytes, Stderr: ce.Stderr}.Text()
}

// maxFrames bounds a traceback; deep recursion would otherwise send
// thousands of identical frames.
const maxFrames = 30

// frames maps Monty frames to cell-relative frames. The outermost frame is
// always the cell's own module level; frames in code from other cells (a
// function defined earlier) or in eval'd strings keep line 0. A frame's
// span is kept where the line fed is the cell's line (a rewritten line's
// columns are not the cell's).
func frames(fs []monty.Frame, code, fed string) []contract.Frame {
	lines, fedLines := strings.Split(code, "\n"), strings.Split(fed, "\n")
	cell := ""
	if len(fs) > 0 {
		cell = fs[0].File
	}
	out := make([]contract.Frame, 0, min(len(fs), maxFrames+1))
	for i, f := range fs {
		if strings.HasPrefix(f.Name, "__backyard_") {
			continue // a shim's helper: the cell called what it stands for
		}
		if len(fs) > maxFrames && i == maxFrames/2 {
			out = append(out, contract.Frame{Name: "...", Text: fmt.Sprintf("[%d frames omitted]", len(fs)-maxFrames)})
		}
		if len(fs) > maxFrames && i >= maxFrames/2 && i < len(fs)-maxFrames/2 {
			continue
		}
		fr := contract.Frame{Name: f.Name, Text: strings.TrimSpace(f.Preview)}
		if fr.Name == "" {
			fr.Name = "<module>"
		}
		switch {
		case f.File == cell && strings.HasPrefix(cell, "<python-input-"):
			fr.Line = f.Line
			if f.Line >= 1 && f.Line <= len(lines) {
				fr.Text = strings.TrimSpace(lines[f.Line-1])
			}
			if f.Col >= 1 && f.EndCol >= 1 && f.EndLine >= f.Line && f.EndLine <= len(lines) && f.EndLine <= len(fedLines) {
				// Monty's columns are 1-based code points of the lines fed,
				// the record's from 0 of the cell's lines.
				col, ok1 := fedColumn(lines[f.Line-1], fedLines[f.Line-1], f.Col-1)
				end, ok2 := fedColumn(lines[f.EndLine-1], fedLines[f.EndLine-1], f.EndCol-1)
				if ok1 && ok2 && sameLines(lines, fedLines, f.Line+1, f.EndLine-1) {
					fr.Col, fr.EndLine, fr.EndCol = col, f.EndLine, end
				}
			}
		case !strings.HasPrefix(f.File, "<python-input-"):
			fr.File, fr.FileLine = f.File, f.Line // not a cell: eval'd code
		}
		out = append(out, fr)
	}
	return out
}

// internalError is how Monty names its internal errors.
const internalError = "Internal error in monty: "

// moduleSetattr is Monty's refusal of an assignment to a module attribute.
var moduleSetattr = regexp.MustCompile(`^'module' object has no attribute '([^']*)' and no __dict__ for setting new attributes$`)

// honest replaces Monty's errors that are not Python's with a
// NotImplementedError saying what Monty does not support: an internal
// error, an assignment to a module's attribute, which CPython allows, and
// a NameError for a built-in of CPython's that Monty lacks.
func honest(e *contract.ExecutionError) {
	switch {
	case e.EName == "NameError" && undefinedBuiltin(e.EValue) != "":
		e.EName, e.EValue = "NotImplementedError", "Monty does not support the built-in "+undefinedBuiltin(e.EValue)
	case e.EName == "RuntimeError" && strings.HasPrefix(e.EValue, internalError):
		detail := strings.TrimPrefix(e.EValue, internalError)
		e.EName, e.EValue = "NotImplementedError", "Monty does not support this: "+detail
		if strings.HasPrefix(detail, "exceptions can only be called with zero or one string argument") {
			e.EValue = "Monty does not support exceptions made from other arguments than one string (" + detail + ")"
		}
	case e.EName == "AttributeError" && moduleSetattr.MatchString(e.EValue):
		name := moduleSetattr.FindStringSubmatch(e.EValue)[1]
		e.EName, e.EValue = "NotImplementedError", "Monty does not support setting a module's attributes ('"+name+"'): its modules are read-only"
	}
}

// undefinedBuiltin is the name of a NameError's message when it is one of
// CPython's built-ins, else "".
func undefinedBuiltin(msg string) string {
	name, ok := strings.CutPrefix(msg, "name '")
	name, ok2 := strings.CutSuffix(name, "' is not defined")
	if !ok || !ok2 || !pysrc.IsBuiltin(name) {
		return ""
	}
	return name
}

// fedColumn maps code point column c of a line as fed back to the cell's
// line src: the value rewrite (displayCode) puts text before and after
// the trailing expression, so fed is src[:p] + X + src[p:q] + Y + src[q:].
// A column in inserted text, or on a line rewritten otherwise (a shim), has
// none (ok false); so has a line too long to align cheaply.
func fedColumn(src, fed string, c int) (int, bool) {
	if src == fed {
		return c, true
	}
	if len(fed) > maxAlignedLine {
		return 0, false
	}
	p := commonPrefix(src, fed)
	rest, tail := src[p:], fed[p:]
	keep, at := -1, 0 // the longest part of rest found whole after X
	for i := 0; i <= len(tail); i++ {
		if i < len(tail) && !utf8.RuneStart(tail[i]) {
			continue
		}
		if l := commonPrefix(rest, tail[i:]); l > keep {
			keep, at = l, i
		}
	}
	if !strings.HasSuffix(tail[at+keep:], rest[keep:]) {
		return 0, false
	}
	before, n, m := utf8.RuneCountInString(src[:p]), utf8.RuneCountInString(tail[:at]), utf8.RuneCountInString(rest[:keep])
	switch {
	case c <= before:
		return c, true
	case c >= before+n && c <= before+n+m:
		return c - n, true
	}
	return 0, false
}

// maxAlignedLine bounds the lines fedColumn aligns (its search is
// quadratic in the line).
const maxAlignedLine = 4096

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	for n > 0 && n < len(a) && !utf8.RuneStart(a[n]) {
		n--
	}
	return n
}

// sameLines reports whether lines from..to (1-based; none when to <
// from) of a and b are equal.
func sameLines(a, b []string, from, to int) bool {
	if to > len(a) || to > len(b) {
		return false
	}
	for i := from - 1; i < to; i++ {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

var literal = regexp.MustCompile(`^(-?[0-9][0-9_.eE+-]*j?|None|True|False|[-(\[{'"].*|b['"].*)$`)

// keyErrorValue renders a KeyError message as CPython's str() of it: Monty
// sends the key's str() ("bananas"), CPython shows its repr ("'bananas'").
// A key whose text looks like a literal (1, None, (1, 2)) is left alone; an
// empty message stays empty (KeyError() and KeyError(”) are alike here).
func keyErrorValue(msg string) string {
	if msg == "" || literal.MatchString(msg) {
		return msg
	}
	return monty.StrRepr(msg)
}

// RunSnippet runs code on w as one independent snippet of a batch: with
// fresh set, the worker's session is emptied first (pipelined with the
// feed). lost reports that the worker is dead or was killed afterwards and
// must be replaced.
func RunSnippet(ctx context.Context, w *monty.Worker, code string, limits kernel.Limits, fresh bool) (r kernel.Result, lost bool) {
	return runSnippet(ctx, w, kernel.Snippet{Code: code}, limits, fresh)
}

// KernelPrelude is what a kernel's session runs before its first cell (its
// display() and the value func that shows a value as IPython does), shims
// aside.
const KernelPrelude = displayPrelude + magicPrelude

// RunKernelCell runs code on w as a kernel cell of a session that ran
// KernelPrelude: its value shown as IPython shows it.
func RunKernelCell(ctx context.Context, w *monty.Worker, code string, limits kernel.Limits) (r kernel.Result, lost bool) {
	c := &montyCell{code: code, limits: limits, out: kcore.NewOutput(limits.MaxOutputBytes, kernel.Request{}), grace: timeoutGrace, prelude: true}
	c.run(ctx, w)
	c.result.Runtime = "monty"
	return c.result, c.sessionLost
}

// runSnippet is RunSnippet for a batch snippet (a program shows no value).
func runSnippet(ctx context.Context, w *monty.Worker, sn kernel.Snippet, limits kernel.Limits, fresh bool) (r kernel.Result, lost bool) {
	c := &montyCell{code: sn.Code, program: sn.Program, limits: limits, out: kcore.NewOutput(limits.MaxOutputBytes, kernel.Request{}), fresh: fresh, grace: timeoutGrace}
	c.run(ctx, w)
	c.result.Runtime = "monty"
	return c.result, c.sessionLost
}

// WorkerConfig is the configuration of a worker that runs cells under
// limits.
func WorkerConfig(binary string, limits kernel.Limits) monty.Config {
	return monty.Config{Binary: binary, Limits: monty.Limits{
		CellTime:       limits.Timeout,
		MemoryBytes:    limits.MemoryBytes,
		RecursionDepth: uint64(limits.RecursionDepth),
	}}
}
