package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

// TestFilesCommands: a document's kernel runs in its folder and reads the
// files beside it; what a cell writes is in its record, listed by
// backyard.files, absent from the disk until backyard.saveFiles writes it.
func TestFilesCommands(t *testing.T) {
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ws, "data.csv"), []byte("n\n4\n"), 0o644)
	c := start(t, lsptest.Neovim07, map[string]any{"backend": "monty"})
	doc := string(uri.File(filepath.Join(ws, "nb.py")))
	text := "import os\nprint(os.getcwd())\nopen('data.csv').read()\n# %%\nwith open('out.txt', 'w') as f:\n    f.write('saved')\n"
	if err := c.Open(testCtx(t), doc, text); err != nil {
		t.Fatal(err)
	}
	ex := run(t, c, contract.CmdRunCell, map[string]any{"uri": doc, "line": 0})
	if len(ex) != 1 || ex[0].Stdout != ws+"\n" || ex[0].Result == nil || ex[0].Result.Text != `'n\n4\n'` {
		t.Fatalf("%s", mustJSON(ex))
	}
	var rec struct {
		Executions []struct {
			Files []contract.FileChange `json:"files"`
		} `json:"executions"`
	}
	if err := c.Command(testCtx(t), contract.CmdRunCell, map[string]any{"uri": doc, "line": 4}, &rec); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(ws, "out.txt")
	if len(rec.Executions) != 1 || len(rec.Executions[0].Files) != 1 || rec.Executions[0].Files[0] != (contract.FileChange{Path: out, State: contract.FileCreated}) {
		t.Fatalf("%s", mustJSON(rec))
	}
	lenses, err := c.CodeLenses(testCtx(t), doc)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, l := range lenses {
		found = found || l.Line == 3 && strings.HasSuffix(l.Title, " · +1")
	}
	if !found {
		t.Fatalf("no status lens with the change count: %+v", lenses)
	}
	var list contract.FilesResult
	if err := c.Command(testCtx(t), contract.CmdFiles, map[string]any{"uri": doc}, &list); err != nil {
		t.Fatal(err)
	}
	if list.Write != contract.FilesSandbox || len(list.Files) != 1 || list.Files[0] != (contract.FileEntry{Path: out, Size: 5, State: contract.FileCreated}) {
		t.Fatalf("%s", mustJSON(list))
	}
	if _, err := os.Stat(out); err == nil {
		t.Fatal("the write reached the disk before it was saved")
	}
	var info contract.KernelInfo
	if err := c.Command(testCtx(t), contract.CmdKernelInfo, map[string]any{"uri": doc}, &info); err != nil || info.Write != contract.FilesSandbox {
		t.Fatalf("%+v %v", info, err)
	}
	err = c.Command(testCtx(t), contract.CmdSaveFiles, map[string]any{"uri": doc, "paths": []string{filepath.Join(ws, "data.csv")}}, nil)
	if err == nil || !strings.Contains(err.Error(), "not a file the kernel changed") {
		t.Fatalf("saving an unchanged file: %v", err)
	}
	if err := c.Command(testCtx(t), contract.CmdSaveFiles, map[string]any{"uri": doc}, nil); err == nil || !strings.Contains(err.Error(), "paths") {
		t.Fatalf("no paths: %v", err)
	}
	var saved contract.SaveFilesResult
	if err := c.Command(testCtx(t), contract.CmdSaveFiles, map[string]any{"uri": doc, "paths": []string{out}}, &saved); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(out); len(saved.Saved) != 1 || string(data) != "saved" {
		t.Fatalf("%+v %q", saved, data)
	}
	if err := c.Command(testCtx(t), contract.CmdFiles, map[string]any{"uri": doc}, &list); err != nil || len(list.Files) != 0 {
		t.Fatalf("after saving: %s %v", mustJSON(list), err)
	}
}
