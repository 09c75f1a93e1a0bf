package container

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
)

func TestFrameRoundTripAnySplit(t *testing.T) {
	var stream []byte
	want := []message{
		{T: msgExec, ID: 1, Code: "print('é')\n"},
		{T: msgOut, S: "stdout", D: strings.Repeat("x", 70000)},
		{T: msgDone, ID: 1, Status: "ok", Value: &Value{Text: "1"}},
	}
	for _, m := range want {
		var err error
		if stream, err = appendFrame(stream, m); err != nil {
			t.Fatal(err)
		}
	}
	for _, chunk := range []int{1, 3, 4096, len(stream)} {
		var got []message
		d := &frameDecoder{emit: func(b []byte) error {
			var m message
			err := json.Unmarshal(b, &m)
			got = append(got, m)
			return err
		}}
		for i := 0; i < len(stream); i += chunk {
			if _, err := d.Write(stream[i:min(len(stream), i+chunk)]); err != nil {
				t.Fatal(err)
			}
		}
		if len(got) != 3 || got[0].Code != want[0].Code || got[1].D != want[1].D || got[2].Value.Text != "1" || len(d.buf) != 0 {
			t.Fatalf("chunk %d: %d frames", chunk, len(got))
		}
	}
}

func TestFrameDecoderRejectsCorruptLength(t *testing.T) {
	d := &frameDecoder{emit: func([]byte) error { return nil }}
	b := binary.BigEndian.AppendUint32(nil, maxFrame+1)
	if _, err := d.Write(append(b, "{}"...)); err == nil {
		t.Fatal("corrupt length accepted")
	}
	if got, _ := appendFrame(nil, message{T: "x"}); !bytes.Equal(got[4:], []byte(`{"t":"x"}`)) || binary.BigEndian.Uint32(got) != 9 {
		t.Fatalf("%q", got)
	}
}

// A record the host passes to the driver (PyErrorOf) comes back as it was
// when the driver returns it.
func TestPyErrorOfRoundTrip(t *testing.T) {
	want := &contract.ExecutionError{EName: "ExceptionGroup", EValue: "g (1 sub-exception)", Notes: []string{"n"}, MoreExceptions: 2,
		Traceback: []contract.Frame{{Line: 0, Name: "<module>", Text: "cell 2:1: f()"}, {Name: "g", Text: "x", File: "m.py", FileLine: 3, Col: 1, EndLine: 1, EndCol: 2}},
		Cause:     &contract.ExecutionError{EName: "KeyError", EValue: "'k'", Traceback: []contract.Frame{}},
		Exceptions: []contract.ExecutionError{{EName: "ValueError", EValue: "v", Traceback: []contract.Frame{{Line: 2, Name: "h", Text: "raise"}},
			Context: &contract.ExecutionError{EName: "TypeError", Traceback: []contract.Frame{}}}}}
	b, err := json.Marshal(message{T: msgExec, LastError: PyErrorOf(want)})
	if err != nil {
		t.Fatal(err)
	}
	var m message
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if got := m.LastError.ExecutionError(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
	if PyErrorOf(nil) != nil {
		t.Error("PyErrorOf(nil) is not nil")
	}
}
