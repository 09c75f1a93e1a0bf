//go:build unix

package proc

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// SignalName names a signal the way a person knows it: "SIGKILL".
func SignalName(s syscall.Signal) string {
	if n := unix.SignalName(s); n != "" {
		return n
	}
	return s.String()
}
