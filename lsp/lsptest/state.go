package lsptest

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"

	"github.com/backyard-ls/backyard-ls/contract"
)

// State is what the client knows: its documents, and what the server sent
// and asked. Expectations read it while the client holds its lock; outside
// a Check use the Client's accessors.
type State struct {
	// Documents are the open documents by URI.
	Documents map[string]*Document
	// Initialize is the server's initialize result (nil before).
	Initialize *protocol.InitializeResult
	// Diagnostics are the last published diagnostics by URI.
	Diagnostics map[string][]protocol.Diagnostic
	// Executions are the backyard/executionState notifications by
	// execution id, in order.
	Executions map[string][]*contract.ExecutionStateParams
	// Kernels is the last backyard/kernelState by URI.
	Kernels map[string]*contract.KernelStateParams
	// Work is the work-done progress by token.
	Work map[string]*Work
	// Registrations are the capabilities the server registered, by id.
	Registrations map[string]protocol.Registration
	// Pending are the server's requests not answered yet, by Seq.
	Pending map[int]Message
	// Settings are what the client answers workspace/configuration, by
	// section.
	Settings map[string]jsontext.Value

	messages []Message // from Seq messages[0].Seq on (Forget drops older)
	next     int       // Seq of the next message
	from     int       // messages before this Seq are not seen (After)
}

// Work is one work-done progress token.
type Work struct {
	Token string
	// Created by window/workDoneProgress/create (server-initiated).
	Created bool
	Title   string
	Begun   bool
	Ended   bool
	// Message is the last message of begin, report or end.
	Message string
}

func newState() State {
	return State{
		Documents:     map[string]*Document{},
		Diagnostics:   map[string][]protocol.Diagnostic{},
		Executions:    map[string][]*contract.ExecutionStateParams{},
		Kernels:       map[string]*contract.KernelStateParams{},
		Work:          map[string]*Work{},
		Registrations: map[string]protocol.Registration{},
		Pending:       map[int]Message{},
		Settings:      map[string]jsontext.Value{},
	}
}

// decodeParams decodes the params of the methods the server sends into
// their types; nil for others.
func decodeParams(method string, params []byte) any {
	var v any
	switch method {
	case protocol.MethodTextDocumentPublishDiagnostics:
		v = &protocol.PublishDiagnosticsParams{}
	case protocol.MethodWindowShowMessage:
		v = &protocol.ShowMessageParams{}
	case protocol.MethodWindowShowMessageRequest:
		v = &protocol.ShowMessageRequestParams{}
	case protocol.MethodWindowLogMessage:
		v = &protocol.LogMessageParams{}
	case protocol.MethodProgress:
		v = &protocol.ProgressParams{}
	case protocol.MethodWindowWorkDoneProgressCreate:
		v = &protocol.WorkDoneProgressCreateParams{}
	case protocol.MethodClientRegisterCapability:
		v = &protocol.RegistrationParams{}
	case protocol.MethodClientUnregisterCapability:
		v = &protocol.UnregistrationParams{}
	case protocol.MethodWorkspaceConfiguration:
		v = &protocol.ConfigurationParams{}
	case protocol.MethodWorkspaceApplyEdit:
		v = &protocol.ApplyWorkspaceEditParams{}
	case protocol.MethodWindowShowDocument:
		v = &protocol.ShowDocumentParams{}
	case contract.MethodOutput:
		v = &contract.OutputParams{}
	case contract.MethodExecutionState:
		v = &contract.ExecutionStateParams{}
	case contract.MethodKernelState:
		v = &contract.KernelStateParams{}
	default:
		return nil
	}
	if protocol.Unmarshal(params, v) != nil {
		return nil
	}
	return v
}

// observe records m and returns it with its Seq.
func (s *State) observe(m Message) Message {
	m.Seq = s.next
	s.next++
	s.messages = append(s.messages, m)
	if m.Call {
		s.Pending[m.Seq] = m
	}
	switch p := m.Value.(type) {
	case *protocol.PublishDiagnosticsParams:
		s.Diagnostics[string(p.URI)] = p.Diagnostics
	case *contract.ExecutionStateParams:
		s.Executions[p.ExecutionID] = append(s.Executions[p.ExecutionID], p)
	case *contract.KernelStateParams:
		s.Kernels[p.URI] = p
	case *protocol.WorkDoneProgressCreateParams:
		s.work(p.Token).Created = true
	case *protocol.ProgressParams:
		w := s.work(p.Token)
		var v struct {
			Kind    string  `json:"kind"`
			Title   string  `json:"title"`
			Message *string `json:"message"`
		}
		if json.Unmarshal(p.Value, &v) == nil {
			switch v.Kind {
			case "begin":
				w.Begun, w.Title = true, v.Title
			case "end":
				w.Ended = true
			}
			if v.Message != nil {
				w.Message = *v.Message
			}
		}
	case *protocol.RegistrationParams:
		for _, r := range p.Registrations {
			s.Registrations[r.ID] = r
		}
	case *protocol.UnregistrationParams:
		for _, r := range p.Unregisterations {
			delete(s.Registrations, r.ID)
		}
	}
	return m
}

func (s *State) work(t protocol.ProgressToken) *Work {
	k := TokenString(t)
	w := s.Work[k]
	if w == nil {
		w = &Work{Token: k}
		s.Work[k] = w
	}
	return w
}

