package notebook

import (
	"time"

	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/cells"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// prewarmDelay lets typing settle before a document is looked at again.
const prewarmDelay = 500 * time.Millisecond

// schedulePrewarm looks at the document soon: in auto mode, when one of its
// cells will need the container (an import Monty lacks, say), the container
// starts in the background so that the move costs only the replay. Setting
// backyard.prewarm false turns it off.
func (s *session) schedulePrewarm() {
	if !s.nb.opts.Config(s.doc.uri).Settings.Prewarm {
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
	s.prewarmTimer = time.AfterFunc(prewarmDelay, func() { s.prewarm() })
}

// Prewarm looks at the document now (see schedulePrewarm) and reports
// whether a container start was begun.
func (d *Document) Prewarm() bool { return d.sess.prewarm() }

func (s *session) prewarm() bool {
	if s.configuredBackend() != contract.BackendAuto {
		return false
	}
	code := cells.CodeCells(s.doc.snapshot().Cells())
	codes := make([]string, len(code))
	for i, c := range code {
		codes[i] = c.Code
	}
	k, _, err := s.kernel()
	if err != nil {
		return false
	}
	p, ok := k.(kernel.Prewarmer)
	if !ok || !p.Prewarm(codes) {
		return false
	}
	s.mu.Lock()
	s.prewarmed = true
	s.mu.Unlock()
	s.nb.log.Info("pre-warming the container", zap.String("uri", s.doc.uri))
	return true
}
