package api

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/monty"
	"github.com/backyard-ls/backyard-ls/notebook"
	"github.com/backyard-ls/backyard-ls/sandbox"
)

// batch is one open batch: sandbox.Batch running in the background, fed
// by batch_add and ended by batch_end or batch_cancel. Its results go out
// as batch_results notifications, several at a time.
type batch struct {
	id      string
	s       *server
	ordered bool
	cancel  context.CancelFunc

	mu     sync.Mutex
	queue  []pending      // added, not yet taken by the batch
	ended  bool           // batch_end came: no more snippets
	added  int            // snippets added so far (the next one's index)
	taken  int            // snippets the batch took
	byRun  map[int]int    // a running snippet's index, by its place in the batch
	codes  map[int]string // a running snippet's code, by index
	wake   chan struct{}
	failed error // the batch could not run

	out  chan result
	done chan struct{} // the batch returned and every result was sent
}

// pending is a snippet added to a batch.
type pending struct {
	index int
	sn    kernel.Snippet
	bad   *contract.Execution // the snippet cannot run: its record
}

// result is one snippet's record, or the end of the results (last).
type result struct {
	index int
	rec   *contract.Execution
}

// BatchOpen implements contract.API.
func (s *server) BatchOpen(_ context.Context, a *contract.BatchOpenArgs) (*contract.BatchOpenResult, error) {
	set, err := s.settingsOf(map[string]any{
		"backend": string(a.Backend), "timeout": a.TimeoutS, "memory": a.MemoryMB, "recursionLimit": a.RecursionLimit,
		"maxOutputBytes": a.MaxOutputBytes, "montyPath": a.Monty, "container.image": a.Image, "container.runtime": string(a.Runtime),
	})
	if err != nil {
		return nil, err
	}
	if a.Parallel < 0 || a.Parallel > 256 {
		return nil, errorf(contract.APIBadArgument, "parallel must be between 1 and 256, got %d", a.Parallel)
	}
	for _, m := range a.Preload {
		if m == "" || strings.ContainsAny(m, " ,;\n\r\t\x00") {
			return nil, errorf(contract.APIBadArgument, "preload: %q is not a module name", m)
		}
	}
	sb, err := sandbox.New(sandbox.Options{Backend: set.Backend, Limits: kernel.LimitsOf(set), MontyBinary: set.MontyPath, Container: set.Container})
	if err != nil {
		if errors.Is(err, monty.ErrNotFound) {
			return nil, errorf(contract.APIBackendUnavailable, "no Monty worker: %v (the %s backend needs one; the container backend does not)", err, set.Backend)
		}
		return nil, errorf(contract.APIBadArgument, "%v", err)
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		sb.Close()
		return nil, errorf(contract.APIClosed, "the server is stopping")
	}
	ctx, cancel := context.WithCancel(s.ctx)
	b := &batch{id: s.newID("b"), s: s, ordered: a.Ordered, cancel: cancel, byRun: map[int]int{}, codes: map[int]string{},
		wake: make(chan struct{}, 1), out: make(chan result, 1024), done: make(chan struct{})}
	s.batches[b.id] = b
	s.work.Add(1)
	s.mu.Unlock()
	go b.write()
	go func() {
		defer s.work.Done()
		defer sb.Close()
		err := sb.Batch(ctx, b.snippets(ctx), sandbox.BatchOptions{
			Parallelism: a.Parallel, Preload: a.Preload, OnResult: b.result,
			OnWarning: func(w string) {
				s.notify(contract.APIClientWarning, &contract.APIWarningParams{Batch: b.id, Message: w})
			},
		})
		b.mu.Lock()
		b.failed = err
		b.mu.Unlock()
		cancel()
		// The snippets that never ran (a stopped batch) get no result.
		close(b.out)
	}()
	return &contract.BatchOpenResult{Batch: b.id}, nil
}

// snippets yields what batch_add brings until batch_end, or ctx ends.
func (b *batch) snippets(ctx context.Context) func(func(kernel.Snippet) bool) {
	return func(yield func(kernel.Snippet) bool) {
		for {
			b.mu.Lock()
			for len(b.queue) == 0 && !b.ended {
				b.mu.Unlock()
				select {
				case <-b.wake:
				case <-ctx.Done():
					return
				}
				b.mu.Lock()
			}
			q := b.queue
			b.queue = nil
			b.mu.Unlock()
			if len(q) == 0 {
				return // ended
			}
			for _, p := range q {
				if p.bad != nil {
					b.out <- result{index: p.index, rec: p.bad}
					continue
				}
				b.mu.Lock()
				b.byRun[b.taken] = p.index
				b.taken++
				b.codes[p.index] = p.sn.Code
				b.mu.Unlock()
				if !yield(p.sn) {
					return
				}
			}
		}
	}
}

// result is the batch's OnResult: snippet i of the batch ended.
func (b *batch) result(i int, r kernel.Result) {
	b.mu.Lock()
	index := b.byRun[i]
	code := b.codes[index]
	delete(b.byRun, i)
	delete(b.codes, index)
	b.mu.Unlock()
	b.out <- result{index: index, rec: notebook.CodeRecord(code, r, true)}
}

