package containerkernel

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/container"
)

// The warm pool keeps started, never used kernel containers for each
// container configuration (image, runtime, limits, workspace…), so that a
// kernel's first start (a document's first move to the container, or the
// start after a restart) takes one instead of waiting. A container taken
// belongs to its kernel from then on and is never given back: no state
// goes from one document to another. The pool is refilled in the
// background, bounded (Options.Container.WarmPool per configuration, for
// the few configurations used last), and its containers carry the same
// owner labels as every kernel container, so they are removed with the
// others when the process exits (container.Shutdown) or after it crashed
// (container.ReapOrphans).
var warm = &warmPool{slots: map[string]*warmSlot{}, starting: new(sync.WaitGroup)}

const (
	// warmConfigs is how many configurations the pool keeps containers
	// for; the one used least recently goes first.
	warmConfigs = 4
	// warmRefillDelay lets the cell that took a container run before the
	// pool starts the next one on the same CPUs.
	warmRefillDelay = time.Second
	// warmRetry is how long the pool waits after a start that failed (no
	// engine, no image) before it tries that configuration again.
	warmRetry = 30 * time.Second
)

type warmPool struct {
	mu    sync.Mutex
	slots map[string]*warmSlot
	order []string // configuration keys, least recently used first
	gen   int      // bumped by CloseWarm: fills asked for before it do nothing
	// starting are the fills and starts of this generation: CloseWarm
	// waits for them while later ones join a new group.
	starting *sync.WaitGroup
	// life ends the refills waiting to start and the starts under way
	// (CloseWarm cancels it).
	life context.Context
	end  context.CancelFunc
}

type warmSlot struct {
	cfg      container.Config
	want     int
	ready    []*container.Session
	starting int
	failedAt time.Time
	gone     bool // evicted or closed: what it starts is removed
}

// warmKey identifies what a container is: every field of the
// configuration that shapes it, none of the callbacks.
func warmKey(cfg container.Config) string {
	cfg = cfg.WithDefaults()
	cfg.OnProgress, cfg.Logger, cfg.StartTimeout, cfg.Pull, cfg.WarmPool = nil, nil, 0, "", 0
	rules := cfg.Rules.Key() // by what they show, not by pointer
	cfg.Rules = nil
	return fmt.Sprintf("%#v %s", cfg, rules)
}

// fromPool takes a waiting container for cfg, when the pool has one, and
// has the pool filled (after a while, to leave the CPUs to this start).
func (k *Kernel) fromPool(cfg container.Config) *container.Session {
	if k.opts.Container.WarmPool <= 0 {
		return nil
	}
	s := warm.take(cfg)
	if s != nil && !s.FilesCurrent() {
		// The workspace changed since its files were copied in: the kernel
		// must see them as they are now.
		go s.Close()
		s = nil
	}
	return s
}

// Warm makes sure that containers for kernels configured by opts are
// waiting (opts.Container.WarmPool of them); it returns at once and
// starts them in the background. A missing image is never pulled for the
// pool: the kernel pulls it, with progress.
func Warm(opts Options) {
	k, err := New(opts)
	if err != nil || opts.Container.WarmPool <= 0 {
		return
	}
	warm.fillLater(k.config(), opts.Container.WarmPool, 0)
}

// take returns a waiting container for cfg, or nil, and has the pool
// refilled behind it. Only a configuration someone warmed (Warm: the
// editors' documents) has a slot: a program's kernel leaves nothing
// waiting.
func (p *warmPool) take(cfg container.Config) *container.Session {
	key := warmKey(cfg)
	p.mu.Lock()
	defer p.mu.Unlock()
	sl := p.slots[key]
	if sl == nil {
		return nil
	}
	p.touch(key)
	p.goFill(cfg, sl.want, warmRefillDelay)
	for len(sl.ready) > 0 {
		s := sl.ready[0]
		sl.ready = sl.ready[1:]
		if s.Alive() {
			return s
		}
		go s.Close() // it stopped while it waited
	}
	return nil
}

// fillLater fills cfg's slot after delay, unless CloseWarm comes first.
func (p *warmPool) fillLater(cfg container.Config, want int, delay time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.goFill(cfg, want, delay)
}

// goFill runs fill in the background, ended by CloseWarm; p.mu is held.
func (p *warmPool) goFill(cfg container.Config, want int, delay time.Duration) {
	if p.life == nil {
		p.life, p.end = context.WithCancel(context.Background())
	}
	life, gen := p.life, p.gen
	p.starting.Go(func() { p.fill(life, cfg, want, delay, gen) })
}

// fill starts, after delay, as many containers as cfg's slot lacks,
// unless the pool was closed since generation gen.
func (p *warmPool) fill(life context.Context, cfg container.Config, want int, delay time.Duration, gen int) {
	if delay > 0 {
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-life.Done():
			return
		}
	}
	cfg.Pull = container.PullNever
	key := warmKey(cfg)
	p.mu.Lock()
	if p.gen != gen {
		p.mu.Unlock()
		return
	}
	sl := p.slots[key]
	if sl == nil {
		sl = &warmSlot{cfg: cfg}
		p.slots[key] = sl
		p.evict()
	}
	p.touch(key)
	sl.want = want
	if !sl.failedAt.IsZero() && time.Since(sl.failedAt) < warmRetry {
		p.mu.Unlock()
		return
	}
	n := sl.want - len(sl.ready) - sl.starting
	sl.starting += max(n, 0)
	for range n {
		p.starting.Go(func() { p.start(life, sl) })
	}
	p.mu.Unlock()
}

func (p *warmPool) start(life context.Context, sl *warmSlot) {
	log := sl.cfg.Logger
	if log == nil {
		log = zap.NewNop()
	}
	// Ended by CloseWarm: a stuck start must not hold a server's exit. A
	// start cancelled in the middle removes what it created (container.Start
	// waits for the create it asked for, then removes it).
	ctx, cancel := context.WithTimeout(life, container.DefaultStartTimeout)
	defer cancel()
	e, err := container.Shared(ctx, sl.cfg.DockerHost, log)
	var s *container.Session
	if err == nil {
		s, err = e.Start(ctx, sl.cfg)
	}
	if err == nil {
		// The driver's first cell pays for what it loads on first use
		// (under gVisor, ms): an empty silent one pays it here.
		if _, err = s.Exec(ctx, container.ExecRequest{Code: "", Silent: true}, nil); err != nil {
			s.Close()
		}
	}
	p.mu.Lock()
	sl.starting--
	keep := err == nil && !sl.gone && len(sl.ready) < sl.want
	if keep {
		sl.ready = append(sl.ready, s)
		sl.failedAt = time.Time{}
	} else if err != nil && life.Err() == nil {
		sl.failedAt = time.Now()
	}
	p.mu.Unlock()
	switch {
	case err != nil && life.Err() != nil:
		log.Debug("warm pool: start cancelled", zap.Error(err))
	case err != nil:
		log.Info("warm pool: no container", zap.Error(err))
	case !keep:
		s.Close()
	}
}

// touch marks key as used last; p.mu is held.
func (p *warmPool) touch(key string) {
	if i := slices.Index(p.order, key); i >= 0 {
		p.order = slices.Delete(p.order, i, i+1)
	}
	p.order = append(p.order, key)
}

// evict drops the configurations used least recently beyond
// warmConfigs, with their containers; p.mu is held.
func (p *warmPool) evict() {
	for len(p.slots) > warmConfigs && len(p.order) > 0 {
		key := p.order[0]
		p.order = p.order[1:]
		if sl := p.slots[key]; sl != nil {
			p.drop(sl)
			delete(p.slots, key)
		}
	}
}

func (p *warmPool) drop(sl *warmSlot) {
	sl.gone = true
	for _, s := range sl.ready {
		go s.Close()
	}
	sl.ready = nil
}

// CloseWarm removes every waiting container, drops the refills not yet
// begun and cancels the starts under way, which remove what they created;
// nothing of the pool is left when it returns.
func CloseWarm() {
	warm.mu.Lock()
	slots := warm.slots
	warm.slots, warm.order = map[string]*warmSlot{}, nil
	warm.gen++
	if warm.end != nil {
		warm.end() // refills still waiting give up
		warm.life, warm.end = nil, nil
	}
	starting := warm.starting
	warm.starting = new(sync.WaitGroup)
	var all []*container.Session
	for _, sl := range slots {
		sl.gone = true
		all = append(all, sl.ready...)
		sl.ready = nil
	}
	warm.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range all {
		wg.Go(func() { s.Close() })
	}
	wg.Wait()
	starting.Wait() // cancelled, they remove what they started
}

// WarmReady is how many containers wait for kernels configured by opts.
func WarmReady(opts Options) int {
	k, err := New(opts)
	if err != nil {
		return 0
	}
	warm.mu.Lock()
	defer warm.mu.Unlock()
	if sl := warm.slots[warmKey(k.config())]; sl != nil {
		return len(sl.ready)
	}
	return 0
}
