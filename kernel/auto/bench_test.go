package auto

import (
	"context"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/cells"
	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/containerkernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
	"github.com/backyard-ls/backyard-ls/kernel/montykernel"
	"github.com/backyard-ls/backyard-ls/monty"
)

// BenchmarkAutoMove measures what moving a document to the container costs
// on examples/auto/measurements.py: the time of the first cell that needs
// the container (container start, replay of the Monty cells, the cell
// itself), cold and with the container pre-warmed when the document opened.
func BenchmarkAutoMove(b *testing.B) {
	src, err := os.ReadFile("../../examples/auto/measurements.py")
	if err != nil {
		b.Fatal(err)
	}
	var codes []string
	for _, c := range cells.CodeCells(cells.Parse(string(src))) {
		codes = append(codes, c.Code)
	}
	bin, err := monty.Find("")
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	caps, err := MontyCapabilities(ctx, bin)
	if err != nil {
		b.Fatal(err)
	}
	move := -1
	for i, c := range codes {
		if planCell(analyze(c), caps, false).route != nil {
			move = i
			break
		}
	}
	if move < 0 {
		b.Fatal("no cell of the example needs the container")
	}
	// The cell itself on a container that is already up, with the same
	// names defined: what the cell costs without any move.
	b.Run("baseline", func(b *testing.B) {
		var s kerneltest.Samples
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			k, err := containerkernel.New(containerkernel.Options{Container: contract.ContainerSettings{Image: containertest.Image()}, Pull: "never"})
			if err != nil {
				b.Fatal(err)
			}
			for _, c := range codes[:move] {
				k.Execute(ctx, kernel.Request{Code: c, Silent: true})
			}
			b.StartTimer()
			t := time.Now()
			r, err := k.Execute(ctx, kernel.Request{Code: codes[move]})
			s = append(s, time.Since(t))
			b.StopTimer()
			if err != nil || r.Status != kernel.StatusOK {
				b.Fatalf("%+v %v", r, err)
			}
			k.Close()
		}
		s.Report(b)
	})
	for _, prewarm := range []bool{false, true} {
		name := "cold"
		if prewarm {
			name = "prewarmed"
		}
		b.Run(name, func(b *testing.B) {
			var s kerneltest.Samples
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				a, err := New(testConfig(nil))
				if err != nil {
					b.Fatal(err)
				}
				if prewarm && !a.Prewarm(codes) {
					b.Fatal("no pre-warm")
				}
				for _, c := range codes[:move] {
					if r, err := a.Execute(ctx, kernel.Request{Code: c}); err != nil || r.Backend != contract.BackendMonty {
						b.Fatalf("%+v %v", r, err)
					}
				}
				if prewarm {
					a.mu.Lock()
					done := a.warmDone
					a.mu.Unlock()
					<-done // the person is still reading the Monty cells' output
				}
				b.StartTimer()
				t := time.Now()
				r, err := a.Execute(ctx, kernel.Request{Code: codes[move]})
				s = append(s, time.Since(t))
				b.StopTimer()
				if err != nil || r.Backend != contract.BackendContainer || r.Status != kernel.StatusOK {
					b.Fatalf("%+v %v", r, err)
				}
				a.Close()
			}
			s.Report(b)
			b.ReportMetric(float64(move), "cells-replayed")
		})
	}
}

// confirmSetup and the error cells of BenchmarkConfirmedError: a few cells
// of plain Python, then a cell that raises. ZeroDivisionError's message
// differs (CPython's is shown, the document stays on Monty); the
// ValueError is the same in both (Monty's stands, confirmed).
var (
	confirmSetup = []string{
		"def split(total, people):\n    base, extra = divmod(total, people)\n    return [base + 1] * extra + [base] * (people - extra)",
		"prices = [1250, 399, 120000, 50]\ntotal = sum(prices)",
		"shares = split(total, 3)\nshares",
		"report = {p: round(p / total * 100) for p in prices}\nreport",
	}
	confirmCells = map[string]string{"message": "split(total, 0)", "same": "raise ValueError(f'bad total {total}')"}
)

