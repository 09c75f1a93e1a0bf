package main

import (
	_ "embed"
	"fmt"
	"strings"

	"github.com/backyard-ls/backyard-ls/monty"
)

// release is the one place the version is written: `make build`, `go
// install` and the wheels (packaging/python) all take it from this file.
//
//go:embed VERSION
var release string

func init() {
	if version == "dev" { // not set with -ldflags
		version = strings.TrimSpace(release)
	}
}

func runVersion(args []string) int {
	fmt.Printf("backyard-ls %s\n", version)
	fmt.Printf("monty protocol %d (pydantic-monty-runtime %s supported)\n", monty.ProtocolVersion, monty.RuntimeVersion)
	if p, err := monty.Find(""); err == nil {
		v, err := monty.Version(p)
		if err != nil {
			v = "unknown: " + err.Error()
		}
		fmt.Printf("monty worker %s (%s)\n", v, p)
	} else {
		fmt.Printf("monty worker not found\n")
	}
	return 0
}
