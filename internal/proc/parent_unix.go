//go:build unix

package proc

import "os"

// ParentGone reports whether this process's parent, whose pid was ppid when
// it started, has died: an orphan is adopted (by init or a subreaper), so
// its parent pid changes. Unlike a parent-death signal it does not fire
// when only the thread that started this process ends.
func ParentGone(ppid int) bool { return os.Getppid() != ppid }
