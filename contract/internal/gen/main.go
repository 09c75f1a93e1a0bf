// Command gen writes what is generated from the contract package's
// declarations: the server's command dispatch and the records' JSON
// encoders (contract/zz_generated.go), the VS Code extension's
// contract.gen.ts and package.json settings, the Neovim plugin's contract
// table, the README's command, setting, tool and endpoint tables,
// docs/contract.md and docs/http.md.
//
// Run from the contract directory (go generate does): `go run ./internal/gen`.
// With -check it writes nothing and fails when a file is not current.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	check := flag.Bool("check", false, "report files that are not current instead of writing them")
	flag.Parse()
	if err := run(*check); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(check bool) error {
	m, err := load(".")
	if err != nil {
		return err
	}
	root := ".."
	outs, err := m.outputs(root)
	if err != nil {
		return err
	}
	var stale []string
	for _, o := range outs {
		path := filepath.Join(root, o.path)
		old, _ := os.ReadFile(path)
		if bytes.Equal(old, o.data) {
			continue
		}
		if check {
			stale = append(stale, o.path)
			continue
		}
		if err := os.WriteFile(path, o.data, 0o644); err != nil {
			return err
		}
	}
	if len(stale) > 0 {
		return fmt.Errorf("not current (run `make generate`): %v", stale)
	}
	return nil
}

type output struct {
	path string // relative to the repository root
	data []byte
}

// outputs renders every generated file; files with hand-written parts
// (package.json, README.md) are read from root and spliced.
func (m *model) outputs(root string) ([]output, error) {
	g, err := m.goFile()
	if err != nil {
		return nil, err
	}
	pkg, err := m.packageJSON(root)
	if err != nil {
		return nil, err
	}
	readme, err := m.readme(root)
	if err != nil {
		return nil, err
	}
	return []output{
		{"contract/zz_generated.go", g},
		{"editors/vscode/src/contract.gen.ts", m.tsFile()},
		{"editors/vscode/package.json", pkg},
		{"editors/neovim/lua/backyard/contract.lua", m.luaFile()},
		{"README.md", readme},
		{"docs/contract.md", m.contractDoc()},
		{"docs/http.md", m.httpDoc()},
	}, nil
}
