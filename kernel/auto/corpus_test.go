package auto

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/backyard-ls/backyard-ls/cells"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/montykernel"
	"github.com/backyard-ls/backyard-ls/monty"
	"github.com/backyard-ls/backyard-ls/pysrc"
)

// The corpora: notebooks with what CPython showed for each cell, recorded
// by scripts/record-cpython.py beside them (NAME.expected.json).
var corpusSets = map[string]string{
	"stdlib":       "../../corpus/stdlib",
	"differential": "../../corpus/differential",
	"auto":         "testdata/corpus",
}

// corpusCell is one code cell with what CPython showed for it.
type corpusCell struct {
	Title  string  `json:"title"`
	Line   int     `json:"line"`
	Status string  `json:"status"`
	Stdout string  `json:"stdout"`
	Stderr string  `json:"stderr"`
	Value  *string `json:"value"`
	EName  *string `json:"ename"`
	EValue *string `json:"evalue"`
	Code   string  `json:"-"`
}

type notebook struct {
	name  string
	cells []corpusCell
}

// loadCorpus reads a set's notebooks, matching recorded cells to the
// parsed ones by their first line.
func loadCorpus(t testing.TB, set string) []notebook {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(corpusSets[set], "*.py"))
	if len(files) == 0 {
		t.Fatalf("no notebooks in %s", corpusSets[set])
	}
	var out []notebook
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(strings.TrimSuffix(f, ".py") + ".expected.json")
		if err != nil {
			t.Fatalf("%v (run scripts/record-cpython.py)", err)
		}
		var exp struct {
			Cells []corpusCell `json:"cells"`
		}
		if err := json.Unmarshal(data, &exp); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		code := cells.CodeCells(cells.Parse(string(src)))
		if len(code) != len(exp.Cells) {
			t.Fatalf("%s: %d cells, %d recorded", f, len(code), len(exp.Cells))
		}
		for i, c := range code {
			if c.StartLine != exp.Cells[i].Line {
				t.Fatalf("%s cell %d starts at line %d, recorded at %d", f, i, c.StartLine, exp.Cells[i].Line)
			}
			exp.Cells[i].Code = c.Code
		}
		out = append(out, notebook{name: set + "/" + filepath.Base(f), cells: exp.Cells})
	}
	return out
}

