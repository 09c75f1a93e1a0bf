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
	case x.Killed:
		s = "the kernel was stopped"
	case x.OOMKilled || x.Code == 137:
		s = fmt.Sprintf("the kernel ran out of memory (limit %d MiB) and was killed (exit code %d)", x.MemoryBytes>>20, x.Code)
	default:
		s = fmt.Sprintf("the kernel exited with code %d", x.Code)
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
		x := ExitInfo{Killed: s.killed.Load(), MemoryBytes: s.cfg.MemoryBytes, Stderr: s.stderr.String(), host: s.e.host}
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
			if ins, err := s.e.cli.ContainerInspect(ctx, s.id); err == nil && ins.State != nil {
				x.OOMKilled = ins.State.OOMKilled
				x.Code = ins.State.ExitCode
			}
		}
		s.exit = x
	})
	return s.exit
}
