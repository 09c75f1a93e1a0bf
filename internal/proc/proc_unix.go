//go:build unix && !linux

package proc

import (
	"errors"
	"os/exec"
	"syscall"
)

// Prepare makes cmd's process lead its own process group. There is no
// parent-death signal here: the worker ends when its stdin, held by the
// server, closes.
func Prepare(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// Started is called after cmd.Start; nothing is left to do here.
func Started(*exec.Cmd) error { return nil }

// Alive reports whether pid exists.
func Alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// StartTime is unknown here: "".
func StartTime(int) string { return "" }

// Children lists pid's child processes where the system tells (Linux); nil
// here.
func Children(int) []int { return nil }
