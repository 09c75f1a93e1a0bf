package container

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
)

// The driver protocol frames every message as a 4-byte big-endian length
// followed by that many bytes of UTF-8 JSON, in both directions: requests
// on the container's stdin, events on its stdout.

// maxFrame bounds one frame (a cell's source or a value's MIME bundle); a
// larger length means the stream is corrupt.
const maxFrame = 256 << 20

// appendFrame appends the frame of v to dst.
func appendFrame(dst []byte, v any) ([]byte, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	if len(body) > maxFrame {
		return dst, fmt.Errorf("frame of %d bytes exceeds the %d-byte limit", len(body), maxFrame)
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(body)))
	return append(dst, body...), nil
}

// keyBytes is the size of a kernel channel's key. The host draws one per
// container and sends it as its first frame; every frame the driver writes
// starts with it (after the length), so bytes a cell writes to the
// channel's descriptor are caught as not the driver's.
const keyBytes = 16

// ChannelError is a frame on a container's channel that its runtime did not
// write: a wrong key, a bad length, a body that is not a message. The
// stream cannot be followed after it.
type ChannelError struct{ Why string }

func (e *ChannelError) Error() string { return e.Why }

// frameDecoder cuts a byte stream into frame bodies. It is an io.Writer so
// that stdcopy can feed it the container's stdout directly; emit gets each
// body (valid only during the call) in order.
type frameDecoder struct {
	buf []byte
	// key, when set, starts every frame's body; it is checked as soon as
	// its bytes arrive (before a forged length could make the decoder wait)
	// and removed.
	key  []byte
	emit func(body []byte) error
}

// Write implements io.Writer. It fails with a *ChannelError on a corrupt
// stream, or with the error of emit.
func (d *frameDecoder) Write(p []byte) (int, error) {
	d.buf = append(d.buf, p...)
	for len(d.buf) >= 4 {
		n := binary.BigEndian.Uint32(d.buf)
		if d.key != nil {
			have := min(len(d.buf)-4, len(d.key))
			if n < uint32(len(d.key)) || !bytes.Equal(d.buf[4:4+have], d.key[:have]) {
				return 0, &ChannelError{Why: "a frame without the channel's key"}
			}
		}
		if n > maxFrame {
			return 0, &ChannelError{Why: fmt.Sprintf("a frame length of %d bytes", n)}
		}
		if len(d.buf) < 4+int(n) {
			break
		}
		if err := d.emit(d.buf[4+len(d.key) : 4+n]); err != nil {
			return 0, err
		}
		d.buf = d.buf[4+n:]
	}
	if len(d.buf) == 0 {
		d.buf = d.buf[:0:0] // drop a large backing array once consumed
	}
	return len(p), nil
}
