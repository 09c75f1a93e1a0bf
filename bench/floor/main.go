// Command floor is the floor a language server's round trip is measured
// against: a minimal LSP responder that reads each request on its one
// goroutine and writes a canned answer at once, over the same stdio pipes
// and framing as backyard-ls. bench/roundtrip.py drives it and the real
// server with the same client.
//
// Two flags add, one at a time, what a runCell of the real server cannot
// do without, so the gap between the floor and the server splits into
// what the contract and the kernel's process cost and what the server's
// own code costs:
//
//	-notify       the run's five notifications (queued, running, busy;
//	              idle, done), canned, written as the server writes them:
//	              the first three once the cell is on its way, the rest
//	              with the response
//	-monty PATH   one real round trip per run to a Monty worker (the cell
//	              "x = 1", through package monty, reading as a notebook
//	              kernel reads: spinning before it parks)
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/backyard-ls/backyard-ls/monty"
)

// result is shaped like a trivial cell's answer from the server.
const result = `{"executions":[{"id":"e1","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":5}},"executionCount":1,"status":"ok","stdout":"","stderr":"","backend":"monty","runtime":"monty","durationMs":0.02}]}`

// started and ended are a trivial run's notifications as the server
// sends them (the same fields and sizes), before and after the cell.
var (
	started = []string{
		`{"jsonrpc":"2.0","method":"backyard/executionState","params":{"uri":"file:///tmp/roundtrip.py","executionId":"e1","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":5}},"state":"queued"}}`,
		`{"jsonrpc":"2.0","method":"backyard/executionState","params":{"uri":"file:///tmp/roundtrip.py","executionId":"e1","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":5}},"state":"running"}}`,
		`{"jsonrpc":"2.0","method":"backyard/kernelState","params":{"uri":"file:///tmp/roundtrip.py","backend":"monty","runtime":"monty","state":"busy"}}`,
	}
	ended = []string{
		`{"jsonrpc":"2.0","method":"backyard/kernelState","params":{"uri":"file:///tmp/roundtrip.py","backend":"monty","runtime":"monty","state":"idle"}}`,
		`{"jsonrpc":"2.0","method":"backyard/executionState","params":{"uri":"file:///tmp/roundtrip.py","executionId":"e1","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":5}},"state":"done","execution":` + result[len(`{"executions":[`):len(result)-2] + `}}`,
	}
)

func main() {
	notify := flag.Bool("notify", false, "send a run's five notifications")
	bin := flag.String("monty", "", "run x = 1 on this Monty worker per run")
	flag.Parse()
	var w *monty.Worker
	if *bin != "" {
		var err error
		if w, err = monty.Start(context.Background(), monty.Config{Binary: *bin}); err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(1)
		}
		defer w.Close()
	}
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	out := bufio.NewWriter(os.Stdout)
	frame := func(s string) { fmt.Fprintf(out, "Content-Length: %d\r\n\r\n%s", len(s), s) }
	for {
		n := 0
		for {
			line, err := in.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if v, ok := strings.CutPrefix(line, "Content-Length:"); ok {
				n, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(in, body); err != nil {
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &msg) != nil || msg.ID == nil {
			if msg.Method == "exit" {
				return
			}
			continue // a notification
		}
		res := result
		switch msg.Method {
		case "initialize":
			res = `{"capabilities":{}}`
		case "shutdown":
			res = "null"
		case "workspace/executeCommand":
			run(w, *notify, frame, out)
		}
		frame(`{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":` + res + `}`)
		out.Flush()
	}
}

// run does what a run needs besides its response: the worker's round
// trip and the notifications, in the server's order.
func run(w *monty.Worker, notify bool, frame func(string), out *bufio.Writer) {
	if notify {
		for _, s := range started {
			frame(s)
		}
	}
	if w != nil {
		if _, err := w.Feed(context.Background(), "x = 1", monty.FeedOptions{OnSent: func() { out.Flush() }}); err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(1)
		}
	} else {
		out.Flush()
	}
	if notify {
		for _, s := range ended {
			frame(s)
		}
	}
}
