package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
	"go.uber.org/zap"
)

// Install actions offered by window/showMessageRequest.
const (
	actionInstall = "Install"
	actionNotNow  = "Not now"
)

// confirmInstall asks the user whether to install packages a document's
// cell needs (setting backyard.autoInstall "ask"). No answer, an error or a
// dismissed message means no.
func (s *server) confirmInstall(ctx context.Context, uri string, packages []string) bool {
	params := &protocol.ShowMessageRequestParams{
		Type: protocol.MessageTypeInfo,
		Message: fmt.Sprintf("backyard: %s needs %s, which the container image lacks. Install into the container's package volume (the kernel stays offline)?",
			displayName(uri), strings.Join(packages, ", ")),
		Actions: []protocol.MessageActionItem{{Title: actionInstall}, {Title: actionNotNow}},
	}
	var choice *protocol.MessageActionItem
	if _, err := s.conn.Call(ctx, "window/showMessageRequest", params, &choice); err != nil {
		s.log.Info("install question failed", zap.Error(err))
		return false
	}
	return choice != nil && choice.Title == actionInstall
}
