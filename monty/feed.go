package monty

import (
	"context"
	"errors"
	"math"
	"time"

	"github.com/backyard-ls/backyard-ls/monty/internal/pb"
)

// Stream of a Print segment.
type Stream int

const (
	Stdout Stream = 1
	Stderr Stream = 2
)

// FeedOptions tune one Feed.
type FeedOptions struct {
	// Fresh resets the session (Reset, Configure) before running, so the
	// code sees an empty namespace. Pipelined with the feed.
	Fresh bool
	// OnPrint receives output as the worker flushes it. Segments split
	// lines arbitrarily; concatenate them.
	OnPrint func(stream Stream, text string)
	// OnSent, when set, is called once the feed's request is written,
	// before the worker's answer is read.
	OnSent func()
	// Input, when set, answers input(): the line, else nil and whether the
	// cell gets KeyboardInterrupt (the question was dismissed) rather than
	// EOFError. ctx ends when the feed is stopped. Without Input, input()
	// raises EOFError at once. The prompt and the answer are printed to
	// stdout (the worker does not print the prompt), as a console shows
	// them.
	Input func(ctx context.Context, prompt string) (line *string, interrupt bool)
	// NoStdin, without Input, makes input() raise StdinNotImplementedError
	// before its prompt is printed, as IPython's kernel does for a front
	// end that gives no stdin (a caught one's type shows as Exception).
	NoStdin bool
	// Inputs are values bound as globals before the code runs, and
	// Functions host functions bound under their names (see Func); both
	// persist like any global.
	Inputs    map[string]any
	Functions map[string]Func
}

// Frame is one traceback frame; lines and columns are 1-based and relative
// to the fed code when File is "<python-input-N>".
type Frame struct {
	File      string
	Line, Col int
	EndLine   int
	EndCol    int
	Name      string // "" for module level
	Preview   string
}

// Exception is a Python exception that ended a feed.
type Exception struct {
	Type    string // e.g. "ZeroDivisionError"
	Message string
	Frames  []Frame // outermost first
}

// Outcome of a feed that the worker answered.
type Outcome struct {
	// Value of the trailing expression (None when the cell ends in a
	// statement); nil when the feed raised.
	Value *Value
	// Exception raised by the code, or by a limit (TimeoutError,
	// MemoryError); nil on success.
	Exception *Exception
	// TypingError holds type-checker diagnostics when type checking is on.
	TypingError string
	// Undefined lists the global names the code read that were not defined.
	Undefined []string
	// Micros is the bytecode time the feed used, as counted by the worker.
	Micros uint64
	// Interrupted: ctx ended while the code waited on the host, and the
	// code got its KeyboardInterrupt (it may have caught it).
	Interrupted bool
	// TimedOut: after that, a sleep reached ctx's deadline, which ended
	// the feed (with a KeyboardInterrupt the code could not catch).
	TimedOut bool
}

// ErrInterrupted is the cause used when a feed waiting on the host (a
// sleep) is stopped in-band; the session survives.
var ErrInterrupted = errors.New("interrupted")

