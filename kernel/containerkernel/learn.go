package containerkernel

import (
	"slices"
	"sync"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/pysrc"
)

// What a pool learns of its snippets' imports: a module that learnAfter of
// its recent snippets imported, and at least one in learnShare of them, is
// imported into every fork server (as a --preload would), so the snippets
// after them find it loaded. Recent: the counts halve every learnWindow
// snippets, so a module imported once in a while is never learned.
const (
	learnAfter  = 3
	learnShare  = 8
	learnWindow = 256
	// learnMax bounds the modules learned and learnNames the names
	// counted (the least counted go first): snippets choose the names.
	learnMax   = 16
	learnNames = 512
)

// unlearnable are modules whose import does something beyond defining
// names (opens a browser, prints, starts a GUI): never imported into a
// fork server on a snippet's behalf.
var unlearnable = map[string]bool{
	"__main__": true, "__hello__": true, "__phello__": true, "antigravity": true, "this": true,
	"idlelib": true, "tkinter": true, "turtle": true, "turtledemo": true,
}

// learner counts, for one pool, the modules its snippets import.
type learner struct {
	mu      sync.Mutex
	counts  map[string]int
	seen    int             // snippets since the counts last halved
	recent  int             // snippets the counts stand for (halved with them)
	learned []string        // in the order learned
	refused map[string]bool // failed to import, or made forking unsafe
}

func newLearner(preload []string) *learner {
	l := &learner{counts: map[string]int{}, refused: map[string]bool{}}
	for _, m := range preload {
		l.refused[m] = true // already there: nothing to learn
	}
	return l
}

// saw counts the modules code imports (the import scan of the auto
// router, pysrc.Imports).
func (l *learner) saw(code string) {
	imps := pysrc.Imports(code)
	mods := make([]string, 0, len(imps))
	for _, imp := range imps {
		if imp.Top == "" || imp.Top == "__future__" || unlearnable[imp.Top] || !container.IsModuleName(imp.Module) {
			continue
		}
		mods = append(mods, imp.Module)
	}
	slices.Sort(mods)
	mods = slices.Compact(mods) // a snippet counts once per module
	l.mu.Lock()
	defer l.mu.Unlock()
	l.seen++
	l.recent++
	if l.seen >= learnWindow {
		l.seen = 0
		l.recent /= 2
		for m, n := range l.counts {
			if n /= 2; n == 0 {
				delete(l.counts, m)
			} else {
				l.counts[m] = n
			}
		}
	}
	for _, m := range mods {
		if l.refused[m] || slices.Contains(l.learned, m) {
			continue
		}
		l.counts[m]++
		if n := l.counts[m]; n >= learnAfter && n*learnShare >= l.recent && len(l.learned) < learnMax {
			l.learned = append(l.learned, m)
			delete(l.counts, m)
		}
	}
	if len(l.counts) > learnNames {
		l.forgetLeast()
	}
}

// forgetLeast drops the names counted least, down to half the bound.
func (l *learner) forgetLeast() {
	type named struct {
		m string
		n int
	}
	all := make([]named, 0, len(l.counts))
	for m, n := range l.counts {
		all = append(all, named{m, n})
	}
	slices.SortFunc(all, func(a, b named) int { return a.n - b.n })
	for _, x := range all[:len(all)-learnNames/2] {
		delete(l.counts, x.m)
	}
}

// modules are the modules learned so far.
func (l *learner) modules() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.learned)
}

// refuse forgets modules learned and never learns them again.
func (l *learner) refuse(mods ...string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, m := range mods {
		l.refused[m] = true
		l.learned = slices.DeleteFunc(l.learned, func(x string) bool { return x == m })
	}
}
