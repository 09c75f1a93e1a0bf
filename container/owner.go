package container

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Labels on every kernel container. They say which process owns it, so that
// a later server can remove the containers of one that crashed.
const (
	LabelKernel   = "dev.backyard-ls.kernel"    // "1"
	LabelInstance = "dev.backyard-ls.instance"  // random ID of the owning process
	LabelPID      = "dev.backyard-ls.pid"       // owning process ID
	LabelPIDStart = "dev.backyard-ls.pid-start" // its start time (clock ticks since boot; "" if unknown)
	LabelHost     = "dev.backyard-ls.host"      // hostname of the owner's machine
)

// owner identifies this process.
var owner = func() map[string]string {
	b := make([]byte, 8)
	rand.Read(b)
	host, _ := os.Hostname()
	return map[string]string{
		LabelKernel:   "1",
		LabelInstance: hex.EncodeToString(b),
		LabelPID:      strconv.Itoa(os.Getpid()),
		LabelPIDStart: processStart(os.Getpid()),
		LabelHost:     host,
	}
}()

// InstanceID is the random ID of this process on its containers' labels.
func InstanceID() string { return owner[LabelInstance] }

func ownerLabels() map[string]string {
	m := make(map[string]string, len(owner))
	for k, v := range owner {
		m[k] = v
	}
	return m
}

// processStart is the start time of pid in clock ticks after boot (field 22
// of /proc/PID/stat), which tells a live owner from a reused PID; "" where
// /proc is not available.
func processStart(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	// The command name (field 2) may hold spaces; fields restart after ')'.
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return ""
	}
	return f[19]
}

// ownerGone reports whether the process named by a container's labels has
// exited. Containers of other machines are never gone: their PIDs mean
// nothing here.
func ownerGone(labels map[string]string) bool {
	if labels[LabelHost] != owner[LabelHost] || labels[LabelInstance] == owner[LabelInstance] {
		return false
	}
	pid, err := strconv.Atoi(labels[LabelPID])
	if err != nil || pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	start := labels[LabelPIDStart]
	return start != "" && processStart(pid) != "" && processStart(pid) != start
}
