package monty

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/monty/internal/pb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Snippets sent ahead come back in order, each from an empty session; one
// that asks the host (a name lookup, a sleep) is reported suspended and
// dropped without disturbing the ones behind it, and runs with Feed after.
func TestPipelineOrderAndSuspensions(t *testing.T) {
	w := start(t, Limits{})
	p := w.Pipeline()
	codes := []string{"x = 40\nx + 2", "x", "print('out')\n7", "import time\ntime.sleep(0.01)\n'slept'", "1/0", "sum(range(5))"}
	for _, c := range codes {
		if err := p.Send(c, Limits{}); err != nil {
			t.Fatal(err)
		}
	}
	if p.Pending() != len(codes) {
		t.Fatalf("pending %d", p.Pending())
	}
	var got []string
	for range codes {
		var out strings.Builder
		o, suspended, err := p.Receive(func(_ Stream, s string) { out.WriteString(s) })
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case suspended:
			got = append(got, "suspended")
		case o.Exception != nil:
			got = append(got, o.Exception.Type)
		default:
			got = append(got, out.String()+o.Value.Repr())
		}
	}
	want := []string{"42", "suspended", "out\n7", "suspended", "ZeroDivisionError", "10"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q, want %q", got, want)
	}
	// The worker is still good: a suspended snippet runs alone with Feed.
	o, err := w.Feed(context.Background(), "import time\ntime.sleep(0.01)\n'slept'", FeedOptions{Fresh: true})
	if err != nil || o.Value.Repr() != "'slept'" {
		t.Fatalf("%+v %v", o, err)
	}
}

// A suspension with nothing sent behind it leaves the worker waiting; the
// next Feed's Reset takes it out of the suspension.
func TestPipelineLastSuspended(t *testing.T) {
	w := start(t, Limits{})
	p := w.Pipeline()
	p.Send("undefined_name", Limits{})
	if _, suspended, err := p.Receive(nil); err != nil || !suspended {
		t.Fatalf("%v %v", suspended, err)
	}
	o, err := w.Feed(context.Background(), "undefined_name", FeedOptions{Fresh: true})
	if err != nil || o.Exception == nil || o.Exception.Type != "NameError" {
		t.Fatalf("%+v %v", o, err)
	}
}

// Per-snippet limits apply to that snippet only; a worker killed during a
// receive loses what was pending.
func TestPipelineLimitsAndCancel(t *testing.T) {
	w := start(t, Limits{})
	p := w.Pipeline()
	p.Send("x = 0\nwhile True:\n    x += 1", Limits{CellTime: 50 * time.Millisecond})
	p.Send("'after'", Limits{})
	o, _, err := p.Receive(nil)
	if err != nil || o.Exception == nil || o.Exception.Type != "TimeoutError" {
		t.Fatalf("%+v %v", o, err)
	}
	if o, _, err := p.Receive(nil); err != nil || o.Value.Repr() != "'after'" {
		t.Fatalf("%+v %v", o, err)
	}
	p.Send("while True:\n    pass", Limits{CellTime: time.Hour})
	p.Send("'lost'", Limits{})
	stop := time.AfterFunc(100*time.Millisecond, w.Kill)
	defer stop.Stop()
	if _, _, err := p.Receive(nil); err == nil {
		t.Fatal("a receive whose worker was killed must fail")
	}
	if p.Pending() != 0 || w.Alive() {
		t.Fatalf("pending %d, alive %v", p.Pending(), w.Alive())
	}
}

// The check every event passes: fields the schema does not declare are
// found however deep, with their path.
func TestUnknownFieldPath(t *testing.T) {
	node := &pb.MontyNode{}
	ev := &pb.ChildEvent{Kind: &pb.ChildEvent_Complete{Complete: &pb.Complete{Values: &pb.Arena{Nodes: []*pb.MontyNode{{}, node}}}}, FeedExecutionMicros: 7}
	check := func(wantPath string, wantFound bool) {
		t.Helper()
		b, err := proto.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		if p, found := undeclared(b, childEvent); p != wantPath || found != wantFound {
			t.Fatalf("got %q %v, want %q %v", p, found, wantPath, wantFound)
		}
	}
	check("", false)
	node.ProtoReflect().SetUnknown(protoreflect.RawFields{0xf8, 0x01, 0x01}) // field 31 (a str), as a varint
	check(".complete.values.nodes", true)
	node.ProtoReflect().SetUnknown(protoreflect.RawFields{0xc0, 0x3e, 0x01}) // field 1000, varint 1
	check(".complete.values.nodes", true)
	node.ProtoReflect().SetUnknown(nil)
	ev.ProtoReflect().SetUnknown(protoreflect.RawFields{0xa2, 0x06, 0x01, 0x00}) // field 100, one byte
	check("", true)
}

// readFrame reads an event with fields the schema does not declare
// without them, and says that it held some.
func TestReadFrameNoticesUnknownFields(t *testing.T) {
	node := &pb.MontyNode{Kind: &pb.MontyNode_Str{Str: "x"}}
	ev := &pb.ChildEvent{Kind: &pb.ChildEvent_Complete{Complete: &pb.Complete{Values: &pb.Arena{NodeCount: 1, Nodes: []*pb.MontyNode{node}}}}}
	frame := func() []byte {
		body, err := proto.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		return append(binary.LittleEndian.AppendUint32(nil, uint32(len(body))), body...)
	}
	got, _, unknown, err := readFrame(bufio.NewReader(bytes.NewReader(frame())), nil)
	if err != nil || unknown || got.GetComplete().GetValues().GetNodes()[0].GetStr() != "x" {
		t.Fatalf("%v %v %v", got, unknown, err)
	}
	for _, raw := range []protoreflect.RawFields{{0xc0, 0x3e, 0x01}, {0xf8, 0x01, 0x01}} { // field 1000; a declared field in another wire type
		node.ProtoReflect().SetUnknown(raw)
		got, _, unknown, err = readFrame(bufio.NewReader(bytes.NewReader(frame())), nil)
		if err != nil || !unknown || got.GetComplete().GetValues().GetNodes()[0].GetStr() != "x" {
			t.Fatalf("%x: %v %v %v", raw, got, unknown, err)
		}
	}
}

// A worker's fatal error in the middle of a pipeline breaks the worker
// with its message: here a stand-in that accepts its configuration, then
// answers with a FatalError.
func TestPipelineFatalError(t *testing.T) {
	frames := filepath.Join(t.TempDir(), "frames")
	var b []byte
	for _, ev := range []*pb.ChildEvent{okReply, {Kind: &pb.ChildEvent_FatalError{FatalError: &pb.FatalError{Message: "the heap is gone"}}}} {
		body, err := proto.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		b = append(binary.LittleEndian.AppendUint32(b, uint32(len(body))), body...)
	}
	if err := os.WriteFile(frames, b, 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "fatal-worker")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n/bin/cat "+frames+"\nexec /bin/sleep 1000\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	w, err := Start(context.Background(), Config{Binary: bin})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	p := w.Pipeline()
	p.Send("1", Limits{})
	if _, _, err := p.Receive(nil); err == nil || !strings.Contains(err.Error(), "worker fatal error: the heap is gone") {
		t.Fatalf("got %v", err)
	}
	if w.Alive() || p.Pending() != 0 {
		t.Fatalf("alive %v, pending %d", w.Alive(), p.Pending())
	}
}
