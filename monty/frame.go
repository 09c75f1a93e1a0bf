package monty

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"slices"

	"github.com/backyard-ls/backyard-ls/monty/internal/pb"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// MaxFrame is the largest frame either side accepts (256 MiB).
const MaxFrame = 256 << 20

// appendFrame appends one length-prefixed request to buf.
func appendFrame(buf []byte, req *pb.ParentRequest) ([]byte, error) {
	n := req.SizeVT()
	if n > MaxFrame {
		return buf, fmt.Errorf("request frame of %d bytes exceeds the %d-byte limit", n, MaxFrame)
	}
	start := len(buf)
	buf = binary.LittleEndian.AppendUint32(buf, uint32(n))
	buf = slices.Grow(buf, n)[:start+4+n]
	if _, err := req.MarshalToSizedBufferVT(buf[start+4:]); err != nil {
		return buf[:start], err
	}
	return buf, nil
}

// okEvent is the encoding of an Ok event with no fields, the worker's
// answer to Reset and Configure; okReply is that event, decoded once
// (events are read-only).
const okEvent = "\x52\x00"

var okReply = &pb.ChildEvent{Kind: &pb.ChildEvent_Ok{Ok: &pb.Ok{}}}

// childEvent is the schema of the events, for undeclared.
var childEvent = schemaOf((&pb.ChildEvent{}).ProtoReflect().Descriptor(), map[protoreflect.FullName]*schema{})

// readFrame reads one event. scratch is reused when large enough. unknown
// reports fields the schema does not declare: they are tolerated (an OS
// call of an unknown kind is refused to the cell), never a broken worker.
func readFrame(r *bufio.Reader, scratch []byte) (ev *pb.ChildEvent, _ []byte, unknown bool, _ error) {
	var hdr [4]byte
	if _, err := io.ReadFull(r, hdr[:]); err != nil {
		return nil, scratch, false, err
	}
	n := binary.LittleEndian.Uint32(hdr[:])
	if n > MaxFrame {
		return nil, scratch, false, &ProtocolError{Msg: fmt.Sprintf("event frame of %d bytes exceeds the %d-byte limit", n, MaxFrame)}
	}
	if cap(scratch) < int(n) {
		scratch = make([]byte, n)
	}
	b := scratch[:n]
	if _, err := io.ReadFull(r, b); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, scratch, false, err
	}
	if string(b) == okEvent {
		return okReply, scratch, false, nil
	}
	ev = &pb.ChildEvent{}
	if err := ev.UnmarshalVT(b); err != nil {
		// A declared field of another wire type (a schema that changed a
		// field's type) fails the generated decoder; the library's takes it
		// as an undeclared field, as it does any other.
		ev = &pb.ChildEvent{}
		if (proto.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(b, ev) != nil {
			return nil, scratch, false, &ProtocolError{Msg: "undecodable event: " + err.Error()}
		}
	}
	if ev.Kind == nil {
		// A kind of event this schema does not know: nothing says whether
		// it awaits an answer, so the session cannot go on.
		return nil, scratch, true, &ProtocolError{Msg: "event of a kind protocol " + fmt.Sprint(ProtocolVersion) + " does not define"}
	}
	_, unknown = undeclared(b, childEvent)
	return ev, scratch, unknown, nil
}

// schema is a message type's fields by number, for undeclared: the
// descriptors' own lookups cost more than the scan.
type schema struct {
	fields []*field // by number; nil where none is declared
}

type field struct {
	name string
	fd   protoreflect.FieldDescriptor
	sub  *schema // a message field's type
}

func schemaOf(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]*schema) *schema {
	if s := seen[md.FullName()]; s != nil {
		return s
	}
	s := &schema{}
	seen[md.FullName()] = s
	fds := md.Fields()
	for i := range fds.Len() {
		fd := fds.Get(i)
		n := int(fd.Number())
		if n >= len(s.fields) {
			s.fields = append(s.fields, make([]*field, n+1-len(s.fields))...)
		}
		f := &field{name: string(fd.Name()), fd: fd}
		if fd.Message() != nil {
			f.sub = schemaOf(fd.Message(), seen)
		}
		s.fields[n] = f
	}
	return s
}

// undeclared reports whether the encoded message b, of type s, holds
// fields the schema does not declare, however deep, and the path below s
// of the message that holds the first one: the sign of a worker speaking
// a newer schema. It reads the bytes, so it costs no decoding; bytes that
// do not parse report nothing (decoding reports them).
func undeclared(b []byte, s *schema) (string, bool) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return "", false
		}
		b = b[n:]
		var f *field
		if int(num) < len(s.fields) {
			f = s.fields[num]
		}
		if f == nil || !wireTypeOf(f.fd, typ) {
			return "", true
		}
		if f.sub != nil && typ == protowire.BytesType {
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return "", false
			}
			if at, ok := undeclared(v, f.sub); ok {
				return "." + f.name + at, true
			}
			b = b[m:]
			continue
		}
		m := protowire.ConsumeFieldValue(num, typ, b)
		if m < 0 {
			return "", false
		}
		b = b[m:]
	}
	return "", false
}

// wireTypeOf reports whether typ is a wire type fd's values are sent in.
func wireTypeOf(fd protoreflect.FieldDescriptor, typ protowire.Type) bool {
	if typ == protowire.BytesType && (fd.IsList() || fd.Message() != nil) {
		return true // a message, or a packed list
	}
	switch fd.Kind() {
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind:
		return typ == protowire.BytesType
	case protoreflect.GroupKind:
		return typ == protowire.StartGroupType
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return typ == protowire.Fixed32Type
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return typ == protowire.Fixed64Type
	}
	return typ == protowire.VarintType
}
