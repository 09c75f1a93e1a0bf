package monty

import (
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// CPUTimes are the user and system CPU time the worker process has used,
// as getrusage gives a process its own (IPython's %time measures those):
// the total from the process's CPU clock (ns), split between user and
// system as /proc's tick counts are. ok is false where they cannot be
// read.
func (w *Worker) CPUTimes() (user, sys time.Duration, ok bool) {
	if w.cmd == nil || w.cmd.Process == nil {
		return 0, 0, false
	}
	pid := w.cmd.Process.Pid
	var ts unix.Timespec
	// clock_getcpuclockid(pid): CPUCLOCK_SCHED of the whole process.
	if err := unix.ClockGettime(int32((^pid)<<3|2), &ts); err != nil {
		return 0, 0, false
	}
	total := time.Duration(ts.Nano())
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return total, 0, true
	}
	// The fields after the command name, which may hold spaces.
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+1:]))
	if len(f) < 13 {
		return total, 0, true
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil || ut+st == 0 {
		return total, 0, true
	}
	sys = time.Duration(float64(total) * float64(st) / float64(ut+st))
	return total - sys, sys, true
}