// Feed runs one cell in the session, answering the worker's suspensions
// (sleeps are waited out, imports of modules the worker lacks, OS calls and
// undefined names are refused the way CPython without them would fail).
//
// Cancelling ctx stops the code: while Python is running the worker is
// killed (its session is lost; the error is context.Cause(ctx)); while it is
// suspended on the host (time.sleep, a host function), a KeyboardInterrupt
// is raised in-band and the outcome says so. Running code gets a short
// grace to reach the host first. An *InputError means inputs
// that cannot cross (nothing ran). Any other error means the worker is
// unusable: a *CrashError when it died, a *ProtocolError when it broke the
// protocol.
func (w *Worker) Feed(ctx context.Context, code string, opt FeedOptions) (Outcome, error) {
	var out Outcome
	eof := false         // input() was answered with the EOFError stand-in
	interrupted := false // the KeyboardInterrupt of ctx's end was raised
	reqs := make([]*pb.ParentRequest, 0, 4)
	if opt.Fresh {
		reqs = append(reqs, &pb.ParentRequest{Kind: &pb.ParentRequest_Reset_{Reset_: &pb.Reset{}}}, configure(w.cfg))
		w.cwdSent = false
	}
	fr, err := feedRequest(code, opt)
	if err != nil {
		return out, &InputError{Err: err}
	}
	if !w.cwdSent {
		// A new session starts in Config.Cwd; later feeds keep where the
		// code went with os.chdir.
		fr.GetFeed().Cwd = w.cfg.Cwd
		w.cwdSent = true
	}
	reqs = append(reqs, fr)

	gen := w.setPhase(phaseRunning, true)
	defer w.setPhase(phaseIdle, false)
	stop := context.AfterFunc(ctx, func() { w.stopRunning(gen) })
	defer stop()
	fail := func(err error) (Outcome, error) {
		if ctx.Err() != nil {
			return out, context.Cause(ctx)
		}
		return out, err
	}
	if err := w.send(reqs...); err != nil {
		return fail(err)
	}
	if opt.OnSent != nil {
		opt.OnSent()
	}
	// Replies to the pipelined Reset and Configure come first.
	for range reqs[:len(reqs)-1] {
		ev, err := w.next()
		if err != nil {
			return fail(err)
		}
		if ev.GetOk() == nil {
			return fail(unexpected("Reset/Configure", ev))
		}
	}
	for {
		ev, err := w.next()
		if err != nil {
			return fail(err)
		}
		var resume *pb.ParentRequest
		switch k := ev.Kind.(type) {
		case *pb.ChildEvent_Print:
			if opt.OnPrint != nil {
				for _, s := range k.Print.Segments {
					opt.OnPrint(Stream(s.Stream), s.Text)
				}
			}
			continue
		case *pb.ChildEvent_Complete:
			out.Value = &Value{nodes: k.Complete.GetValues().GetNodes(), root: k.Complete.Value}
			out.Micros = ev.FeedExecutionMicros
			out.Interrupted = interrupted
			return out, nil
		case *pb.ChildEvent_Error:
			out.Exception = exceptionFrom(k.Error.Exception)
			out.Interrupted = interrupted
			if eof && out.Exception.Type == eofStandIn {
				switch out.Exception.Message {
				case eofMessage:
					out.Exception.Type = "EOFError"
				case noStdinMessage:
					out.Exception.Type = "StdinNotImplementedError"
				}
			}
			out.Micros = ev.FeedExecutionMicros
			return out, nil
		case *pb.ChildEvent_TypingError:
			out.TypingError = k.TypingError.Diagnostics
			return out, nil
		case *pb.ChildEvent_NameLookup:
			out.Undefined = append(out.Undefined, k.NameLookup.Name)
			resume = &pb.ParentRequest{Kind: &pb.ParentRequest_ResumeNameLookup{ResumeNameLookup: &pb.ResumeNameLookup{Kind: &pb.ResumeNameLookup_Undefined{Undefined: &pb.Unit{}}}}}
		case *pb.ChildEvent_FunctionCall:
			var raisedEOF bool
			resume, raisedEOF = w.functionCall(ctx, k.FunctionCall, opt, &interrupted)
			eof = eof || raisedEOF
		case *pb.ChildEvent_OsCall:
			var timedOut bool
			resume, timedOut, err = w.osCall(ctx, k.OsCall, &interrupted)
			if err != nil {
				return fail(err)
			}
			out.TimedOut = out.TimedOut || timedOut
		case *pb.ChildEvent_ResolveFutures:
			resume = abort("RuntimeError", "backyard-ls provides no asynchronous host functions")
		default:
			return fail(unexpected("Feed", ev))
		}
		if err := w.send(resume); err != nil {
			return fail(err)
		}
	}
}

// Monty has no EOFError (and refuses it from the host): input() without an
// answer raises this stand-in, which a feed ending in it reports as
// EOFError. Like EOFError it is caught by `except Exception`.
const (
	eofStandIn = "Exception"
	eofMessage = "EOF when reading a line"
	// IPython's StdinNotImplementedError has the same stand-in.
	noStdinMessage = "raw_input was called, but this frontend does not support input requests."
)

