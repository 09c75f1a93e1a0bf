package container

import (
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

// frameDecoder cuts a byte stream into frame bodies. It is an io.Writer so
// that stdcopy can feed it the container's stdout directly; emit gets each
// body (valid only during the call) in order.
type frameDecoder struct {
	buf  []byte
	emit func(body []byte) error
}

// Write implements io.Writer. It fails on a corrupt stream or when emit
// fails.
func (d *frameDecoder) Write(p []byte) (int, error) {
	d.buf = append(d.buf, p...)
	for len(d.buf) >= 4 {
		n := binary.BigEndian.Uint32(d.buf)
		if n > maxFrame {
			return 0, fmt.Errorf("corrupt driver stream: frame length %d", n)
		}
		if len(d.buf) < 4+int(n) {
			break
		}
		if err := d.emit(d.buf[4 : 4+n]); err != nil {
			return 0, err
		}
		d.buf = d.buf[4+n:]
	}
	if len(d.buf) == 0 {
		d.buf = d.buf[:0:0] // drop a large backing array once consumed
	}
	return len(p), nil
}
