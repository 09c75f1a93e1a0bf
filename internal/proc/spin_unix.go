//go:build unix

package proc

import (
	"io"
	"os"
	"syscall"
	"time"
)

// SpinReader reads f, a pipe the runtime polls; a read that finds nothing
// waiting tries again for up to spin before it parks on the poller. For a
// peer that answers in tens of microseconds this keeps the reading thread
// on its CPU: parking it and waking it again cost more than the wait (a
// trivial Monty cell's round trip: 75 → 47 µs median on a 2-vCPU VM).
func SpinReader(f *os.File, spin time.Duration) io.Reader {
	rc, err := f.SyscallConn()
	if err != nil || spin <= 0 {
		return f
	}
	return &spinReader{rc: rc, spin: spin}
}

type spinReader struct {
	rc   syscall.RawConn
	spin time.Duration
}

func (r *spinReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	var n int
	var rerr error
	var until time.Time
	err := r.rc.Read(func(fd uintptr) bool {
		for {
			n, rerr = syscall.Read(int(fd), p)
			if rerr == syscall.EINTR {
				continue
			}
			if rerr != syscall.EAGAIN {
				return true
			}
			if until.IsZero() {
				until = time.Now().Add(r.spin)
			} else if time.Now().After(until) {
				return false // park on the poller
			}
		}
	})
	if err != nil {
		return 0, err
	}
	if rerr != nil {
		return 0, rerr
	}
	if n == 0 {
		return 0, io.EOF
	}
	return n, nil
}
