package lsp

import (
	"context"
	"sync"
	"time"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
)

// Settings arrive three ways: initializationOptions; workspace/
// didChangeConfiguration with the settings (push, clients that cannot be
// asked); and workspace/configuration, which the server asks for the
// "backyard" section when the client supports it (pull: at initialized, and
// whenever the client says the configuration changed). They take effect for
// kernels created afterwards; see contract.Settings.

// DidChangeConfiguration applies pushed settings, or pulls them when the
// notification carries none.
func (s *server) DidChangeConfiguration(_ context.Context, p *protocol.DidChangeConfigurationParams) error {
	if len(p.Settings) > 0 && string(p.Settings) != "null" {
		s.applySettings(p.Settings)
		return nil
	}
	if s.clientCaps().configuration {
		s.pulls.add()
		go func() {
			defer s.pulls.done()
			s.pull()
		}()
	}
	return nil
}

// settleTimeout bounds how long a new kernel waits for settings being
// pulled.
const settleTimeout = 5 * time.Second

// settle waits until the settings pulled after a change have arrived, so
// that a kernel created right after the change gets them (the change's
// notification itself carries none).
func (s *server) settle() {
	idle := s.pulls.idle()
	select {
	case <-idle:
		return
	default:
		s.handOff() // the answer comes through the read loop
	}
	select {
	case <-idle:
	case <-time.After(settleTimeout):
		s.log.Warn("settings from workspace/configuration did not arrive in time")
	case <-s.ctx.Done():
	}
}

// startPulling registers for configuration changes (when the client lets
// the server) and pulls the settings once. Both are calls to the client,
// so they run off the read loop.
func (s *server) startPulling() {
	caps := s.clientCaps()
	if !caps.configuration {
		return
	}
	s.pulls.add()
	go func() {
		defer s.pulls.done()
		if caps.configChangeRegistration {
			ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
			err := s.client.RegisterCapability(ctx, &protocol.RegistrationParams{Registrations: []protocol.Registration{{
				ID: "backyard-configuration", Method: protocol.MethodWorkspaceDidChangeConfiguration, RegisterOptions: protocol.LSPAny("{}"),
			}}})
			cancel()
			if err != nil {
				s.log.Debug("registering for configuration changes failed", zap.Error(err))
			}
		}
		s.pull()
	}()
}

// pull asks the client for the "backyard" section and applies it. A client
// that answers null (no such section) changes nothing.
func (s *server) pull() {
	ctx, cancel := context.WithTimeout(s.ctx, 30*time.Second)
	defer cancel()
	section := "backyard"
	items, err := s.client.Configuration(ctx, &protocol.ConfigurationParams{Items: []protocol.ConfigurationItem{{Section: &section}}})
	if err != nil {
		s.log.Debug("workspace/configuration failed", zap.Error(err))
		return
	}
	if len(items) == 1 && len(items[0]) > 0 && string(items[0]) != "null" {
		s.applySettings(items[0])
	}
}

// applySettings parses raw over the client's settings; invalid values are
// reported with window/showMessage and ignored.
func (s *server) applySettings(raw []byte) {
	s.mu.Lock()
	o, warns := contract.ParseSettings(raw, s.overrides)
	s.overrides = o
	s.mu.Unlock()
	s.log.Info("settings", zap.Any("overrides", o))
	for _, w := range warns {
		s.showMessage(protocol.MessageTypeWarning, "backyard: %s", w)
	}
}

// pending counts work in flight; idle is closed when there is none.
type pending struct {
	mu   sync.Mutex
	n    int
	none chan struct{} // closed while n == 0
}

func (p *pending) add() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n == 0 {
		p.none = make(chan struct{})
	}
	p.n++
}

func (p *pending) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n--; p.n == 0 {
		close(p.none)
	}
}

func (p *pending) idle() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.n == 0 {
		c := make(chan struct{})
		close(c)
		return c
	}
	return p.none
}
