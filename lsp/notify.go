package lsp

import (
	"fmt"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/kernel"
)

// Custom notifications from the server (DESIGN.md, "LSP contract").
const (
	methodOutput         = "backyard/output"
	methodExecutionState = "backyard/executionState"
	methodKernelState    = "backyard/kernelState"
)

// outputParams: backyard/output {uri, executionId, stream, text}. Output
// arrives in order, in batches (not line by line), and stops after the
// output limit (the kernel adds a truncation marker).
type outputParams struct {
	URI         string        `json:"uri"`
	ExecutionID string        `json:"executionId"`
	Stream      kernel.Stream `json:"stream"`
	Text        string        `json:"text"`
}

// executionStateParams: backyard/executionState {uri, executionId, range,
// state, execution?}. Every execution goes queued → running → done; one
// that never ran (skipped after an error, dropped by an interrupt, restart
// or close) goes queued → done without an execution.
type executionStateParams struct {
	URI         string         `json:"uri"`
	ExecutionID string         `json:"executionId"`
	Range       protocol.Range `json:"range"`
	State       string         `json:"state"`
	Execution   *Execution     `json:"execution,omitzero"`
}

// kernelStateParams: backyard/kernelState {uri, backend, runtime, state}.
type kernelStateParams struct {
	URI     string       `json:"uri"`
	Backend string       `json:"backend"`
	Runtime string       `json:"runtime"`
	State   kernel.State `json:"state"`
}

// notify queues a notification (the stream sends it with the next response
// or within notifyDelay). It fails only when the connection is gone, which
// the server notices on its own.
func (s *server) notify(method string, params any) {
	raw, err := codec{}.Marshal(params)
	if err != nil {
		s.log.Error("cannot encode a notification", zap.String("method", method), zap.Error(err))
		return
	}
	s.stream.notify(method, raw)
}

// showMessage sends window/showMessage.
func (s *server) showMessage(typ protocol.MessageType, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.log.Info("showMessage", zap.String("message", msg))
	s.notify("window/showMessage", &protocol.ShowMessageParams{Type: typ, Message: msg})
}

func (s *server) executionState(e *execution, state string, x *Execution) {
	s.notify(methodExecutionState, &executionStateParams{URI: e.doc.uri, ExecutionID: e.id, Range: e.rng, State: state, Execution: x})
}
