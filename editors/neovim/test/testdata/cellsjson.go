// Command cellsjson parses texts with the server's cell parser, for the
// Neovim plugin's differential test (test/test_cells.lua): it reads a JSON
// array of texts on stdin and writes, for each, the cells as
// [{kind, header, start, stop}]. It lives under testdata so `go build
// ./...` and `go test ./...` skip it; run it with `go run`.
package main

import (
	"encoding/json"
	"os"

	"github.com/backyard-ls/backyard-ls/cells"
)

type cell struct {
	Kind   string `json:"kind"`
	Header int    `json:"header"`
	Start  int    `json:"start"`
	Stop   int    `json:"stop"`
}

func main() {
	var texts []string
	if err := json.NewDecoder(os.Stdin).Decode(&texts); err != nil {
		os.Stderr.WriteString("cellsjson: " + err.Error() + "\n")
		os.Exit(2)
	}
	out := make([][]cell, len(texts))
	for i, t := range texts {
		out[i] = []cell{}
		for _, c := range cells.Parse(t) {
			kind := "code"
			if c.Kind == cells.Markdown {
				kind = "markdown"
			}
			out[i] = append(out[i], cell{kind, c.HeaderLine, c.StartLine, c.EndLine})
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		os.Exit(1)
	}
}
