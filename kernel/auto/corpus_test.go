package auto

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/cells"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// corpusCell is what CPython printed for one cell
// (scripts/gen-corpus-expected.sh).
type corpusCell struct {
	Status string  `json:"status"`
	Stdout string  `json:"stdout"`
	Stderr string  `json:"stderr"`
	Value  *string `json:"value"`
	EName  *string `json:"ename"`
	EValue *string `json:"evalue"`
}

// TestCorpusMatchesCPython runs every corpus notebook in auto mode and
// checks that each cell prints what CPython printed, whichever backend ran
// it. It also reports the share of cells Monty served.
func TestCorpusMatchesCPython(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine and the test image")
	}
	files, _ := filepath.Glob("testdata/corpus/*.py")
	if len(files) == 0 {
		t.Fatal("no corpus")
	}
	monty, total := 0, 0
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		want := readExpected(t, strings.TrimSuffix(f, ".py")+".expected.jsonl")
		a, err := New(testConfig(func(s *contract.Settings) { s.Timeout = 60 }))
		if err != nil {
			t.Fatal(err)
		}
		code := cells.CodeCells(cells.Parse(string(src)))
		if len(code) != len(want) {
			t.Fatalf("%s: %d cells, %d expected", f, len(code), len(want))
		}
		for i, c := range code {
			r, err := a.Execute(context.Background(), kernel.Request{Code: c.Code})
			if err != nil {
				t.Fatalf("%s cell %d: %v", f, i+1, err)
			}
			total++
			if r.Backend == contract.BackendMonty {
				monty++
			}
			if diff := compareCell(r, want[i]); diff != "" {
				t.Errorf("%s cell %d (ran on %s): %s", filepath.Base(f), i+1, r.Backend, diff)
			}
		}
		a.Close()
	}
	t.Logf("Monty served %d of %d corpus cells (%.0f%%)", monty, total, 100*float64(monty)/float64(total))
}

func readExpected(t *testing.T, path string) []corpusCell {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (run scripts/gen-corpus-expected.sh)", err)
	}
	defer f.Close()
	var out []corpusCell
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var c corpusCell
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

func compareCell(r kernel.Result, want corpusCell) string {
	var diffs []string
	check := func(what, got, want string) {
		if got != want {
			diffs = append(diffs, what+": got "+quote(got)+", CPython "+quote(want))
		}
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	check("status", string(r.Status), want.Status)
	check("stdout", r.Stdout, want.Stdout)
	check("stderr", r.Stderr, want.Stderr)
	value := ""
	if r.Value != nil {
		value = r.Value.Text
	}
	check("value", value, str(want.Value))
	ename, evalue := "", ""
	if r.Error != nil {
		ename, evalue = r.Error.EName, r.Error.EValue
	}
	check("ename", ename, str(want.EName))
	check("evalue", evalue, str(want.EValue))
	return strings.Join(diffs, "; ")
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }
