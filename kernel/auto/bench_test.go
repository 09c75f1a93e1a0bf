package auto

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/cells"
	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/containerkernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
	"github.com/backyard-ls/backyard-ls/monty"
)

// BenchmarkAutoMove measures what moving a document to the container costs
// on examples/auto/measurements.py: the time of the first cell that needs
// the container (container start, replay of the Monty cells, the cell
// itself), cold and with the container pre-warmed when the document opened.
func BenchmarkAutoMove(b *testing.B) {
	src, err := os.ReadFile("../examples/auto/measurements.py")
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
		if planCell(c, caps).route != nil {
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
