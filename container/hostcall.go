package container

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/backyard-ls/backyard-ls/internal/jsonval"
)

// HostFunc runs a host function a cell called (see ExecRequest.OnCall).
type HostFunc func(ctx context.Context, name string, args []any, kwargs map[string]any) (any, error)

// callReply answers a driver's call frame.
type callReply struct {
	T      string          `json:"t"` // "return" or "raise"
	Call   uint64          `json:"call"`
	Result json.RawMessage `json:"result,omitempty"`
	EName  string          `json:"ename,omitempty"`
	EValue string          `json:"evalue,omitempty"`
}

// answer runs the host function of call frame m and sends its reply. A
// *PyError raises its own exception type in the cell, any other error a
// RuntimeError.
func (s *Session) answer(ctx context.Context, m message, on HostFunc) error {
	reply := callReply{T: msgRaise, Call: m.Call, EName: "RuntimeError"}
	v, err := s.callHost(ctx, m, on)
	var pe *PyError
	switch {
	case errors.As(err, &pe):
		reply.EName, reply.EValue = pe.EName, pe.EValue
	case err != nil:
		reply.EValue = err.Error()
	default:
		b, err := jsonval.Encode(v)
		if err != nil {
			reply.EName, reply.EValue = "TypeError", fmt.Sprintf("%s() returned a value that %v", m.Name, err)
		} else {
			reply = callReply{T: msgReturn, Call: m.Call, Result: b}
		}
	}
	return s.send(reply)
}

func (s *Session) callHost(ctx context.Context, m message, on HostFunc) (v any, err error) {
	if on == nil {
		return nil, &PyError{EName: "NameError", EValue: fmt.Sprintf("name '%s' is not defined", m.Name)}
	}
	args, _ := jsonval.Decode(orNull(m.Args))
	kwargs, _ := jsonval.Decode(orNull(m.Kwargs))
	a, _ := args.([]any)
	kw, _ := kwargs.(map[string]any)
	if kw == nil {
		kw = map[string]any{}
	}
	defer func() {
		if p := recover(); p != nil {
			v, err = nil, fmt.Errorf("host function panicked: %v", p)
		}
	}()
	return on(ctx, m.Name, a, kw)
}

func orNull(b json.RawMessage) []byte {
	if len(b) == 0 {
		return []byte("null")
	}
	return b
}

// encodeInputs is the inputs object of an exec request.
func encodeInputs(inputs map[string]any) (json.RawMessage, error) {
	if len(inputs) == 0 {
		return nil, nil
	}
	m := make(map[string]any, len(inputs))
	for k, v := range inputs {
		m[k] = v
	}
	return jsonval.Encode(m)
}

// Error makes a PyError an error a HostFunc can return to raise it.
func (e *PyError) Error() string {
	if e.EValue == "" {
		return e.EName
	}
	return e.EName + ": " + e.EValue
}
