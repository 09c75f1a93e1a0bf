// Command floor is the floor a language server's round trip is measured
// against: a minimal LSP responder that reads each request on its one
// goroutine and writes a canned answer at once, over the same stdio pipes
// and framing as backyard-ls. bench/roundtrip.py drives it and the real
// server with the same client.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
)

// result is shaped like a trivial cell's answer from the server.
const result = `{"executions":[{"id":"e1","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":5}},"executionCount":1,"status":"ok","stdout":"","stderr":"","backend":"monty","runtime":"monty","durationMs":0.02}]}`

func main() {
	in := bufio.NewReaderSize(os.Stdin, 64<<10)
	out := bufio.NewWriter(os.Stdout)
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
		if msg.Method == "initialize" {
			res = `{"capabilities":{}}`
		}
		if msg.Method == "shutdown" {
			res = "null"
		}
		resp := `{"jsonrpc":"2.0","id":` + string(msg.ID) + `,"result":` + res + `}`
		fmt.Fprintf(out, "Content-Length: %d\r\n\r\n%s", len(resp), resp)
		out.Flush()
	}
}
