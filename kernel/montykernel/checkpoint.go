package montykernel

import (
	"context"
	"fmt"
	"time"

	"github.com/backyard-ls/backyard-ls/files"
	"github.com/backyard-ls/backyard-ls/kernel/internal/kcore"
	"github.com/backyard-ls/backyard-ls/monty"
)

// A Monty kernel recovers its namespace after a killed worker from a
// checkpoint: the last snapshot (Monty's Dump) plus a journal of the cells
// run since, replayed silently into a new worker. Snapshots grow with the
// heap and with the session's history (Monty keeps every cell's source), so
// one before every cell would cost 0.1–25 ms per cell; instead a snapshot is
// taken when the journal would otherwise make recovery slow, and when the
// kernel is idle. Replay is safe: Monty code reaches nothing outside but
// its files, whose overlay is checkpointed with the snapshot and replayed
// with the journal (with files.write "workspace" a replayed cell writes the
// real files again), and host functions, which are not called again (a
// replayed call gets the recorded answer). Values drawn from random or the
// clock during a replayed cell may differ from the first run.
type checkpoint struct {
	snap     []byte              // nil: the empty session
	files    *files.Snapshot     // the overlay at snap; nil: empty
	journal  []*kcore.Replayable // cells run since snap, as fed
	replay   time.Duration
	dumpCost time.Duration
	idle     *time.Timer
}

const (
	// maxJournal bounds the cells replayed after an interrupt.
	maxJournal = 64
	// minReplayBudget is the replay time always allowed before a snapshot
	// is taken; the budget grows with the snapshot's own cost.
	minReplayBudget = 20 * time.Millisecond
	// idleSnapshot is how long the kernel must be idle before it takes a
	// snapshot of a non-empty journal.
	idleSnapshot = 100 * time.Millisecond
)

func (c *checkpoint) reset() {
	c.snap, c.files, c.journal, c.replay = nil, nil, nil, 0
}

// record notes a cell that ran to completion (or raised) in the worker.
// It returns whether a snapshot should be taken now.
func (c *checkpoint) record(fed *kcore.Replayable, took time.Duration, stoppedInBand bool) bool {
	if stoppedInBand {
		// Replaying it would run past the point where it was stopped.
		return true
	}
	c.journal = append(c.journal, fed)
	c.replay += took
	return len(c.journal) >= maxJournal || c.replay >= max(minReplayBudget, 2*c.dumpCost)
}

// take snapshots the worker's session and the overlay of fs (may be nil).
func (c *checkpoint) take(w *monty.Worker, fs *files.FS) error {
	start := time.Now()
	snap, err := w.Dump()
	if err != nil {
		return err
	}
	c.files = nil
	if fs != nil {
		c.files = fs.Snapshot()
	}
	c.dumpCost = time.Since(start)
	c.snap, c.journal, c.replay = snap, nil, 0
	return nil
}

// restore rebuilds the checkpointed session in w: the snapshot, then the
// journal, each cell under the kernel's time limit.
func (c *checkpoint) restore(ctx context.Context, w *monty.Worker, timeout time.Duration, fs *files.FS) error {
	if fs != nil {
		fs.Restore(c.files)
	}
	if c.snap != nil {
		if err := w.Restore(c.snap); err != nil {
			return err
		}
	} else if err := w.Reset(); err != nil {
		return err
	}
	for i, e := range c.journal {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		r := e.Request()
		_, err := w.Feed(cctx, r.Code, monty.FeedOptions{Inputs: r.Inputs, Functions: workerFuncs(r.Functions)})
		cancel()
		if err != nil {
			return fmt.Errorf("replay of cell %d of %d since the last snapshot: %w", i+1, len(c.journal), err)
		}
	}
	return nil
}
