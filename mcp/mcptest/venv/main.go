// Command venv prints the path of the Python that has the pinned MCP
// client and pydantic-monty (mcp/testdata/requirements.txt), creating its
// cached virtual environment when needed; scripts/bench-mcp.sh uses it.
package main

import (
	"fmt"
	"os"

	"github.com/backyard-ls/backyard-ls/mcp/mcptest"
)

func main() {
	py, err := mcptest.EnsurePython()
	if err != nil {
		fmt.Fprintln(os.Stderr, "venv:", err)
		os.Exit(1)
	}
	fmt.Println(py)
}
