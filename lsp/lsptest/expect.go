package lsptest

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/contract"
)

// Verdict is what an expectation says of the client's state.
type Verdict int

const (
	// Met: the state has it.
	Met Verdict = iota
	// Unmet: not yet; a later message may bring it.
	Unmet
	// Unmeetable: it can no longer come (Await fails at once).
	Unmeetable
)

func (v Verdict) String() string {
	switch v {
	case Met:
		return "met"
	case Unmet:
		return "unmet"
	case Unmeetable:
		return "unmeetable"
	}
	return fmt.Sprintf("verdict(%d)", int(v))
}

// Expectation is a property of the client's state. Check runs with the
// client's lock held, on every change of state while an Await waits: it
// must be quick and must not call the client.
type Expectation struct {
	Check func(s *State) Verdict
	// Description is a noun phrase for the failure message.
	Description string
}

type waiter struct {
	exps    []Expectation
	verdict chan Verdict // buffered: sent once, under the lock
}

// check returns the worst verdict of exps and a line per expectation.
func check(s *State, exps []Expectation) (Verdict, string) {
	worst := Met
	var b strings.Builder
	for _, e := range exps {
		v := e.Check(s)
		worst = max(worst, v)
		fmt.Fprintf(&b, "  %s: %s\n", v, e.Description)
	}
	return worst, b.String()
}

// Await waits until every expectation is met at once. It fails when one
// becomes unmeetable, the connection ends or ctx is done; the error shows
// each expectation's verdict and the client's state.
func (c *Client) Await(ctx context.Context, exps ...Expectation) error {
	c.mu.Lock()
	switch v, summary := check(&c.state, exps); v {
	case Met:
		c.mu.Unlock()
		return nil
	case Unmeetable:
		err := fmt.Errorf("unmeetable:\n%s\nclient state:\n%s", summary, c.state.String())
		c.mu.Unlock()
		return err
	}
	w := &waiter{exps: exps, verdict: make(chan Verdict, 1)}
	c.waiters[w] = struct{}{}
	c.mu.Unlock()

	var why error
	select {
	case v := <-w.verdict:
		if v == Met {
			return nil
		}
		why = errors.New("an expectation became unmeetable")
	case <-c.conn.Done():
		why = errors.New("the connection closed")
	case <-ctx.Done():
		why = ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.waiters, w)
	v, summary := check(&c.state, exps)
	if v == Met {
		return nil
	}
	return fmt.Errorf("waiting for:\n%s(%v)\n\nclient state:\n%s", summary, why, c.state.String())
}

// After limits e to the messages received from mark (Client.Mark) on:
// expectations on messages and executions then ignore older ones.
func After(mark int, e Expectation) Expectation {
	return Expectation{
		Check: func(s *State) Verdict {
			v := *s
			v.from = mark
			return e.Check(&v)
		},
		Description: fmt.Sprintf("%s, from message %d on", e.Description, mark),
	}
}

// Not is met while e is not.
func Not(e Expectation) Expectation {
	return Expectation{
		Check: func(s *State) Verdict {
			if e.Check(s) == Met {
				return Unmet
			}
			return Met
		},
		Description: "not " + e.Description,
	}
}

// Received is met once a message matching match was received.
func Received(description string, match func(Message) bool) Expectation {
	return Expectation{
		Check: func(s *State) Verdict {
			for _, m := range s.Messages() {
				if match(m) {
					return Met
				}
			}
			return Unmet
		},
		Description: description,
	}
}

// Sent is met once the server sent a message (notification or request)
// of method.
func Sent(method string) Expectation {
	return Received("a "+method, func(m Message) bool { return m.Method == method })
}

// Requested is met once the server sent a request of method.
func Requested(method string) Expectation {
	return Received("a "+method+" request", func(m Message) bool { return m.Call && m.Method == method })
}

// Answered is met once the server sent a request of method and the client
// answered every one (what it did before answering, such as the didChange
// of an applied edit, is sent by then).
func Answered(method string) Expectation {
	return Expectation{
		Check: func(s *State) Verdict {
			for _, m := range s.Pending {
				if m.Method == method {
					return Unmet
				}
			}
			for _, m := range s.Messages() {
				if m.Call && m.Method == method {
					return Met
				}
			}
			return Unmet
		},
		Description: "answered " + method + " requests",
	}
}

// DocumentText is met while the client's text of document uri is text.
func DocumentText(uri, text string) Expectation {
	return Expectation{
		Check: func(s *State) Verdict {
			if d := s.Documents[uri]; d != nil && d.Text == text {
				return Met
			}
			return Unmet
		},
		Description: fmt.Sprintf("the text of %s is %q", uri, text),
	}
}

