//go:build windows

package proc

// ParentGone reports whether this process's parent, whose pid was ppid when
// it started, has died (Windows does not reparent, so the pid is asked).
func ParentGone(ppid int) bool { return !Alive(ppid) }
