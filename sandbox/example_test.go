package sandbox_test

import (
	"context"
	"fmt"
	"slices"
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

// Batch streams each result as its snippet ends; the index says which
// snippet it is. Snippets can carry their own stdin lines and time limit
// (files need a container backend).
func ExampleSandbox_Batch() {
	sb, err := sandbox.New(sandbox.Options{Limits: kernel.Limits{Timeout: 5 * time.Second}})
	if err != nil {
		panic(err)
	}
	defer sb.Close()
	snippets := slices.Values([]kernel.Snippet{
		{Code: "sum(x * x for x in range(10))"},
		{Code: "while True:\n    pass", Timeout: 100 * time.Millisecond},
		{Code: "int('4' + '2')"},
	})
	results := make([]kernel.Result, 3)
	err = sb.Batch(context.Background(), snippets, sandbox.BatchOptions{
		Parallelism: 2,
		OnResult:    func(i int, r kernel.Result) { results[i] = r },
	})
	for i, r := range results {
		if r.Value != nil {
			fmt.Println(i, r.Status, r.Value.Text)
		} else {
			fmt.Println(i, r.Status)
		}
	}
	fmt.Println(err)
	// Output:
	// 0 ok 285
	// 1 timeout
	// 2 ok 42
	// <nil>
}
