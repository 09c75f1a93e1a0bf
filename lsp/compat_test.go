package lsp_test

import (
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

// Names the lsp tests used before the typed test client, kept for tests
// written against them on other branches: they now name the contract's
// types. New tests use the contract types and the client's accessors;
// delete these once nothing uses them.
type (
	runResult = contract.RunResult
	stateMsg  = contract.ExecutionStateParams
	rng       = contract.Range
	pos       = contract.Position
)

// states returns the executionState notifications for id, in order.
func states(c *lsptest.Client, id string) []*contract.ExecutionStateParams {
	return c.ExecutionStates(id)
}

// requests counts the server-to-client requests seen for method.
func requests(c *lsptest.Client, method string) int { return c.Requests(method) }
