package lsp

import (
	"context"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"go.uber.org/zap"
)

// refresher sends workspace/codeLens/refresh and workspace/inlayHint/refresh,
// only to clients that advertise support, one at a time and at most every
// refreshDelay: requests made meanwhile collapse into one (a runAll of 100
// cells asks the editor for lenses a few times, not 100).
type refresher struct {
	s           *server
	lens, hints chan struct{}
	once        sync.Once
	done        chan struct{}
}

func newRefresher(s *server) *refresher {
	return &refresher{s: s, lens: make(chan struct{}, 1), hints: make(chan struct{}, 1), done: make(chan struct{})}
}

func (r *refresher) start() {
	r.once.Do(func() { go r.loop() })
}

func (r *refresher) loop() {
	defer close(r.done)
	for {
		var method string
		call := r.s.client.CodeLensRefresh
		select {
		case <-r.s.ctx.Done():
			return
		case <-r.lens:
			method = protocol.MethodWorkspaceCodeLensRefresh
		case <-r.hints:
			method, call = protocol.MethodWorkspaceInlayHintRefresh, r.s.client.InlayHintRefresh
		}
		select {
		case <-time.After(refreshDelay):
		case <-r.s.ctx.Done():
			return
		}
		ctx, cancel := context.WithTimeout(r.s.ctx, 30*time.Second)
		if err := call(ctx); err != nil {
			r.s.log.Debug("refresh failed", zap.String("method", method), zap.Error(err))
		}
		cancel()
	}
}

// refreshDelay gathers the refreshes of executions that end close together.
const refreshDelay = 10 * time.Millisecond

// stop waits for the loop (if it ever started) after the server context
// is cancelled.
func (r *refresher) stop() {
	started := true
	r.once.Do(func() { started = false })
	if started {
		<-r.done
	}
}

func signal(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// refreshLenses asks the client to request code lenses again.
func (s *server) refreshLenses() {
	if s.clientCaps().codeLensRefresh {
		s.refresh.start()
		signal(s.refresh.lens)
	}
}

// refreshInlayHints asks the client to request inlay hints again.
func (s *server) refreshInlayHints() {
	if s.clientCaps().inlayHintRefresh {
		s.refresh.start()
		signal(s.refresh.hints)
	}
}
