// Package contract is the one declaration of what backyard-ls promises its
// clients: the workspace/executeCommand commands with their argument and
// result types (Commands), the backyard/* notifications, the records they
// carry (Execution, KernelInfo, Variable) and the backyard.* settings with
// their defaults, bounds and enums (Settings).
//
// Everything else is generated from these files by `go generate` (the
// generator is internal/gen; `make generate` runs it, and a test fails when
// the committed output is stale): the server's command dispatch and argument
// checks (zz_generated.go), the records' JSON encoders for the run hot path,
// the VS Code extension's editors/vscode/src/contract.gen.ts and the settings
// of its package.json, the Neovim plugin's lua/backyard/contract.lua, the
// command and setting tables of the README and docs/contract.md.
//
// Declaring a new command means adding a method to Commands (with its
// argument and result types here); a new setting means adding a field to
// Settings or one of its groups. The package depends only on the standard
// library and the JSON library the LSP codec uses, so every layer (the
// language server, the MCP server, the notebook model, the kernels, the CLI)
// can use its types.
package contract

//go:generate go run ./internal/gen
