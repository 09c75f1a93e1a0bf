package containerkernel

import (
	"context"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
)

// Benchmarks of the container kernel against a bare `docker run`. Each
// reports the median of its iterations as "median-ms" besides ns/op;
// scripts/bench-container.sh runs them and prints the ratios.

// BenchmarkContainerColdStart: a new kernel until its first cell (`pass`)
// has run ("median-ms"), and the same with the kernel's Close, which removes
// the container as `docker run --rm` does ("with-close-median-ms").
func BenchmarkContainerColdStart(b *testing.B) {
	for _, rt := range runtimes {
		b.Run(rt, func(b *testing.B) {
			requireEngine(b)
			// One kernel first, so the engine connection and the image
			// check are warm as in a running server.
			newContainerKernel(b, rt, kernel.Limits{}).Start(context.Background())
			var ts, withClose kerneltest.Samples
			for b.Loop() {
				start := time.Now()
				k, err := New(Options{Container: contract.ContainerSettings{Image: testImage(), Runtime: contract.Runtime(rt)}, Pull: "never"})
				if err != nil {
					b.Fatal(err)
				}
				r, err := k.Execute(context.Background(), kernel.Request{Code: "pass"})
				if err != nil || r.Status != kernel.StatusOK {
					b.Fatalf("%+v %v", r, err)
				}
				ts = append(ts, time.Since(start))
				k.Close()
				withClose = append(withClose, time.Since(start))
			}
			ts.ReportMillis(b, "median-ms")
			withClose.ReportMillis(b, "with-close-median-ms")
		})
	}
}

// BenchmarkDockerRun is the baseline: `docker run --rm --network none
// --runtime=RT IMAGE python3 -c pass`.
func BenchmarkDockerRun(b *testing.B) {
	for _, rt := range runtimes {
		b.Run(rt, func(b *testing.B) {
			requireEngine(b)
			var ts kerneltest.Samples
			for b.Loop() {
				start := time.Now()
				out, err := exec.Command("docker", "run", "--rm", "--network", "none", "--runtime="+rt, testImage(), "python3", "-c", "pass").CombinedOutput()
				if err != nil {
					b.Fatalf("%v: %s", err, out)
				}
				ts = append(ts, time.Since(start))
			}
			ts.ReportMillis(b, "median-ms")
		})
	}
}

// BenchmarkContainerCell: a warm trivial cell, `x = x + 1; x`.
func BenchmarkContainerCell(b *testing.B) {
	for _, rt := range runtimes {
		b.Run(rt, func(b *testing.B) {
			k := newContainerKernel(b, rt, kernel.Limits{})
			kerneltest.Run(b, k, "x = 0")
			for range 20 {
				kerneltest.Run(b, k, "x = x + 1; x")
			}
			var ts kerneltest.Samples
			for b.Loop() {
				start := time.Now()
				r, err := k.Execute(context.Background(), kernel.Request{Code: "x = x + 1; x"})
				ts = append(ts, time.Since(start))
				if err != nil || r.Value == nil {
					b.Fatalf("%+v %v", r, err)
				}
			}
			ts.ReportMillis(b, "median-ms")
		})
	}
}

// BenchmarkContainerPrint1000: a cell printing 1000 lines, all streamed.
func BenchmarkContainerPrint1000(b *testing.B) {
	for _, rt := range runtimes {
		b.Run(rt, func(b *testing.B) {
			k := newContainerKernel(b, rt, kernel.Limits{})
			code := "for i in range(1000):\n    print(i)"
			kerneltest.Run(b, k, code)
			var ts kerneltest.Samples
			for b.Loop() {
				lines := 0
				start := time.Now()
				_, err := k.Execute(context.Background(), kernel.Request{Code: code, OnOutput: func(_ kernel.Stream, text string) {
					lines += strings.Count(text, "\n")
				}})
				ts = append(ts, time.Since(start))
				if err != nil || lines != 1000 {
					b.Fatalf("%d lines, %v", lines, err)
				}
			}
			ts.ReportMillis(b, "median-ms")
		})
	}
}