// functionCall answers a call of a name the sandbox lacks. exit() and
// quit() raise SystemExit, as CPython's site builtins do; input() asks
// opt.Input; anything else is a NameError. eof reports the EOFError
// stand-in.
func (w *Worker) functionCall(ctx context.Context, fc *pb.FunctionCall, opt FeedOptions, interrupted *bool) (resume *pb.ParentRequest, eof bool) {
	arg := func(i int) *Value {
		if i >= len(fc.Args) {
			return nil
		}
		return &Value{nodes: fc.GetValues().GetNodes(), root: fc.Args[i]}
	}
	raise := func(typ, msg string) *pb.ParentRequest {
		e := &pb.RaisedException{ExcType: typ}
		if msg != "" {
			e.Message = &msg
		}
		return resumeCall(fc.CallId, &pb.ExtFunctionResult{Kind: &pb.ExtFunctionResult_Error{Error: e}}, nil)
	}
	if fc.ObjectId != nil {
		return resumeCall(fc.CallId, &pb.ExtFunctionResult{Kind: &pb.ExtFunctionResult_NotFound{NotFound: fc.FunctionName}}, nil), false
	}
	if f := opt.Functions[fc.FunctionName]; f != nil {
		return w.hostFunction(ctx, fc, f, interrupted), false
	}
	switch fc.FunctionName {
	case "exit", "quit":
		msg := "" // str(SystemExit()) is empty
		if a := arg(0); a != nil {
			msg = a.str()
		}
		return raise("SystemExit", msg), false
	case "input":
		if opt.Input == nil && opt.NoStdin {
			return raise(eofStandIn, noStdinMessage), true
		}
		prompt := ""
		if a := arg(0); a != nil {
			prompt = a.str()
		}
		if opt.OnPrint != nil && prompt != "" {
			opt.OnPrint(Stdout, prompt) // as CPython does, even with no stdin
		}
		if opt.Input == nil {
			return raise(eofStandIn, eofMessage), true
		}
		var line *string
		interrupt := true
		if ctx.Err() == nil {
			w.hostPhase(phaseHost, *interrupted)
			line, interrupt = opt.Input(ctx, prompt)
		}
		if ctx.Err() != nil {
			if !*interrupted {
				*interrupted = true
				w.hostPhase(phaseHandled, false)
			}
			return raise("KeyboardInterrupt", ""), false
		}
		w.hostPhase(phaseRunning, *interrupted)
		switch {
		case line != nil:
			if opt.OnPrint != nil {
				opt.OnPrint(Stdout, *line+"\n")
			}
			str := &pb.Arena{NodeCount: 1, Nodes: []*pb.MontyNode{{Kind: &pb.MontyNode_Str{Str: *line}}}}
			return resumeCall(fc.CallId, &pb.ExtFunctionResult{Kind: &pb.ExtFunctionResult_ReturnValue{ReturnValue: 0}}, str), false
		case interrupt:
			return raise("KeyboardInterrupt", "Interrupted by user"), false
		}
		return raise(eofStandIn, eofMessage), true
	}
	// No host functions: a call of an undefined name is a NameError.
	return resumeCall(fc.CallId, &pb.ExtFunctionResult{Kind: &pb.ExtFunctionResult_NotFound{NotFound: fc.FunctionName}}, nil), false
}

// osCall answers an OS call. Sleeps are waited out on the host (that is
// where an interrupt can stop them in-band); the others are served by
// osHost (os.go).
//
// An interrupt (ctx's end) during a sleep raises a KeyboardInterrupt the
// cell can catch, as a SIGINT does in CPython; there is one per feed. A
// sleep after it (in the handler, or in a loop that caught it) sleeps as
// asked, but not past ctx's deadline, the cell's time limit: one that
// reaches it ends the feed there, with a KeyboardInterrupt the cell cannot
// catch, and timedOut set.
func (w *Worker) osCall(ctx context.Context, c *pb.OsCall, interrupted *bool) (resume *pb.ParentRequest, timedOut bool, err error) {
	var seconds float64
	switch k := c.Call.(type) {
	case *pb.OsCall_SystemSleep:
		seconds = k.SystemSleep.Seconds
	case *pb.OsCall_Sleep_:
		seconds = k.Sleep.Seconds
	case *pb.OsCall_AsyncSystemSleep:
		seconds = k.AsyncSystemSleep.Delay
	case *pb.OsCall_AsyncSleep_:
		seconds = k.AsyncSleep.Delay
	default:
		if w.cfg.onOSCall != nil {
			w.cfg.onOSCall(c)
		}
		return w.host.serve(c), false, nil
	}
	w.hostPhase(phaseHost, *interrupted)
	if w.cfg.onOSCall != nil {
		w.cfg.onOSCall(c) // the sleep is under way: an interrupt is in-band
	}
	d := sleepDuration(seconds)
	if !*interrupted {
		if ctx.Err() == nil {
			w.wait(d, ctx.Done())
		}
		if ctx.Err() != nil {
			*interrupted = true
			w.hostPhase(phaseHandled, false)
			e := &pb.RaisedException{ExcType: "KeyboardInterrupt"}
			return resumeCall(c.CallId, &pb.ExtFunctionResult{Kind: &pb.ExtFunctionResult_Error{Error: e}}, nil), false, nil
		}
	} else {
		if deadline, ok := ctx.Deadline(); ok && time.Until(deadline) < d {
			w.wait(time.Until(deadline), nil)
			return abort("KeyboardInterrupt", ""), true, nil
		}
		w.wait(d, nil)
	}
	w.hostPhase(phaseRunning, *interrupted)
	none := &pb.Arena{NodeCount: 1, Nodes: []*pb.MontyNode{{Kind: &pb.MontyNode_None{None: &pb.Unit{}}}}}
	return resumeCall(c.CallId, &pb.ExtFunctionResult{Kind: &pb.ExtFunctionResult_ReturnValue{ReturnValue: 0}}, none), false, nil
}