func (c corpusCell) label(nb notebook, i int) string {
	if c.Title != "" {
		return nb.name + ":" + c.Title
	}
	return nb.name + " cell " + itoa(i+1)
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestEveryDifferenceHasARule runs the corpora's cells on Monty alone, as
// the auto kernel would, and checks that every result it would show
// without asking CPython is CPython's: each difference between Monty and
// CPython is caught by a routing rule (the cell runs in the container), a
// check or a confirmed error (the cell's run is compared with CPython's),
// or fixed by a shim. Differential cells stand alone and run in a fresh
// session each; a notebook's cells run in order, up to the first cell that
// would need the container (from there the container decides). It needs
// no container engine, so it runs in every test run; the rules are learned
// from the worker, so a new worker release is checked against them here.
func TestEveryDifferenceHasARule(t *testing.T) {
	bin, err := monty.Find("")
	if err != nil {
		t.Fatal(err)
	}
	caps := capabilities(t)
	pre := prelude(caps.shims())
	w, err := monty.Start(context.Background(), montykernel.WorkerConfig(bin, kernel.DefaultLimits))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { w.Close() }()
	// A fresh session runs the kernel's prelude and the shims'; a cell runs
	// as a kernel cell, its value shown as IPython shows it.
	feed := func(code string, fresh bool) kernel.Result {
		var r kernel.Result
		var lost bool
		if fresh {
			r, lost = montykernel.RunSnippet(context.Background(), w, montykernel.KernelPrelude+code, kernel.DefaultLimits, true)
		} else {
			r, lost = montykernel.RunKernelCell(context.Background(), w, code, kernel.DefaultLimits)
		}
		if lost {
			w.Close()
			if w, err = monty.Start(context.Background(), montykernel.WorkerConfig(bin, kernel.DefaultLimits)); err != nil {
				t.Fatal(err)
			}
		}
		if r.Status == kernel.StatusInterrupted && r.Error != nil && r.Error.EName == "KeyboardInterrupt" {
			r.Status = kernel.StatusError // raised by the cell, as raisedByCell sees it
		}
		return r
	}
	for _, set := range []string{"differential", "stdlib", "auto"} {
		shown, checked := 0, 0
		for _, nb := range loadCorpus(t, set) {
			seen := map[string]bool{}
			standalone := set == "differential"
			started := false
			for i, c := range nb.cells {
				p := planCell(analyze(c.Code), caps, false)
				if p.route != nil {
					checked++
					if !standalone {
						break
					}
					continue
				}
				if !started || standalone {
					feed(pre, true)
					started = true
				}
				r := feed(p.code, false)
				if rules := judge(p, r, seen); len(rules) > 0 {
					checked++
					if !standalone {
						break
					}
					continue
				}
				shown++
				if diff := compareCell(r, c); diff != "" {
					t.Errorf("%s: Monty's result would be shown unchecked, but it is not CPython's: %s", c.label(nb, i), diff)
				}
				for _, n := range pysrc.Names(c.Code) {
					seen[n] = true
				}
			}
		}
		t.Logf("%s: %d cells shown from Monty without a check, %d routed or checked (in notebooks: up to the first such cell)", set, shown, checked)
	}
}

// TestCorpusInAutoMode runs every corpus notebook in auto mode, as an
// editor does (the container pre-warmed when the document opens), and
// checks that each cell shows what CPython showed, whichever backend ran
// it. It reports the share of cells Monty served. Notebooks run a few at a
// time: most of the time goes to starting containers.
func TestCorpusInAutoMode(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine and the test image")
	}
	for _, set := range []string{"stdlib", "differential", "auto"} {
		t.Run(set, func(t *testing.T) {
			var mu sync.Mutex
			total, onMonty, alone, checked, moved := 0, 0, 0, 0, 0
			slots := make(chan struct{}, 3)
			var wg sync.WaitGroup
			for _, nb := range loadCorpus(t, set) {
				wg.Add(1)
				slots <- struct{}{}
				go func() {
					defer func() { <-slots; wg.Done() }()
					a, err := New(testConfig(func(s *contract.Settings) { s.Timeout = 60 }))
					if err != nil {
						t.Error(err)
						return
					}
					defer a.Close()
					var codes []string
					for _, c := range nb.cells {
						codes = append(codes, c.Code)
					}
					a.Prewarm(codes)
					for i, c := range nb.cells {
						r, err := a.Execute(context.Background(), kernel.Request{Code: c.Code})
						if err != nil {
							t.Errorf("%s: %v", c.label(nb, i), err)
							return
						}
						if diff := compareCell(r, c); diff != "" {
							t.Errorf("%s (ran on %s, %+v): %s", c.label(nb, i), r.Backend, r.Routing, diff)
						}
						mu.Lock()
						total++
						if r.Backend == contract.BackendMonty {
							onMonty++
							if r.Routing == nil {
								alone++
							}
						}
						if r.Routing != nil && r.Routing.Check != "" {
							checked++
						}
						if r.Routing != nil && r.Routing.Moved {
							moved++
						}
						mu.Unlock()
					}
				}()
			}
			wg.Wait()
			t.Logf("%s: %d cells; Monty served %d (%.1f%%), %d of them with no check; %d compared with CPython; %d documents moved",
				set, total, onMonty, 100*float64(onMonty)/float64(total), alone, checked, moved)
		})
	}
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
	check("value", valueText(r), str(want.Value))
	ename, evalue := "", ""
	if r.Error != nil {
		ename, evalue = r.Error.EName, r.Error.EValue
	}
	check("ename", ename, str(want.EName))
	check("evalue", evalue, str(want.EValue))
	return strings.Join(diffs, "; ")
}

func quote(s string) string {
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	b, _ := json.Marshal(s)
	return string(b)
}
