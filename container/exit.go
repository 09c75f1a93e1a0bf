package container

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/internal/cgroup"
)

// ExitInfo says why a session's container stopped.
type ExitInfo struct {
	// EngineLost: the engine stopped answering; nothing else is known.
	EngineLost bool
	EngineErr  error
	// Foreign: the host stopped it at a frame on its channel that its
	// runtime did not write (a cell wrote to the channel's descriptor).
	Foreign *ChannelError
	// Killed: Kill or Close stopped it.
	Killed bool
	// Code is the exit code (137 for SIGKILL, the OOM killer included).
	Code int
	// OOMKilled: the engine says the kernel hit its memory limit.
	OOMKilled bool
	// oomFrom says whose word OOMKilled is: "cgroup" or "engine"; waited,
	// that the engine's late event was waited for; known, how long after
	// the stream's end the exit was known.
	oomFrom string
	waited  bool
	known   time.Duration
	// MemoryBytes is the memory limit, for messages.
	MemoryBytes int64
	// Stderr is the end of the container's own stderr (the driver's fatal
	// errors; the cells' output is not there).
	Stderr string

	host string
}

// Describe says in one sentence what happened, for a person.
func (x ExitInfo) Describe() string {
	switch {
	case x.EngineLost:
		return fmt.Sprintf("lost the connection to the container engine at %s: %v; start dockerd or set DOCKER_HOST", x.host, x.EngineErr)
	case x.Foreign != nil:
		return fmt.Sprintf("the kernel's channel to the host carried %s, which its driver did not write (a cell wrote to the channel's descriptor), so the kernel was stopped", x.Foreign.Why)
	case x.Killed:
		return "the kernel was stopped"
	}
	return DeathText(x.OOMKilled, uint64(x.MemoryBytes), x.Signal(), x.Code, x.Stderr)
}

// DeathText says how a kernel's process ended when the kernel did not end
// it, in the words every backend uses: it ran out of memory (under the
// limit memoryBytes), it was killed by a signal (its name), or it exited
// with code; then the end of stderr, the process's own fatal errors.
func DeathText(oom bool, memoryBytes uint64, signal string, code int, stderr string) string {
	var s string
	switch {
	case oom:
		s = fmt.Sprintf("the kernel ran out of memory (limit %d MiB)", memoryBytes>>20)
	case signal != "":
		s = "the kernel was killed by signal " + signal
	default:
		s = fmt.Sprintf("the kernel process exited with code %d (os._exit() or a fatal error of the interpreter)", code)
	}
	if t := strings.TrimSpace(stderr); t != "" {
		if len(t) > 600 {
			t = "…" + t[len(t)-600:]
		}
		s += ": " + t
	}
	return s
}

// Signal names the signal that ended the container's process (exit codes
// 129-192 are 128 + the signal), "" when it exited.
func (x ExitInfo) Signal() string {
	if x.Code > 128 && x.Code < 128+65 {
		return SignalName(x.Code - 128)
	}
	return ""
}

// Exit waits for the container's attach stream to end and says why the
// container stopped. It asks the engine once; later calls return the same
// answer.
func (s *Session) Exit(ctx context.Context) ExitInfo {
	s.exitOnce.Do(func() {
		for range s.events { // wait for the reader to finish
		}
		ended := time.Now()
		deadline := ended.Add(oomWord)
		x := ExitInfo{Foreign: s.foreign, Killed: s.killed.Load(), MemoryBytes: s.cfg.MemoryBytes, Stderr: s.stderr.String(), host: s.e.host}
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		// The stream can end a moment before the engine records the exit.
		waitC, errC := s.e.cli.ContainerWait(ctx, s.id, container.WaitConditionNotRunning)
		select {
		case w := <-waitC:
			x.Code = int(w.StatusCode)
		case err := <-errC:
			if connectionLost(err) {
				x.EngineLost, x.EngineErr = true, err
				s.e.forget()
			} else {
				s.log.Debug("wait for kernel container", zap.Error(err))
			}
		}
		if !x.EngineLost && !x.Killed && x.Code == 137 {
			x.OOMKilled, x.oomFrom, x.waited = s.oomKilled(ctx, deadline)
		}
		x.known = time.Since(ended)
		s.exit = x
	})
	return s.exit
}

// oomWord bounds how long a SIGKILLed container's end waits for the word
// on whether the OOM killer sent the signal. The cgroup's word comes before
// the kill, but its counter cannot be read once the engine has removed the
// cgroup; the engine's comes from an event that can arrive after the exit
// (well over a second late under gVisor on a busy host).
const oomWord = 500 * time.Millisecond

// watchOOM follows the container's memory cgroup when it is on this host
// (a local engine on Linux).
func (s *Session) watchOOM(ctx context.Context) {
	ins, err := s.e.cli.ContainerInspect(ctx, s.id)
	if err != nil || ins.State == nil || ins.State.Pid <= 0 {
		s.log.Debug("no process to follow the memory cgroup of", zap.Error(err))
		return
	}
	w, err := cgroup.WatchOOM(ins.State.Pid, s.id)
	if err != nil {
		s.log.Debug("the memory cgroup is not followed", zap.Error(err))
		return
	}
	s.oom = w
}

// oomKilled says whether the kernel's OOM killer ended the container, and
// whose word that is: the cgroup's when it has one by deadline (it sees the
// container's process exit, and the OOM notification before the kill),
// else the engine's: its flag, and unless the cgroup went away with one
// signal alone (its removal: an OOM notification would have been read
// while it existed), its "oom" event until deadline.
func (s *Session) oomKilled(ctx context.Context, deadline time.Time) (oom bool, from string, waited bool) {
	if s.oomReady != nil {
		<-s.oomReady
	}
	wait := true
	if w := s.oom; w != nil {
		t := time.NewTimer(time.Until(deadline))
		select {
		case <-w.Done():
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
		switch w.Verdict() {
		case cgroup.OOM:
			return true, "cgroup", false
		case cgroup.NoOOM:
			return false, "cgroup", false
		case cgroup.Unknown:
			wait = false
		}
	}
	ins, err := s.e.cli.ContainerInspect(ctx, s.id)
	if err != nil || ins.State == nil {
		return false, "engine", false
	}
	if ins.State.OOMKilled || !wait {
		return ins.State.OOMKilled, "engine", false
	}
	since, err := time.Parse(time.RFC3339Nano, ins.State.StartedAt)
	if err != nil {
		return false, "engine", false
	}
	ctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	msgs, errs := s.e.cli.Events(ctx, events.ListOptions{
		Since:   strconv.FormatInt(since.Unix()-1, 10),
		Filters: filters.NewArgs(filters.Arg("type", string(events.ContainerEventType)), filters.Arg("container", s.id), filters.Arg("event", string(events.ActionOOM))),
	})
	select {
	case <-msgs:
		return true, "engine", true
	case <-errs:
	case <-ctx.Done():
	}
	return false, "engine", true
}

// SignalName names a Linux signal (a container runs on Linux whatever the
// host is): "SIGKILL", or "signal 42" for one without a common name.
func SignalName(n int) string {
	names := [...]string{1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS",
		8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM",
		24: "SIGXCPU", 25: "SIGXFSZ", 31: "SIGSYS"}
	if n > 0 && n < len(names) && names[n] != "" {
		return names[n]
	}
	return fmt.Sprintf("signal %d", n)
}
