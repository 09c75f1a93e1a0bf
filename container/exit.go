package container

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/docker/docker/api/types/container"
	"go.uber.org/zap"
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
	// MemoryBytes is the memory limit, for messages.
	MemoryBytes int64
	// Stderr is the end of the container's own stderr (the driver's fatal
	// errors; the cells' output is not there).
	Stderr string

	host string
}

// Describe says in one sentence what happened, for a person.
func (x ExitInfo) Describe() string {
	var s string
	switch {
	case x.EngineLost:
		s = fmt.Sprintf("lost the connection to the container engine at %s: %v; start dockerd or set DOCKER_HOST", x.host, x.EngineErr)
	case x.Foreign != nil:
		s = fmt.Sprintf("the kernel's channel to the host carried %s, which its driver did not write (a cell wrote to the channel's descriptor), so the kernel was stopped", x.Foreign.Why)
	case x.Killed:
		s = "the kernel was stopped"
	case x.OOMKilled:
		// Only the engine's word: exit code 137 is any SIGKILL.
		s = fmt.Sprintf("the kernel ran out of memory (limit %d MiB) and was killed (exit code %d)", x.MemoryBytes>>20, x.Code)
	case x.Code > 128 && x.Code < 128+65:
		s = fmt.Sprintf("the kernel was killed by signal %s (exit code %d)", signalName(x.Code-128), x.Code)
	default:
		s = fmt.Sprintf("the kernel process exited with code %d (os._exit() or a fatal error of the interpreter)", x.Code)
	}
	if t := strings.TrimSpace(x.Stderr); t != "" && !x.Killed {
		if len(t) > 600 {
			t = "…" + t[len(t)-600:]
		}
		s += ": " + t
	}
	return s
}

// Exit waits for the container's attach stream to end and says why the
// container stopped. It asks the engine once; later calls return the same
// answer.
func (s *Session) Exit(ctx context.Context) ExitInfo {
	s.exitOnce.Do(func() {
		for range s.events { // wait for the reader to finish
		}
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
		if !x.EngineLost {
			// The engine learns of an OOM kill from an event that can come
			// after the exit (well over a second later under gVisor on a
			// busy host): a SIGKILL is asked about again, for a while.
			start := time.Now()
			for wait := 50 * time.Millisecond; ; wait = min(2*wait, 500*time.Millisecond) {
				if ins, err := s.e.cli.ContainerInspect(ctx, s.id); err == nil && ins.State != nil {
					x.OOMKilled = ins.State.OOMKilled
					x.Code = ins.State.ExitCode
				}
				if x.OOMKilled || x.Code != 137 || x.Killed || time.Since(start) > 3*time.Second {
					break
				}
				time.Sleep(wait)
			}
		}
		s.exit = x
	})
	return s.exit
}

// signalName names a Linux signal (the kernel runs on Linux whatever the
// host is): "SIGKILL", or "signal 42" for one without a common name.
func signalName(n int) string {
	names := [...]string{1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS",
		8: "SIGFPE", 9: "SIGKILL", 10: "SIGUSR1", 11: "SIGSEGV", 12: "SIGUSR2", 13: "SIGPIPE", 14: "SIGALRM", 15: "SIGTERM",
		24: "SIGXCPU", 25: "SIGXFSZ", 31: "SIGSYS"}
	if n > 0 && n < len(names) && names[n] != "" {
		return names[n]
	}
	return fmt.Sprintf("signal %d", n)
}
