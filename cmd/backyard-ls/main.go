// Command backyard-ls is a language server that runs the `# %%` cells of
// plain Python files in a sandboxed, stateful kernel (Monty by default, a
// container when a cell needs full CPython).
//
// Usage:
//
//	backyard-ls [serve] [--stdio] [flags]   run the language server on stdio (default)
//	backyard-ls run [flags] FILE.py         run every code cell of a file, notebook style
//	backyard-ls batch [flags] < in.jsonl    run independent snippets, one result line each
//	backyard-ls mcp [--http ADDR] [flags]   the MCP server for AI agents (stdio by default)
//	backyard-ls http [--listen ADDR] [flags] the HTTP service: SandboxFusion's API and sessions
//	backyard-ls doctor                      report the Monty worker and the container engine
//	backyard-ls version                     print versions
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	args := os.Args[1:]
	cmd := "serve"
	if len(args) > 0 && len(args[0]) > 0 && args[0][0] != '-' {
		cmd, args = args[0], args[1:]
	}
	var code int
	switch cmd {
	case "serve":
		code = runServe(args)
	case "run":
		code = runRun(args)
	case "batch":
		code = runBatch(args)
	case "mcp":
		code = runMCP(args)
	case "http":
		code = runHTTP(args)
	case "doctor":
		code = runDoctor(args)
	case "version":
		code = runVersion(args)
	case "help":
		usage()
	default:
		fmt.Fprintf(os.Stderr, "backyard-ls: unknown command %q\n", cmd)
		usage()
		code = 2
	}
	os.Exit(code)
}

func usage() {
	fmt.Fprint(os.Stderr, `usage:
  backyard-ls [serve] [--stdio] [flags]   language server on stdio (the default)
  backyard-ls run [flags] FILE.py         run every code cell, print each cell's output
  backyard-ls batch [flags] < in.jsonl    run independent snippets (JSON Lines), one record each
  backyard-ls mcp [--http ADDR] [flags]   MCP tools for AI agents, on stdio or streamable HTTP
  backyard-ls http [--listen ADDR] [flags] SandboxFusion's /run_code and /run_jupyter, and sessions
  backyard-ls doctor                      what was found: Monty worker, container engine, runtimes
  backyard-ls version                     versions of backyard-ls and its worker
Run "backyard-ls COMMAND -h" for the flags of a command.
`)
}

// parseStatus is the exit status after a flag error: 0 for -h (help was
// asked for and printed), 2 for a usage error.
func parseStatus(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}