// write sends the results, in input order when the batch is ordered, as
// many in one notification as are ready.
func (b *batch) write() {
	defer close(b.done)
	held := map[int]*contract.Execution{} // ordered: results waiting for earlier ones
	next := 0
	var ready []contract.BatchResult
	flush := func() {
		if len(ready) > 0 {
			b.s.notify(contract.APIClientBatchResults, &tabbedResults{batch: b.id, results: ready})
			ready = ready[:0]
		}
	}
	take := func(r result) {
		if !b.ordered {
			ready = append(ready, contract.BatchResult{Index: r.index, Execution: r.rec})
			return
		}
		held[r.index] = r.rec
		for {
			rec, ok := held[next]
			if !ok {
				return
			}
			delete(held, next)
			ready = append(ready, contract.BatchResult{Index: next, Execution: rec})
			next++
		}
	}
	for r := range b.out {
		take(r)
		for more := true; more && len(ready) < 512; {
			select {
			case r, ok := <-b.out:
				if !ok {
					more = false
					break
				}
				take(r)
			default:
				more = false
			}
		}
		flush()
	}
	// Stopped: what waited for a snippet that never ran goes out in order.
	for len(held) > 0 {
		if rec, ok := held[next]; ok {
			ready = append(ready, contract.BatchResult{Index: next, Execution: rec})
			delete(held, next)
		}
		next++
	}
	flush()
	b.mu.Lock()
	err := b.failed
	b.mu.Unlock()
	if err != nil {
		kind := contract.APIBackendUnavailable
		if errors.Is(err, context.Canceled) {
			kind = contract.APIClosed
		}
		b.s.notify(contract.APIClientBatchResults, &contract.BatchResultsParams{Batch: b.id, Results: []contract.BatchResult{},
			Error: fmt.Sprintf("the batch cannot run: %v", err), ErrorKind: kind})
	}
}

// tabbedResults are batch_results's params with a tab before each result
// (JSON whitespace): a client cuts the line at its tabs into results
// without parsing it, as no record holds a raw tab (JSON strings escape it,
// records are compact). A record that holds one anyway has the line sent
// without tabs.
type tabbedResults struct {
	batch   string
	results []contract.BatchResult
}

// AppendJSON implements contract.JSONAppender.
func (t *tabbedResults) AppendJSON(b []byte) []byte {
	start := len(b)
	b = (&contract.BatchResultsParams{Batch: t.batch, Results: []contract.BatchResult{}}).AppendJSON(b)
	b = b[:len(b)-2] // `]}`
	for i := range t.results {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '\t')
		at := len(b)
		b = (&t.results[i]).AppendJSON(b)
		if bytes.IndexByte(b[at:], '\t') >= 0 {
			return (&contract.BatchResultsParams{Batch: t.batch, Results: t.results}).AppendJSON(b[:start])
		}
	}
	return append(b, ']', '}')
}

// batch finds an open batch.
func (s *server) batch(id string) (*batch, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.batches[id]; b != nil {
		return b, nil
	}
	return nil, errorf(contract.APIClosed, "batch %q is closed or was never opened", id)
}

// BatchAdd implements contract.API.
func (s *server) BatchAdd(_ context.Context, a *contract.BatchAddArgs) error {
	b, err := s.batch(a.Batch)
	if err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ended {
		return fmt.Errorf("batch %s has ended: snippets added after batch_end are dropped", b.id)
	}
	for _, in := range a.Snippets {
		p := pending{index: b.added}
		b.added++
		if in.TimeoutS < 0 || in.TimeoutS > 86400 {
			p.bad = inputError(fmt.Sprintf("snippet %d: timeout_s must be between 0 and 86400 seconds, got %v", p.index, float64(in.TimeoutS)))
		} else {
			p.sn = kernel.Snippet{Code: in.Code, Inputs: in.Inputs, Files: in.Files, Timeout: in.TimeoutS.Duration()}
		}
		b.queue = append(b.queue, p)
	}
	select {
	case b.wake <- struct{}{}:
	default:
	}
	return nil
}

func inputError(msg string) *contract.Execution {
	return &contract.Execution{Status: contract.StatusError, ExecutionCount: 1,
		Error: &contract.ExecutionError{EName: "BatchInputError", EValue: msg, Traceback: []contract.Frame{}}}
}

// BatchEnd implements contract.API.
func (s *server) BatchEnd(ctx context.Context, a *contract.BatchArg) (*contract.BatchEndResult, error) {
	return s.endBatch(ctx, a.Batch, false)
}

// BatchCancel implements contract.API.
func (s *server) BatchCancel(ctx context.Context, a *contract.BatchArg) (*contract.BatchEndResult, error) {
	return s.endBatch(ctx, a.Batch, true)
}

// endBatch ends a batch (cancel: stops it) and waits until everything of
// it is gone and its last results are sent.
func (s *server) endBatch(ctx context.Context, id string, cancel bool) (*contract.BatchEndResult, error) {
	b, err := s.batch(id)
	if err != nil {
		return nil, err
	}
	b.mu.Lock()
	b.ended = true
	b.mu.Unlock()
	select {
	case b.wake <- struct{}{}:
	default:
	}
	if cancel {
		b.cancel()
	}
	select {
	case <-b.done:
	case <-ctx.Done():
		return nil, errorf(contract.APIClosed, "the server is stopping")
	}
	s.mu.Lock()
	delete(s.batches, id)
	s.mu.Unlock()
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.failed != nil && !errors.Is(b.failed, context.Canceled) {
		return nil, errorf(contract.APIBackendUnavailable, "the batch cannot run: %v", b.failed)
	}
	return &contract.BatchEndResult{Snippets: b.added}, nil
}
