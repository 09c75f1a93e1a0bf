//go:build unix && !linux

package proc

import (
	"os"
	"syscall"
)

// BlockingPipe is os.Pipe with a read end the runtime does not poll (see
// the Linux version).
func BlockingPipe() (r, w *os.File, err error) {
	var p [2]int
	syscall.ForkLock.RLock()
	err = syscall.Pipe(p[:])
	if err == nil {
		syscall.CloseOnExec(p[0])
		syscall.CloseOnExec(p[1])
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil, nil, os.NewSyscallError("pipe", err)
	}
	return os.NewFile(uintptr(p[0]), "|0"), os.NewFile(uintptr(p[1]), "|1"), nil
}
