package mcp

import (
	"context"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/zap"
)

// askable reports whether the client of ss can ask its user (elicitation).
func askable(ss *sdk.ServerSession) bool {
	p := ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

// confirm asks the client's user whether to install packages; anything
// but an explicit yes is no.
func confirm(ctx context.Context, ss *sdk.ServerSession, packages []string, log *zap.Logger) bool {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	res, err := ss.Elicit(ctx, &sdk.ElicitParams{
		Message: "Install " + strings.Join(packages, ", ") + " into the sandbox's package volume?",
		RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{
			"install": map[string]any{"type": "boolean", "description": "install the packages"},
		}, "required": []string{"install"}},
	})
	if err != nil {
		log.Info("could not ask about an install", zap.Error(err))
		return false
	}
	yes, _ := res.Content["install"].(bool)
	return res.Action == "accept" && yes
}
