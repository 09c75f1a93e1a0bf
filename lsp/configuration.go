package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// didChangeConfiguration applies backyard.* settings (see Settings): they
// take effect for kernels created afterwards.
func (s *server) didChangeConfiguration(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p protocol.DidChangeConfigurationParams
	if err := decode(req, &p); err != nil {
		return nil, err
	}
	s.applySettings(p.Settings)
	return nil, nil
}

// applySettings parses raw over the current settings; invalid values are
// reported with window/showMessage and ignored.
func (s *server) applySettings(raw []byte) {
	s.mu.Lock()
	set, warns := parseSettings(raw, s.settings)
	s.settings = set
	s.mu.Unlock()
	s.log.Info("settings", zap.Any("settings", set))
	for _, w := range warns {
		s.showMessage(protocol.MessageTypeWarning, "backyard: %s", w)
	}
}
