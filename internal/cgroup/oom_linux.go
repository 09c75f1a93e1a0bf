//go:build linux

package cgroup

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sys/unix"
)

// WatchOOM follows the memory cgroup of process pid, the first process of
// container id in this host's PID namespace. The cgroup's path must name
// id, so that a PID seen from another namespace (a remote engine, a VM) is
// never followed. The error wraps ErrUnsupported when the cgroup cannot be
// followed.
func WatchOOM(pid int, id string) (*Watch, error) {
	dir, v2, err := memoryDir(pid)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	if id == "" || !strings.Contains(dir, id) {
		return nil, fmt.Errorf("%w: process %d is in %s, not in the container's cgroup", ErrUnsupported, pid, dir)
	}
	if v2 {
		return watchV2(pid, dir)
	}
	return watchV1(pid, dir)
}

// memoryDir is the directory of pid's memory cgroup under this host's
// cgroup mounts; v2 when it is on the unified hierarchy.
func memoryDir(pid int) (dir string, v2 bool, err error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cgroup")
	if err != nil {
		return "", false, err
	}
	var path, unified string
	for line := range strings.Lines(string(b)) {
		f := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(f) != 3 {
			continue
		}
		if f[0] == "0" && f[1] == "" {
			unified = f[2]
		} else if slices.Contains(strings.Split(f[1], ","), "memory") {
			path = f[2]
		}
	}
	if path == "" && unified == "" {
		return "", false, fmt.Errorf("process %d has no memory cgroup", pid)
	}
	v2 = path == ""
	if v2 {
		path = unified
	}
	mi, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", false, err
	}
	defer mi.Close()
	sc := bufio.NewScanner(mi)
	for sc.Scan() {
		// id parent major:minor root mountpoint options [optional…] - fstype source super-options
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		a, b := strings.Fields(pre), strings.Fields(post)
		if len(a) < 5 || len(b) < 3 {
			continue
		}
		switch {
		case v2 && b[0] == "cgroup2":
		case !v2 && b[0] == "cgroup" && slices.Contains(strings.Split(b[2], ","), "memory"):
		default:
			continue
		}
		root, mount := unescape(a[3]), unescape(a[4])
		rel, ok := strings.CutPrefix(path, root)
		if root == "/" {
			rel, ok = path, true
		}
		if !ok || rel != "" && rel[0] != '/' {
			continue
		}
		dir := filepath.Join(mount, rel)
		if _, err := os.Stat(dir); err == nil {
			return dir, v2, nil
		}
	}
	return "", false, fmt.Errorf("no mount of the memory cgroup %s of process %d", path, pid)
}

var mountEscapes = strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)

func unescape(s string) string { return mountEscapes.Replace(s) }

// watchV1 registers an eventfd for the cgroup's OOM notifications
// (cgroup.event_control with memory.oom_control): the kernel signals it
// when the cgroup runs out of memory, before the OOM killer's signal, and
// once more when the cgroup is removed.
func watchV1(pid int, dir string) (*Watch, error) {
	ctl, err := os.Open(filepath.Join(dir, "memory.oom_control"))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	efd, err := unix.Eventfd(0, unix.EFD_CLOEXEC|unix.EFD_NONBLOCK)
	if err != nil {
		ctl.Close()
		return nil, fmt.Errorf("%w: eventfd: %v", ErrUnsupported, err)
	}
	ev := os.NewFile(uintptr(efd), "eventfd") // non-blocking: reads park on the poller, Close ends them
	reg, err := os.OpenFile(filepath.Join(dir, "cgroup.event_control"), os.O_WRONLY, 0)
	if err == nil {
		_, err = fmt.Fprintf(reg, "%d %d", efd, ctl.Fd())
		reg.Close()
	}
	if err != nil {
		ev.Close()
		ctl.Close()
		return nil, fmt.Errorf("%w: register for OOM events: %v", ErrUnsupported, err)
	}
	f := &follower{counters: ctl, names: []string{"oom_kill", "under_oom"}, wake: ev}
	f.notified = func() (uint64, error) {
		var b [8]byte
		if _, err := io.ReadFull(ev, b[:]); err != nil {
			return 0, err
		}
		return binary.NativeEndian.Uint64(b[:]), nil
	}
	// Only the OOM notification signals a cgroup that still exists (its
	// counters need not show it yet: under_oom is cleared once the OOM
	// killer has run, and a round can end without a kill).
	f.anySignal = true
	return f.start(pid), nil
}

