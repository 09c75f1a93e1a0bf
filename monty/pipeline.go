package monty

import (
	"github.com/backyard-ls/backyard-ls/monty/internal/pb"
)

// Pipeline feeds independent snippets to one worker, each in an empty
// session (Reset, Configure, Feed), sending the next ones before the
// current one has ended so that the worker never waits for the host
// between them. Outcomes come back in the order the snippets were sent.
//
// Only a snippet that runs to its end without asking the host anything
// completes this way. One that suspends (an OS call, a name lookup, a host
// function) is dropped by the worker when the next snippet's Reset arrives,
// and Receive reports it as suspended: run it again with Feed, alone, once
// the pipeline is empty. A Pipeline is not safe for concurrent use, and
// the worker must not be fed otherwise while snippets are pending.
type Pipeline struct {
	w       *Worker
	pending int
	buf     []byte            // frames sent since the last Receive
	configs map[Limits][]byte // encoded Configure frames, by limits
}

// resetFrame is the Reset request, encoded once.
var resetFrame, _ = appendFrame(nil, &pb.ParentRequest{Kind: &pb.ParentRequest_Reset_{Reset_: &pb.Reset{}}})

// Pipeline returns a pipeline on w.
func (w *Worker) Pipeline() *Pipeline { return &Pipeline{w: w, configs: map[Limits][]byte{}} }

// Pending is the number of snippets sent whose outcome was not received.
func (p *Pipeline) Pending() int { return p.pending }

// Send queues code in a fresh session under limits (zero fields take the
// worker's). Snippets sent go to the worker together, at the next Receive
// (or Flush).
func (p *Pipeline) Send(code string, limits Limits) error {
	if p.w.broken != nil {
		return p.w.broken
	}
	conf, ok := p.configs[limits]
	if !ok {
		cfg := p.w.cfg
		if limits.CellTime > 0 {
			cfg.Limits.CellTime = limits.CellTime
		}
		if limits.MemoryBytes > 0 {
			cfg.Limits.MemoryBytes = limits.MemoryBytes
		}
		if limits.RecursionDepth > 0 {
			cfg.Limits.RecursionDepth = limits.RecursionDepth
		}
		var err error
		if conf, err = appendFrame(nil, configure(cfg)); err != nil {
			return err
		}
		if len(p.configs) > 64 { // per-snippet time limits can all differ
			clear(p.configs)
		}
		p.configs[limits] = conf
	}
	buf := append(append(p.buf, resetFrame...), conf...)
	buf, err := appendFrame(buf, &pb.ParentRequest{Kind: &pb.ParentRequest_Feed{Feed: &pb.Feed{Code: code}}})
	if err != nil {
		return err
	}
	p.buf = buf
	p.pending++
	return nil
}

// Flush writes the snippets sent to the worker.
func (p *Pipeline) Flush() error {
	if len(p.buf) == 0 {
		return nil
	}
	w := p.w
	buf := p.buf
	p.buf = p.buf[:0]
	if w.broken != nil {
		return w.broken
	}
	if _, err := w.stdin.Write(buf); err != nil {
		return w.fail(err)
	}
	return nil
}

// Receive waits for the outcome of the oldest pending snippet. suspended
// reports that it stopped to ask the host (see Pipeline). To stop a
// Receive, Kill the worker (from any goroutine): an error means the worker
// is unusable and every pending snippet is lost. A Receive costs no timer
// and no context: a batch's lane watches all its snippets with one.
func (p *Pipeline) Receive(onPrint func(Stream, string)) (out Outcome, suspended bool, err error) {
	defer func() {
		if err != nil {
			p.pending = 0
		}
	}()
	w := p.w
	if err := p.Flush(); err != nil {
		return out, false, err
	}
	p.pending--
	for range 2 { // the Reset's and the Configure's
		ev, err := w.next()
		if err != nil {
			return out, false, err
		}
		if ev.GetOk() == nil {
			return out, false, w.fail(unexpected("Reset/Configure", ev))
		}
	}
	for {
		ev, err := w.next()
		if err != nil {
			return out, false, err
		}
		switch k := ev.Kind.(type) {
		case *pb.ChildEvent_Print:
			if onPrint != nil {
				for _, s := range k.Print.Segments {
					onPrint(Stream(s.Stream), s.Text)
				}
			}
		case *pb.ChildEvent_Complete:
			out.Value = &Value{nodes: k.Complete.GetValues().GetNodes(), root: k.Complete.Value}
			out.Micros = ev.FeedExecutionMicros
			return out, false, nil
		case *pb.ChildEvent_Error:
			out.Exception = exceptionFrom(k.Error.Exception)
			out.Micros = ev.FeedExecutionMicros
			return out, false, nil
		case *pb.ChildEvent_TypingError:
			out.TypingError = k.TypingError.Diagnostics
			return out, false, nil
		case *pb.ChildEvent_NameLookup, *pb.ChildEvent_FunctionCall, *pb.ChildEvent_OsCall, *pb.ChildEvent_ResolveFutures:
			return out, true, nil
		default:
			return out, false, w.fail(unexpected("Feed", ev))
		}
	}
}
