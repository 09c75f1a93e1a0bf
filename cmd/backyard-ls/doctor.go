package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/monty"
)

// runDoctor reports what backyard-ls found and what is missing. Exit status
// 1 when the Monty worker (needed for the default backend) is unusable.
func runDoctor(args []string) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	montyPath := fs.String("monty", "", "path of the Monty worker")
	image := fs.String("image", "", "container image to check (default "+container.DefaultImage+")")
	if err := fs.Parse(args); err != nil {
		return parseStatus(err)
	}
	ok := true
	fmt.Printf("backyard-ls %s\n\n", version)

	fmt.Println("Monty worker (default backend)")
	for _, c := range monty.Lookup(*montyPath) {
		mark := "  -"
		if c.Found {
			mark = "  ✓"
		}
		fmt.Printf("%s %-20s %s\n", mark, c.Source, c.Path)
	}
	path, err := monty.Find(*montyPath)
	if err != nil {
		ok = false
		fmt.Printf("  ✗ %v\n    %s\n", err, strings.ReplaceAll(monty.InstallHint(), "\n", "\n    "))
	} else {
		v, verr := monty.Version(path)
		fmt.Printf("  using %s\n  version %s (supported: %s, protocol %d)\n", path, v, monty.RuntimeVersion, monty.ProtocolVersion)
		if verr == nil && v != monty.RuntimeVersion {
			fmt.Printf("  ! not the pinned release; it works if it serves protocol %d\n", monty.ProtocolVersion)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		k, kerr := kernel.NewMonty(kernel.MontyOptions{Binary: path})
		if kerr == nil {
			start := time.Now()
			r, rerr := k.Execute(ctx, kernel.Request{Code: "1 + 1"})
			k.Close()
			if rerr != nil || r.Value == nil || r.Value.Text != "2" {
				ok = false
				fmt.Printf("  ✗ test cell failed: %v %+v\n", rerr, r.Error)
			} else {
				fmt.Printf("  ✓ test cell 1 + 1 = 2 (cold start to result %.1f ms)\n", float64(time.Since(start).Microseconds())/1000)
			}
		}
		cancel()
	}
	fmt.Println()
	fmt.Println("Container engine (container backend)")
	doctorContainer(*image)
	if !ok {
		os.Stdout.Sync()
		return 1
	}
	return 0
}