// watchV2 follows memory.events with inotify: the kernel marks it modified
// when a counter changes ("oom" as the cgroup runs out of memory, then
// "oom_kill"; "max" and "high" too).
func watchV2(pid int, dir string) (*Watch, error) {
	name := filepath.Join(dir, "memory.events")
	events, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	ifd, err := unix.InotifyInit1(unix.IN_CLOEXEC | unix.IN_NONBLOCK)
	if err != nil {
		events.Close()
		return nil, fmt.Errorf("%w: inotify: %v", ErrUnsupported, err)
	}
	in := os.NewFile(uintptr(ifd), "inotify")
	if _, err := unix.InotifyAddWatch(ifd, name, unix.IN_MODIFY|unix.IN_DELETE_SELF); err != nil {
		in.Close()
		events.Close()
		return nil, fmt.Errorf("%w: watch %s: %v", ErrUnsupported, name, err)
	}
	buf := make([]byte, 4096)
	f := &follower{counters: events, names: []string{"oom", "oom_kill"}, wake: in}
	f.notified = func() (uint64, error) {
		_, err := in.Read(buf)
		return 1, err
	}
	return f.start(pid), nil
}

// follower decides a Watch from two sources: the cgroup's notifications
// (notified, woken through wake) and the exit of the container's first
// process (a pidfd). Both come before the engine removes the cgroup, and
// each reads the counters then: at the process's exit an OOM kill has been
// counted, so the counters alone say whether there was one.
type follower struct {
	counters *os.File
	names    []string
	wake     io.Closer
	notified func() (signals uint64, err error)
	// anySignal: a notification of a live cgroup is an OOM (v1).
	anySignal bool
	w         *Watch
}

func (f *follower) start(pid int) *Watch {
	var wg sync.WaitGroup
	var exit *os.File
	if fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK); err == nil {
		exit = os.NewFile(uintptr(fd), "pidfd")
	}
	f.w = newWatch(func() {
		f.wake.Close()
		if exit != nil {
			exit.Close()
		}
		wg.Wait()
		f.counters.Close()
	})
	f.w.kills = func() (uint64, bool) { return readCounter(f.counters, "oom_kill") }
	wg.Go(f.followNotifications)
	if exit != nil {
		wg.Go(func() { f.followExit(exit) })
	}
	return f.w
}

// followNotifications: an OOM while the cgroup exists is the verdict; once
// it is gone, more than one signal at once means one of them was the OOM
// notification, one alone may have been the removal.
func (f *follower) followNotifications() {
	for {
		n, err := f.notified()
		if err != nil {
			return // closed
		}
		hit, alive := readCounters(f.counters, f.names)
		switch {
		case alive && (hit || f.anySignal):
			f.w.settle(OOM)
		case alive:
			continue
		case n >= 2:
			f.w.settle(OOM)
		default:
			f.w.settle(Unknown)
		}
		return
	}
}

// followExit waits for the process to exit and reads the counters.
func (f *follower) followExit(exit *os.File) {
	rc, err := exit.SyscallConn()
	if err != nil {
		return
	}
	// A pidfd cannot be read: poll it, parking on the runtime's poller
	// while it is not ready.
	err = rc.Read(func(fd uintptr) bool {
		p := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(p, 0)
		return err != nil || n > 0
	})
	if err != nil {
		return // closed
	}
	switch hit, alive := readCounters(f.counters, f.names); {
	case !alive:
		// Removed already: the notifications decide.
	case hit:
		f.w.settle(OOM)
	default:
		f.w.settle(NoOOM)
	}
}

// readCounters reports whether one of the named counters of a flat-keyed
// cgroup file is above zero; alive is false once the cgroup is removed.
func readCounters(f *os.File, names []string) (hit, alive bool) {
	alive = eachCounter(f, func(k, v string) bool {
		hit = hit || slices.Contains(names, k) && v != "0"
		return true
	})
	return hit, alive
}

// readCounter is one counter of a flat-keyed cgroup file.
func readCounter(f *os.File, name string) (c uint64, ok bool) {
	eachCounter(f, func(k, v string) bool {
		if k != name {
			return true
		}
		n, err := strconv.ParseUint(v, 10, 64)
		c, ok = n, err == nil
		return false
	})
	return c, ok
}

// eachCounter reads a flat-keyed cgroup file ("name value" lines) and
// calls yield for its counters until yield returns false; false when the
// file could not be read (the cgroup is removed, the watch closed).
func eachCounter(f *os.File, yield func(name, value string) bool) bool {
	buf := make([]byte, 1024)
	n, err := f.ReadAt(buf, 0)
	if n == 0 && err != nil {
		return false
	}
	for line := range bytes.Lines(buf[:n]) {
		k, v, found := bytes.Cut(bytes.TrimSpace(line), []byte(" "))
		if found && !yield(string(k), string(v)) {
			break
		}
	}
	return true
}