// TokenString is a progress token as a string: a string token itself, an
// integer token in decimal.
func TokenString(t protocol.ProgressToken) string {
	switch t := t.(type) {
	case protocol.String:
		return string(t)
	case protocol.Integer:
		return strconv.Itoa(int(t))
	case nil:
		return ""
	}
	return fmt.Sprint(t)
}

func (s *State) forget() {
	s.messages = nil
	clear(s.Executions)
}

// since returns the retained messages from Seq mark on.
func (s *State) since(mark int) []Message {
	i, _ := slices.BinarySearchFunc(s.messages, mark, func(m Message, seq int) int { return m.Seq - seq })
	return s.messages[i:]
}

// Messages returns the messages an expectation sees: those received (and
// not forgotten) from its After mark on. Valid only during a Check.
func (s *State) Messages() []Message { return s.since(s.from) }

// ExecutionStates returns the backyard/executionState notifications for
// execution id received from the After mark on.
func (s *State) ExecutionStates(id string) []*contract.ExecutionStateParams {
	all := s.Executions[id]
	if s.from == 0 {
		return all
	}
	// Executions does not keep Seq: filter through the messages.
	var out []*contract.ExecutionStateParams
	for _, m := range s.Messages() {
		if p, ok := m.Value.(*contract.ExecutionStateParams); ok && p.ExecutionID == id {
			out = append(out, p)
		}
	}
	return out
}

// Text returns the text of an open document.
func (s *State) Text(uri string) (string, bool) {
	d, ok := s.Documents[uri]
	if !ok {
		return "", false
	}
	return d.Text, true
}

// recentMessages is how many messages String shows.
const recentMessages = 25

// String describes the state for a person reading a failed test: the
// documents, diagnostics, kernels, executions not done, progress in
// flight, pending server requests, registrations and the last messages.
func (s *State) String() string {
	var b strings.Builder
	b.WriteString("documents:\n")
	for _, uri := range slices.Sorted(maps.Keys(s.Documents)) {
		d := s.Documents[uri]
		lines := strings.SplitAfter(d.Text, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		fmt.Fprintf(&b, "  %s version %d, %d bytes, %d lines\n", uri, d.Version, len(d.Text), len(lines))
		for i, l := range lines {
			if i == 12 {
				fmt.Fprintf(&b, "    …\n")
				break
			}
			fmt.Fprintf(&b, "    %3d| %s\n", i, clip(strings.TrimRight(l, "\r\n"), 100))
		}
	}
	b.WriteString("diagnostics:\n")
	for _, uri := range slices.Sorted(maps.Keys(s.Diagnostics)) {
		fmt.Fprintf(&b, "  %s:\n", uri)
		for _, d := range s.Diagnostics[uri] {
			fmt.Fprintf(&b, "    %d:%d-%d:%d %s\n", d.Range.Start.Line, d.Range.Start.Character, d.Range.End.Line, d.Range.End.Character, Plain(d.Message))
		}
	}
	b.WriteString("kernels:\n")
	for _, uri := range slices.Sorted(maps.Keys(s.Kernels)) {
		k := s.Kernels[uri]
		fmt.Fprintf(&b, "  %s: %s %s %s\n", uri, k.Backend, k.Runtime, k.State)
	}
	b.WriteString("executions not done:\n")
	for _, id := range slices.Sorted(maps.Keys(s.Executions)) {
		st := s.Executions[id]
		if last := st[len(st)-1]; last.State != contract.PhaseDone {
			fmt.Fprintf(&b, "  %s %s (%s, lines %d-%d)\n", id, last.State, last.URI, last.Range.Start.Line, last.Range.End.Line)
		}
	}
	b.WriteString("work-done progress:\n")
	for _, k := range slices.Sorted(maps.Keys(s.Work)) {
		w := s.Work[k]
		fmt.Fprintf(&b, "  %s %q created=%t begun=%t ended=%t %s\n", k, w.Title, w.Created, w.Begun, w.Ended, w.Message)
	}
	b.WriteString("pending server requests:\n")
	for _, seq := range slices.Sorted(maps.Keys(s.Pending)) {
		m := s.Pending[seq]
		fmt.Fprintf(&b, "  [%d] %s %s\n", seq, m.Method, clip(string(m.Params), 200))
	}
	b.WriteString("registrations:\n")
	for _, id := range slices.Sorted(maps.Keys(s.Registrations)) {
		fmt.Fprintf(&b, "  %s %s\n", id, s.Registrations[id].Method)
	}
	msgs := s.messages
	fmt.Fprintf(&b, "messages (%d received, last %d):\n", s.next, min(len(msgs), recentMessages))
	for _, m := range msgs[max(0, len(msgs)-recentMessages):] {
		kind := "notification"
		if m.Call {
			kind = "request"
		}
		fmt.Fprintf(&b, "  [%d] %s %s %s\n", m.Seq, kind, m.Method, clip(string(m.Params), 300))
	}
	return b.String()
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// Plain is the text of a protocol string-or-markup union (a diagnostic's
// message, an inlay hint's label or tooltip): the string, the markup's
// value, or the label parts joined.
func Plain(v any) string {
	switch v := v.(type) {
	case protocol.String:
		return string(v)
	case *protocol.MarkupContent:
		return v.Value
	case protocol.InlayHintLabelPartSlice:
		var b strings.Builder
		for _, p := range v {
			b.WriteString(p.Value)
		}
		return b.String()
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}
