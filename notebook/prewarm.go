package lsp

import (
	"time"

	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/cells"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// prewarmDelay lets typing settle before a document is looked at again.
const prewarmDelay = 500 * time.Millisecond

// schedulePrewarm looks at the document soon: in auto mode, when one of its
// cells will need the container (an import Monty lacks, say), the container
// starts in the background so that the move costs only the replay. Setting
// backyard.prewarm false turns it off.
func (s *session) schedulePrewarm() {
	s.srv.mu.Lock()
	off := s.srv.settings.NoPrewarm
	s.srv.mu.Unlock()
	if off {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed || s.prewarmed {
		return
	}
	if s.prewarmTimer != nil {
		s.prewarmTimer.Reset(prewarmDelay)
		return
	}
	s.prewarmTimer = time.AfterFunc(prewarmDelay, s.prewarm)
}

func (s *session) prewarm() {
	if s.configuredBackend() != kernel.BackendAuto {
		return
	}
	snap := s.doc.snapshot()
	code := cells.CodeCells(snap.Cells())
	codes := make([]string, len(code))
	for i, c := range code {
		codes[i] = c.Code
	}
	k, _, err := s.kernel()
	if err != nil {
		return
	}
	if a, ok := k.(*kernel.Auto); ok && a.Prewarm(codes) {
		s.mu.Lock()
		s.prewarmed = true
		s.mu.Unlock()
		s.srv.log.Info("pre-warming the container", zap.String("uri", s.doc.uri))
	}
}
