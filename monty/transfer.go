package monty

import (
	"encoding/binary"
	"io"

	"github.com/backyard-ls/backyard-ls/monty/internal/pb"
	"google.golang.org/protobuf/encoding/protowire"
)

// The tags a snapshot crosses under: a ChildEvent's dump_result (9), its
// DumpResult's state (1), a ParentRequest's load (8), its Load's state (1).
var (
	dumpResultTag = protowire.AppendTag(nil, 9, protowire.BytesType)
	stateTag      = protowire.AppendTag(nil, 1, protowire.BytesType)
	loadTag       = protowire.AppendTag(nil, 8, protowire.BytesType)
)

// DumpInto snapshots w's session into dst (Dump in w; Reset, Configure and
// Load in dst): dst's session becomes w's, and w is unchanged. The
// snapshot goes from one worker's pipe to the other's without being held
// whole on the host (it can be as large as the session's heap). Both
// workers must be idle; a failure leaves dst unusable (it is then broken,
// as by any failed request).
func (w *Worker) DumpInto(dst *Worker) error {
	if err := dst.reset(); err != nil {
		return err
	}
	if err := w.send(&pb.ParentRequest{Kind: &pb.ParentRequest_Dump{Dump: &pb.Dump{}}}); err != nil {
		return err
	}
	// A dump result starts with its state: stream it. Anything else (an
	// error, a layout this reader does not expect) is read whole.
	hdr, err := w.stdout.Peek(4 + len(dumpResultTag))
	if err != nil || string(hdr[4:]) != string(dumpResultTag) {
		ev, err := w.next()
		if err != nil {
			return err
		}
		d := ev.GetDumpResult()
		if d == nil {
			return w.fail(unexpected("Dump", ev))
		}
		if err := dst.send(&pb.ParentRequest{Kind: &pb.ParentRequest_Load{Load: &pb.Load{State: d.State}}}); err != nil {
			return err
		}
		return dst.loaded()
	}
	size := int64(binary.LittleEndian.Uint32(hdr[:4]))
	w.stdout.Discard(4 + len(dumpResultTag))
	if err := w.streamState(dst, size-int64(len(dumpResultTag))); err != nil {
		return err
	}
	return dst.loaded()
}

// loaded reads the answer to a Load.
func (w *Worker) loaded() error {
	if err := w.okReply("Load"); err != nil {
		return err
	}
	w.cwdSent = true // a loaded snapshot has its own working directory
	return nil
}

// streamState reads the rest of a dump result event (rest bytes after its
// tag) from w and writes its state to dst as a Load request.
func (w *Worker) streamState(dst *Worker, rest int64) error {
	r := &countingReader{r: w.stdout}
	bad := func(what string) error { return w.fail(&ProtocolError{Msg: "snapshot event: " + what}) }
	result, err := binary.ReadUvarint(r) // the DumpResult's length
	if err != nil {
		return w.fail(err)
	}
	tag := make([]byte, len(stateTag))
	if result == 0 {
		return bad("no state")
	}
	if _, err := io.ReadFull(r, tag); err != nil || string(tag) != string(stateTag) {
		return bad("state not first")
	}
	n, err := binary.ReadUvarint(r)
	if err != nil || n > MaxFrame {
		return bad("state length")
	}
	load := protowire.AppendVarint(append([]byte(nil), stateTag...), n)
	frame := int(n) + len(load)
	req := protowire.AppendVarint(append([]byte(nil), loadTag...), uint64(frame))
	frame += len(req)
	buf := binary.LittleEndian.AppendUint32(nil, uint32(frame))
	buf = append(append(buf, req...), load...)
	if _, err := dst.stdin.Write(buf); err != nil {
		return dst.fail(err)
	}
	if _, err := io.CopyN(dst.stdin, r, int64(n)); err != nil {
		// Which side failed is unknown: neither can go on.
		dst.fail(err)
		return w.fail(err)
	}
	// What follows the state in the event (other fields) is not needed.
	if left := rest - r.n; left > 0 {
		if _, err := io.CopyN(io.Discard, w.stdout, left); err != nil {
			return w.fail(err)
		}
	} else if left < 0 {
		return bad("longer than its frame")
	}
	return nil
}

type countingReader struct {
	r interface {
		io.Reader
		io.ByteReader
	}
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		c.n++
	}
	return b, err
}
