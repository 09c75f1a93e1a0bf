package main

import (
	"fmt"
	"os"
)

// runServe is replaced by the language server wiring.
func runServe(args []string) int {
	fmt.Fprintln(os.Stderr, "backyard-ls: serve is not built yet")
	return 1
}