// ExecutionPhase is met once execution id reached phase (id "" for any
// execution). It is unmeetable when id ended without reaching it.
func ExecutionPhase(id string, phase contract.ExecutionPhase) Expectation {
	desc := fmt.Sprintf("execution %s %s", id, phase)
	if id == "" {
		desc = "an execution " + string(phase)
	}
	return Expectation{
		Check: func(s *State) Verdict {
			if id == "" {
				for _, m := range s.Messages() {
					if p, ok := m.Value.(*contract.ExecutionStateParams); ok && p.State == phase {
						return Met
					}
				}
				return Unmet
			}
			for _, p := range s.ExecutionStates(id) {
				if p.State == phase {
					return Met
				}
				if p.State == contract.PhaseDone {
					return Unmeetable
				}
			}
			return Unmet
		},
		Description: desc,
	}
}

// ExecutionDone is met once execution id is done.
func ExecutionDone(id string) Expectation { return ExecutionPhase(id, contract.PhaseDone) }

// KernelState is met once a backyard/kernelState for uri with state came.
func KernelState(uri string, state contract.KernelState) Expectation {
	return Received(fmt.Sprintf("kernel of %s %s", uri, state), func(m Message) bool {
		p, ok := m.Value.(*contract.KernelStateParams)
		return ok && p.URI == uri && p.State == state
	})
}

// Output is met once a backyard/output of execution id on stream carried
// text.
func Output(id string, stream contract.Stream, text string) Expectation {
	return Received(fmt.Sprintf("%s of %s: %q", stream, id, text), func(m Message) bool {
		p, ok := m.Value.(*contract.OutputParams)
		return ok && p.ExecutionID == id && p.Stream == stream && p.Text == text
	})
}

// OutputContains is met once the backyard/output of execution id on stream,
// put together in order, holds text (however the server batched it).
func OutputContains(id string, stream contract.Stream, text string) Expectation {
	return Expectation{
		Check: func(s *State) Verdict {
			var b strings.Builder
			for _, m := range s.Messages() {
				if p, ok := m.Value.(*contract.OutputParams); ok && p.ExecutionID == id && p.Stream == stream {
					b.WriteString(p.Text)
				}
			}
			if strings.Contains(b.String(), text) {
				return Met
			}
			return Unmet
		},
		Description: fmt.Sprintf("%s of %s holding %q", stream, id, text),
	}
}

// ShownMessage is met once a window/showMessage of type typ (0: any)
// containing text came.
func ShownMessage(typ protocol.MessageType, containing string) Expectation {
	return Received(fmt.Sprintf("a window/showMessage (type %d) containing %q", typ, containing), func(m Message) bool {
		p, ok := m.Value.(*protocol.ShowMessageParams)
		return ok && (typ == 0 || p.Type == typ) && strings.Contains(p.Message, containing)
	})
}

// Progress is met once work-done progress token has begun (ended: and
// ended).
func Progress(token string, ended bool) Expectation {
	what := "begun"
	if ended {
		what = "ended"
	}
	return Expectation{
		Check: func(s *State) Verdict {
			if w := s.Work[token]; w != nil && w.Begun && (w.Ended || !ended) {
				return Met
			}
			return Unmet
		},
		Description: fmt.Sprintf("progress %s %s", token, what),
	}
}

// CompletedWork is met once a work-done progress titled title ended.
func CompletedWork(title string) Expectation {
	return Expectation{
		Check: func(s *State) Verdict {
			for _, w := range s.Work {
				if w.Title == title && w.Ended {
					return Met
				}
			}
			return Unmet
		},
		Description: fmt.Sprintf("work-done progress %q ended", title),
	}
}

// Registered is met once the server registered a capability for method.
func Registered(method string) Expectation {
	return Expectation{
		Check: func(s *State) Verdict {
			for _, r := range s.Registrations {
				if r.Method == method {
					return Met
				}
			}
			return Unmet
		},
		Description: "a registration for " + method,
	}
}

// NoPendingRequests is met while every server request has been answered.
var NoPendingRequests = Expectation{
	Check: func(s *State) Verdict {
		if len(s.Pending) == 0 {
			return Met
		}
		return Unmet
	},
	Description: "no server request pending",
}

// Diagnostics is met once the last diagnostics published for uri (from
// the After mark on) satisfy ok.
func Diagnostics(uri, description string, ok func([]protocol.Diagnostic) bool) Expectation {
	return Expectation{
		Check: func(s *State) Verdict {
			msgs := s.Messages()
			for i := len(msgs) - 1; i >= 0; i-- {
				if p, isDiag := msgs[i].Value.(*protocol.PublishDiagnosticsParams); isDiag && string(p.URI) == uri {
					if ok(p.Diagnostics) {
						return Met
					}
					return Unmet
				}
			}
			return Unmet
		},
		Description: fmt.Sprintf("diagnostics of %s: %s", uri, description),
	}
}

// NoDiagnostics is met once empty diagnostics were published for uri.
func NoDiagnostics(uri string) Expectation {
	return Diagnostics(uri, "none", func(d []protocol.Diagnostic) bool { return len(d) == 0 })
}
