package container

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"

	"github.com/backyard-ls/backyard-ls/internal/proc"
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
		LabelPIDStart: proc.StartTime(os.Getpid()),
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

// ownerGone reports whether the process named by a container's labels has
// exited, for containers labelled with host (this machine's, or a test's
// own). Containers of other machines are never gone: their PIDs mean
// nothing here.
func ownerGone(host string, labels map[string]string) bool {
	if labels[LabelHost] != host || labels[LabelInstance] == owner[LabelInstance] {
		return false
	}
	pid, err := strconv.Atoi(labels[LabelPID])
	if err != nil || pid <= 0 {
		return false
	}
	if !proc.Alive(pid) {
		return true
	}
	start := labels[LabelPIDStart]
	return start != "" && proc.StartTime(pid) != "" && proc.StartTime(pid) != start
}
