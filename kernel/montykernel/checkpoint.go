package montykernel

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/backyard-ls/backyard-ls/files"
	"github.com/backyard-ls/backyard-ls/kernel/internal/kcore"
	"github.com/backyard-ls/backyard-ls/monty"
	"github.com/backyard-ls/backyard-ls/pysrc"
)

// A Monty kernel recovers its namespace after a killed worker from a
// checkpoint: a snapshot (Monty's Dump) plus a journal of the cells run
// since, replayed silently. The snapshot lives in a keeper, a second worker
// whose session it is: it goes from worker to worker without being held by
// the server (a session can hold hundreds of MiB), and recovery promotes
// the keeper to be the kernel's worker, so the values come back as they
// were. A snapshot is taken when the journal would make recovery slow, when
// the kernel is idle with a journal worth keeping, and right after a cell
// that draws random values or reads the clock (replaying it would draw
// again); a kernel whose cells are cheap and draw nothing never has a
// keeper. Replay is safe: Monty code reaches nothing outside but its files,
// whose overlay is checkpointed with the snapshot and replayed with the
// journal (with files.write "workspace" a replayed cell writes the real
// files again), and host functions, which are not called again (a replayed
// call gets the recorded answer). A replayed cell that draws anyway (its
// snapshot failed) says so in the result's notes, naming what it rebuilt.
type checkpoint struct {
	keeper   *monty.Worker // its session is the snapshot; nil: the empty session
	files    *files.Snapshot
	journal  []entry // cells run since the snapshot, as fed
	replay   time.Duration
	dumpCost time.Duration
	idle     *time.Timer
	// drawers are the names that draw when used (pysrc.Draws).
	drawers map[string]string
	// hold (tests): no snapshot but those a test takes, so that a test
	// follows the journal whatever the machine's speed.
	hold bool
}

// entry is a journal cell and what it draws.
type entry struct {
	rec   *kcore.Replayable
	draws []string
}

const (
	// maxJournal bounds the cells replayed after an interrupt (their time
	// is bounded by the replay budget). 512, not 64: a snapshot of a
	// session of cheap cells every 64 cells was most of their cost
	// (BenchmarkTrivialCell mean 85-108 → 46-61 µs under load).
	maxJournal = 512
	// minReplayBudget is the replay time always allowed before a snapshot
	// is taken; the budget grows with the snapshot's own cost.
	minReplayBudget = 20 * time.Millisecond
	// idleSnapshot is how long the kernel must be idle before it takes a
	// snapshot of a journal that costs idleReplay or more to replay.
	idleSnapshot = 100 * time.Millisecond
	idleReplay   = 5 * time.Millisecond
)

func (c *checkpoint) reset() {
	if c.keeper != nil {
		c.keeper.Kill()
		<-c.keeper.Exited()
	}
	c.keeper, c.files, c.journal, c.replay = nil, nil, nil, 0
	clear(c.drawers)
}

// record notes a cell that ran to completion (or raised) in the worker.
// It returns whether a snapshot should be taken now.
func (c *checkpoint) record(fed *kcore.Replayable, took time.Duration, stoppedInBand bool) bool {
	if c.drawers == nil {
		c.drawers = map[string]string{}
	}
	draws := pysrc.Draws(fed.Code, c.drawers)
	if stoppedInBand || len(draws) > 0 {
		// Replaying it would run past the point where it was stopped, or
		// draw again.
		c.journal = append(c.journal, entry{fed, draws})
		return !c.hold
	}
	c.journal = append(c.journal, entry{rec: fed})
	c.replay += took
	return !c.hold && (len(c.journal) >= maxJournal || c.replay >= max(minReplayBudget, 2*c.dumpCost))
}

// worthKeeping reports a journal whose replay would cost enough to take a
// snapshot of while the kernel is idle.
func (c *checkpoint) worthKeeping() bool { return !c.hold && c.replay >= idleReplay }

// take snapshots the worker's session into the keeper (started with start
// when there is none) and the overlay of fs (may be nil).
func (c *checkpoint) take(w *monty.Worker, fs *files.FS, start func() (*monty.Worker, error)) error {
	begin := time.Now()
	if c.keeper == nil || !c.keeper.Alive() {
		if c.keeper != nil {
			<-c.keeper.Exited()
		}
		k, err := start()
		if err != nil {
			c.keeper = nil
			return err
		}
		c.keeper = k
	}
	if err := w.DumpInto(c.keeper); err != nil {
		c.keeper.Kill()
		return err
	}
	c.files = nil
	if fs != nil {
		c.files = fs.Snapshot()
	}
	c.dumpCost = time.Since(begin)
	c.journal, c.replay = nil, 0
	return nil
}

// restore rebuilds the checkpointed session and returns the worker that
// holds it: the keeper, promoted (w is then the caller's to stop), else w
// emptied, else a new worker (start) when w is dead; then the journal,
// each cell under the kernel's time limit. notes say what a replayed cell
// rebuilt by drawing again.
func (c *checkpoint) restore(ctx context.Context, w *monty.Worker, timeout time.Duration, fs *files.FS, start func() (*monty.Worker, error)) (nw *monty.Worker, notes []string, err error) {
	if fs != nil {
		fs.Restore(c.files)
	}
	switch {
	case c.keeper != nil && c.keeper.Alive():
		nw, c.keeper = c.keeper, nil
	case c.keeper != nil:
		return nil, nil, fmt.Errorf("the worker that kept the snapshot died")
	case w != nil && w.Alive():
		if err := w.Reset(); err != nil {
			return nil, nil, err
		}
		nw = w
	default:
		if nw, err = start(); err != nil {
			return nil, nil, err
		}
	}
	for i, e := range c.journal {
		cctx, cancel := context.WithTimeout(ctx, timeout)
		r := e.rec.Request()
		_, err := nw.Feed(cctx, r.Code, monty.FeedOptions{Inputs: r.Inputs, Functions: workerFuncs(r.Functions)})
		cancel()
		if err != nil {
			if nw != w {
				nw.Kill()
			}
			return nil, nil, fmt.Errorf("replay of cell %d of %d since the last snapshot: %w", i+1, len(c.journal), err)
		}
		if len(e.draws) > 0 {
			names, _ := pysrc.Bindings(e.rec.Code)
			notes = append(notes, redrawnNote(names, e.draws))
		}
	}
	return nw, notes, nil
}

// redrawnNote says that names were rebuilt by running their cell again,
// which drew anew.
func redrawnNote(names, draws []string) string {
	what := "its names"
	if len(names) > 0 {
		what = strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s rebuilt by running their cell again, which reads %s anew: they may differ from before", what, strings.Join(draws, " and "))
}
