package lsp

import (
	"context"
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
		go s.pull()
	}
	return nil
}

// startPulling registers for configuration changes (when the client lets
// the server) and pulls the settings once. Both are calls to the client,
// so they run off the read loop.
func (s *server) startPulling() {
	caps := s.clientCaps()
	if !caps.configuration {
		return
	}
	go func() {
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
