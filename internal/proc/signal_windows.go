//go:build windows

package proc

import "syscall"

// SignalName names a signal; Windows has no signal numbers of its own, so
// this is Go's description.
func SignalName(s syscall.Signal) string { return s.String() }
