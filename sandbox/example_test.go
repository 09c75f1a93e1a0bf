package sandbox_test

import (
	"context"
	"fmt"
	"time"

	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/sandbox"
)

// A harness runs model-written code in a stateful sandbox: names persist
// between runs, and a Python exception is a result, not an error.
func ExampleSandbox_Run() {
	sb, err := sandbox.New(sandbox.Options{Limits: kernel.Limits{Timeout: 5 * time.Second}})
	if err != nil {
		panic(err) // no Monty worker: run `make setup`
	}
	defer sb.Close()
	ctx := context.Background()

	sb.Run(ctx, "prices = [3.5, 2.25, 4.0]")
	r, _ := sb.Run(ctx, "print('items:', len(prices))\nsum(prices)")
	fmt.Print(r.Stdout)
	fmt.Println(r.Status, r.Value.Text, r.Backend)

	r, _ = sb.Run(ctx, "prices[10]")
	fmt.Println(r.Status, r.Error.EName, r.Error.EValue)
	// Output:
	// items: 3
	// ok 9.75 monty
	// error IndexError list index out of range
}

// An RL reward loop scores many independent completions in parallel; each
// starts from an empty namespace and results come back in input order.
func ExampleSandbox_RunBatch() {
	sb, err := sandbox.New(sandbox.Options{Limits: kernel.Limits{Timeout: time.Second}})
	if err != nil {
		panic(err)
	}
	defer sb.Close()
	completions := []string{
		"def add(a, b):\n    return a + b\nadd(2, 3)",
		"def add(a, b):\n    return a - b\nadd(2, 3)",
		"while True:\n    pass",
	}
	results, _ := sb.RunBatch(context.Background(), completions, 2)
	for i, r := range results {
		reward := 0
		if r.Status == kernel.StatusOK && r.Value != nil && r.Value.Text == "5" {
			reward = 1
		}
		fmt.Println(i, r.Status, reward)
	}
	// Output:
	// 0 ok 1
	// 1 ok 0
	// 2 timeout 0
}
