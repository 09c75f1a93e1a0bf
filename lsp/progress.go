package lsp

import (
	"context"
	"strconv"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// progressTask is one work-done progress ($/progress begin … end). Its
// cancel function runs when the client sends window/workDoneProgress/cancel
// for its token. A nil task does nothing.
type progressTask struct {
	s      *server
	token  protocol.ProgressToken
	key    string
	begun  chan struct{} // closed once begin was sent or given up
	sent   bool          // begin was sent (set before begun closes)
	ending sync.Once
}

// progressTokens maps live tokens to their cancel functions.
type progressTokens struct {
	mu  sync.Mutex
	seq int
	m   map[string]func()
}

func (p *progressTokens) add(key string, cancel func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]func(){}
	}
	p.m[key] = cancel
}

func (p *progressTokens) remove(key string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.m, key)
}

func (p *progressTokens) get(key string) func() {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.m[key]
}

func progressKey(t protocol.ProgressToken) string {
	switch t := t.(type) {
	case protocol.String:
		return "s:" + string(t)
	case protocol.Integer:
		return "i:" + strconv.Itoa(int(t))
	}
	return ""
}

// startProgress begins server-initiated progress: it creates a token with
// window/workDoneProgress/create, then sends begin. It does nothing for
// clients without window.workDoneProgress. It never blocks: creation waits
// for the client on another goroutine.
func (s *server) startProgress(title string, cancel func()) *progressTask {
	if !s.clientCaps().workDoneProgress {
		return nil
	}
	s.progress.mu.Lock()
	s.progress.seq++
	token := protocol.String("backyard-" + strconv.Itoa(s.progress.seq))
	s.progress.mu.Unlock()
	t := &progressTask{s: s, token: token, key: progressKey(token), begun: make(chan struct{})}
	s.progress.add(t.key, cancel)
	go func() {
		defer close(t.begun)
		ctx, done := context.WithTimeout(s.ctx, 30*time.Second)
		defer done()
		if err := s.client.WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{Token: token}); err != nil {
			s.log.Debug("workDoneProgress/create failed", zap.Error(err))
			return
		}
		t.sendBegin(title)
	}()
	return t
}

// clientProgress reports progress on a token the client gave with its
// request (workDoneToken); nil when it gave none.
func (s *server) clientProgress(token protocol.ProgressToken, title string, cancel func()) *progressTask {
	key := progressKey(token)
	if key == "" {
		return nil
	}
	t := &progressTask{s: s, token: token, key: key, begun: make(chan struct{})}
	s.progress.add(key, cancel)
	t.sendBegin(title)
	close(t.begun)
	return t
}

func (t *progressTask) sendBegin(title string) {
	yes := true
	v, err := protocol.Marshal(&protocol.WorkDoneProgressBegin{Kind: "begin", Title: title, Cancellable: &yes})
	if err != nil {
		return
	}
	_ = t.s.client.Progress(t.s.ctx, &protocol.ProgressParams{Token: t.token, Value: v})
	t.sent = true
}

// Report sends a report once begin is out (earlier ones are dropped: a
// newer report follows). percent < 0 means unknown.
func (t *progressTask) Report(message string, percent int) {
	if t == nil {
		return
	}
	select {
	case <-t.begun:
	default:
		return
	}
	if !t.sent {
		return
	}
	r := &protocol.WorkDoneProgressReport{Kind: "report"}
	if message != "" {
		r.Message = &message
	}
	if percent >= 0 {
		p := uint32(min(percent, 100))
		r.Percentage = &p
	}
	if v, err := protocol.Marshal(r); err == nil {
		_ = t.s.client.Progress(t.s.ctx, &protocol.ProgressParams{Token: t.token, Value: v})
	}
}

// End sends end (after begin, never before) and forgets the token.
func (t *progressTask) End(message string) {
	if t == nil {
		return
	}
	t.ending.Do(func() {
		t.s.progress.remove(t.key)
		send := func() {
			<-t.begun
			if !t.sent {
				return
			}
			e := &protocol.WorkDoneProgressEnd{Kind: "end"}
			if message != "" {
				e.Message = &message
			}
			if v, err := protocol.Marshal(e); err == nil {
				_ = t.s.client.Progress(t.s.ctx, &protocol.ProgressParams{Token: t.token, Value: v})
			}
		}
		select {
		case <-t.begun:
			send()
		default:
			go send()
		}
	})
}

// WorkDoneProgressCancel interrupts what the progress reports on: a
// starting kernel's pending runs, or a run command's executions.
func (s *server) WorkDoneProgressCancel(_ context.Context, p *protocol.WorkDoneProgressCancelParams) error {
	if cancel := s.progress.get(progressKey(p.Token)); cancel != nil {
		cancel()
	}
	return nil
}