// sleepDuration is time.sleep's argument as a duration (the worker has
// refused negative and non-finite ones); one past what a Duration holds
// sleeps as long as it can.
func sleepDuration(seconds float64) time.Duration {
	switch {
	case !(seconds > 0):
		return 0
	case seconds >= float64(math.MaxInt64/int64(time.Second)):
		return math.MaxInt64
	}
	return time.Duration(seconds * float64(time.Second))
}

// wait sleeps for d, less when stop closes or the worker dies (a kernel
// stopped while its cell sleeps).
func (w *Worker) wait(d time.Duration, stop <-chan struct{}) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-stop:
	case <-w.exited:
	}
}

func resumeCall(id uint32, r *pb.ExtFunctionResult, values *pb.Arena) *pb.ParentRequest {
	return &pb.ParentRequest{Kind: &pb.ParentRequest_ResumeCall{ResumeCall: &pb.ResumeCall{CallId: id, Result: r, Values: values}}}
}

func abort(excType, msg string) *pb.ParentRequest {
	e := &pb.RaisedException{ExcType: excType}
	if msg != "" {
		e.Message = &msg
	}
	return &pb.ParentRequest{Kind: &pb.ParentRequest_AbortFeed{AbortFeed: &pb.AbortFeed{Exception: e}}}
}

func exceptionFrom(e *pb.RaisedException) *Exception {
	x := &Exception{Type: e.GetExcType(), Message: e.GetMessage()}
	for _, f := range e.GetTraceback() {
		x.Frames = append(x.Frames, Frame{
			File: f.Filename, Line: int(f.GetStart().GetLine()), Col: int(f.GetStart().GetColumn()),
			EndLine: int(f.GetEnd().GetLine()), EndCol: int(f.GetEnd().GetColumn()),
			Name: f.GetFrameName(), Preview: f.GetPreviewLine(),
		})
	}
	return x
}

// Dump snapshots the session; the bytes restore it with Load in a fresh
// worker (or after Reset).
func (w *Worker) Dump() ([]byte, error) {
	ev, err := w.roundTrip(&pb.ParentRequest{Kind: &pb.ParentRequest_Dump{Dump: &pb.Dump{}}})
	if err != nil {
		return nil, err
	}
	d := ev.GetDumpResult()
	if d == nil {
		return nil, w.fail(unexpected("Dump", ev))
	}
	return d.State, nil
}

// Restore replaces the session with a snapshot from Dump (or
// Outcome.Snapshot): Reset, Configure and Load, pipelined.
func (w *Worker) Restore(state []byte) error {
	return w.reset(&pb.ParentRequest{Kind: &pb.ParentRequest_Load{Load: &pb.Load{State: state}}})
}

// Reset empties the session (Reset, then Configure).
func (w *Worker) Reset() error { return w.reset() }

func (w *Worker) reset(extra ...*pb.ParentRequest) error {
	reqs := append([]*pb.ParentRequest{{Kind: &pb.ParentRequest_Reset_{Reset_: &pb.Reset{}}}, configure(w.cfg)}, extra...)
	w.cwdSent = len(extra) > 0 // a loaded snapshot has its own working directory
	if err := w.send(reqs...); err != nil {
		return err
	}
	for range reqs {
		if err := w.okReply("Reset/Configure/Load"); err != nil {
			return err
		}
	}
	return nil
}

// okReply reads the worker's Ok to a request (what names it).
func (w *Worker) okReply(what string) error {
	ev, err := w.next()
	if err != nil {
		return err
	}
	if ev.GetOk() == nil {
		if e := ev.GetError(); e != nil {
			return &ProtocolError{Msg: "worker refused the request: " + e.GetException().GetMessage()}
		}
		return w.fail(unexpected(what, ev))
	}
	return nil
}