// BenchmarkConfirmedError measures what confirming a Monty error on the
// container costs: the error cell's time on Monty alone (what it cost
// without the check), in auto mode with the container pre-warmed and the
// journal replayed (the person is still reading the cells before), and
// cold (the container starts for the check and replays the journal).
func BenchmarkConfirmedError(b *testing.B) {
	ctx := context.Background()
	for _, kind := range []string{"message", "same"} {
		cell := confirmCells[kind]
		b.Run(kind+"/monty", func(b *testing.B) {
			var s kerneltest.Samples
			for i := 0; i < b.N; i++ {
				k, err := montykernel.New(montykernel.Options{})
				if err != nil {
					b.Fatal(err)
				}
				for _, c := range confirmSetup {
					k.Execute(ctx, kernel.Request{Code: c})
				}
				t := time.Now()
				r, err := k.Execute(ctx, kernel.Request{Code: cell})
				s = append(s, time.Since(t))
				if err != nil || r.Status != kernel.StatusError {
					b.Fatalf("%+v %v", r, err)
				}
				k.Close()
			}
			s.ReportMillis(b, "median-ms")
		})
		for _, prewarm := range []bool{true, false} {
			name := kind + "/cold"
			if prewarm {
				name = kind + "/prewarmed"
			}
			b.Run(name, func(b *testing.B) {
				var s kerneltest.Samples
				for i := 0; i < b.N; i++ {
					a, err := New(testConfig(nil))
					if err != nil {
						b.Fatal(err)
					}
					if prewarm && !a.Prewarm(append(slices.Clone(confirmSetup), cell)) {
						// An accidental error: the container runs for another
						// reason (an earlier check started it).
						if _, err := a.container(ctx); err != nil {
							b.Fatal(err)
						}
					}
					for _, c := range confirmSetup {
						if r, err := a.Execute(ctx, kernel.Request{Code: c}); err != nil || r.Backend != contract.BackendMonty {
							b.Fatalf("%+v %v", r, err)
						}
					}
					if prewarm {
						waitCaughtUp(b, a, len(confirmSetup))
					}
					t := time.Now()
					r, err := a.Execute(ctx, kernel.Request{Code: cell})
					s = append(s, time.Since(t))
					if err != nil || r.Status != kernel.StatusError || r.Routing == nil || (r.Routing.Check != contract.CheckMessage && r.Routing.Check != contract.CheckConfirmed) || a.isMoved() {
						b.Fatalf("%+v %v %+v", r, err, r.Routing)
					}
					a.Close()
				}
				s.ReportMillis(b, "median-ms")
			})
		}
	}
}

// waitCaughtUp waits until the container runs and has replayed n journal
// cells: the state a pre-warmed document reaches while its person reads.
func waitCaughtUp(b *testing.B, a *Kernel, n int) {
	deadline := time.Now().Add(time.Minute)
	for {
		a.mu.Lock()
		done := a.started && a.synced >= n && !a.catching
		a.mu.Unlock()
		if done {
			return
		}
		if time.Now().After(deadline) {
			b.Fatal("the container did not catch up")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// benchCell is a cell of plain Python that auto mode runs on Monty with no
// check: what a router adds to every such cell is its own work.
const benchCell = `def area(w, h):
    return w * h
rooms = [("kitchen", 3.5, 4.0), ("hall", 2.0, 6.5), ("study", 3.0, 3.0)]
total = 0
for name, w, h in rooms:
    total += area(w, h)  # square metres
label = f"{len(rooms)} rooms, {total:.1f} m2, largest {max(r[1] * r[2] for r in rooms)}"
label`

// BenchmarkMontyCell measures a cell auto mode runs on Monty, against the
// same cell on a Monty kernel alone in the same run: the difference is
// what the auto kernel adds (reading the cell, its plan, the checks of
// Monty's result).
func BenchmarkMontyCell(b *testing.B) {
	ctx := context.Background()
	for _, kind := range []string{"monty", "auto"} {
		b.Run(kind, func(b *testing.B) {
			var k kernel.Kernel
			var err error
			if kind == "monty" {
				k, err = montykernel.New(montykernel.Options{})
			} else {
				k, err = New(testConfig(nil))
			}
			if err != nil {
				b.Fatal(err)
			}
			defer k.Close()
			if r, err := k.Execute(ctx, kernel.Request{Code: benchCell}); err != nil || r.Status != kernel.StatusOK || r.Backend != contract.BackendMonty || r.Routing != nil {
				b.Fatalf("%+v %v", r, err)
			}
			var s kerneltest.Samples
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t := time.Now()
				r, err := k.Execute(ctx, kernel.Request{Code: benchCell})
				s = append(s, time.Since(t))
				if err != nil || r.Status != kernel.StatusOK {
					b.Fatalf("%+v %v", r, err)
				}
			}
			s.Report(b)
		})
	}
}

// BenchmarkRouteCell measures the router's own reading of benchCell for
// one execution on Monty: the scan, the plan with its shims, the names a
// check compares, the input() test and the journal's names.
func BenchmarkRouteCell(b *testing.B) {
	bin, err := monty.Find("")
	if err != nil {
		b.Fatal(err)
	}
	caps, err := MontyCapabilities(context.Background(), bin)
	if err != nil {
		b.Fatal(err)
	}
	a := &Kernel{seen: map[string]bool{}, ordered: map[string]bool{}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		c := analyze(benchCell)
		if p := planCell(c, caps, false); p.route != nil || a.orderedName(c) != "" || readsInput(c) || len(c.Names) == 0 {
			b.Fatal("benchCell is routed, ordered or reads input()")
		}
	}
}
