package monty

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"

	"github.com/backyard-ls/backyard-ls/monty/internal/pb"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// MaxFrame is the largest frame either side accepts (256 MiB).
const MaxFrame = 256 << 20

// appendFrame appends one length-prefixed request to buf.
func appendFrame(buf []byte, req *pb.ParentRequest) ([]byte, error) {
	start := len(buf)
	buf = append(buf, 0, 0, 0, 0)
	buf, err := proto.MarshalOptions{}.MarshalAppend(buf, req)
	if err != nil {
		return buf[:start], err
	}
	n := len(buf) - start - 4
	if n > MaxFrame {
		return buf[:start], fmt.Errorf("request frame of %d bytes exceeds the %d-byte limit", n, MaxFrame)
	}
	binary.LittleEndian.PutUint32(buf[start:], uint32(n))
	return buf, nil
}

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
	ev = &pb.ChildEvent{}
	if err := proto.Unmarshal(b, ev); err != nil {
		return nil, scratch, false, &ProtocolError{Msg: "undecodable event: " + err.Error()}
	}
	if ev.Kind == nil {
		// A kind of event this schema does not know: nothing says whether
		// it awaits an answer, so the session cannot go on.
		return nil, scratch, true, &ProtocolError{Msg: "event of a kind protocol " + fmt.Sprint(ProtocolVersion) + " does not define"}
	}
	return ev, scratch, unknownField(ev.ProtoReflect(), "ChildEvent") != "", nil
}

// unknownField returns the path of the first message holding fields the
// schema does not declare.
func unknownField(m protoreflect.Message, path string) string {
	if len(m.GetUnknown()) > 0 {
		return path
	}
	found := ""
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Message() == nil {
			return true
		}
		// The path is built only for a find: this runs on every event.
		name := string(fd.Name())
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len() && found == ""; i++ {
				found = unknownField(l.Get(i).Message(), name)
			}
		} else {
			found = unknownField(v.Message(), name)
		}
		if found != "" {
			found = path + "." + found
		}
		return found == ""
	})
	return found
}
