package kernels

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/cells"
	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// expectedCell is one cell of a NAME.expected.json recording
// (scripts/record-cpython.py): what CPython showed for it.
type expectedCell struct {
	Index  int     `json:"index"`
	Title  string  `json:"title"`
	Line   int     `json:"line"`
	Status string  `json:"status"`
	Stdout string  `json:"stdout"`
	Stderr string  `json:"stderr"`
	Value  *string `json:"value"`
	EName  *string `json:"ename"`
	EValue *string `json:"evalue"`
}

type expectedNotebook struct {
	Notebook string         `json:"notebook"`
	Python   string         `json:"python"`
	Cells    []expectedCell `json:"cells"`
}

// readExpected reads the recording beside notebook path (NAME.py →
// NAME.expected.json).
func readExpected(t testing.TB, path string) expectedNotebook {
	t.Helper()
	data, err := os.ReadFile(strings.TrimSuffix(path, ".py") + ".expected.json")
	if err != nil {
		t.Fatalf("%v (run scripts/record-cpython.py)", err)
	}
	var e expectedNotebook
	if err := json.Unmarshal(data, &e); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return e
}

// filesCorpus are the notebooks of corpus/files (each has its recording
// beside it) and the set's folder, the workspace they see.
func filesCorpus(t testing.TB) (root string, notebooks []string) {
	t.Helper()
	root, err := filepath.Abs("../../corpus/files")
	if err != nil {
		t.Fatal(err)
	}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(p, ".expected.json") {
			notebooks = append(notebooks, strings.TrimSuffix(p, ".expected.json")+".py")
		}
		return nil
	})
	sort.Strings(notebooks)
	if len(notebooks) < 12 {
		t.Fatalf("only %d notebooks in %s", len(notebooks), root)
	}
	return root, notebooks
}

// diffCell says how a kernel's result differs from CPython's, "" if not.
func diffCell(r kernel.Result, want expectedCell) string {
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	got := [6]string{string(r.Status), r.Stdout, r.Stderr}
	if r.Value != nil {
		got[3] = r.Value.Text
	}
	if r.Error != nil {
		got[4], got[5] = r.Error.EName, r.Error.EValue
	}
	cpython := [6]string{want.Status, want.Stdout, want.Stderr, str(want.Value), str(want.EName), str(want.EValue)}
	var diffs []string
	for i, field := range [6]string{"status", "stdout", "stderr", "value", "ename", "evalue"} {
		if got[i] != cpython[i] {
			diffs = append(diffs, fmt.Sprintf("%s: got %q, CPython %q", field, got[i], cpython[i]))
		}
	}
	return strings.Join(diffs, "; ")
}

// knownDivergent are cells whose difference from CPython is by design,
// with the reason; they are reported, not failed, and must stay different
// (so the list stays true).
var knownDivergent = map[string]string{}

// TestFilesCorpus runs every corpus/files notebook in its own folder, with
// corpus/files as the workspace, in auto mode and in container mode, and
// compares each cell with what CPython showed. Writes stay in each
// kernel's overlay, so every notebook sees the tree as checked in.
func TestFilesCorpus(t *testing.T) {
	if testing.Short() {
		t.Skip("needs the Monty worker, a container engine and the test image")
	}
	root, notebooks := filesCorpus(t)
	for _, mode := range []contract.Backend{contract.BackendAuto, contract.BackendContainer} {
		t.Run(string(mode), func(t *testing.T) {
			same, onMonty, total := 0, 0, 0
			for _, nb := range notebooks {
				src, err := os.ReadFile(nb)
				if err != nil {
					t.Fatal(err)
				}
				want := readExpected(t, nb)
				code := cells.CodeCells(cells.Parse(string(src)))
				if len(code) != len(want.Cells) {
					t.Fatalf("%s: %d cells, %d recorded", nb, len(code), len(want.Cells))
				}
				s := contract.DefaultSettings()
				s.Backend, s.Timeout, s.Container.Image = mode, 120, containertest.Image()
				k, err := New(kernel.Config{Settings: s, Roots: []string{root}, Dir: filepath.Dir(nb)})
				if err != nil {
					t.Fatal(err)
				}
				rel, _ := filepath.Rel(root, nb)
				for i, c := range code {
					r, err := k.Execute(context.Background(), kernel.Request{Code: c.Code})
					if err != nil {
						t.Fatalf("%s cell %d: %v", rel, i+1, err)
					}
					total++
					if r.Backend == contract.BackendMonty {
						onMonty++
					}
					d := diffCell(r, want.Cells[i])
					why, known := knownDivergent[fmt.Sprintf("%s#%d", filepath.ToSlash(rel), i+1)]
					switch {
					case d == "" && known:
						same++
						t.Errorf("%s cell %d is listed as divergent (%s) but matches CPython: drop it from knownDivergent", rel, i+1, why)
					case d == "":
						same++
					case known:
						t.Logf("%s cell %d differs by design (%s): %s", rel, i+1, why, d)
					default:
						t.Errorf("%s cell %d %q (on %s): %s", rel, i+1, want.Cells[i].Title, r.Backend, d)
					}
				}
				k.Close()
			}
			t.Logf("%s: %d of %d cells as CPython %s shows them (%.0f%%); %d ran on Monty (%.0f%%)",
				mode, same, total, "3.11", 100*float64(same)/float64(total), onMonty, 100*float64(onMonty)/float64(total))
		})
	}
}
