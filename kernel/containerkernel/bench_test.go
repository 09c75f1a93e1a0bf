package kernel

import (
	"context"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// Benchmarks of the container kernel against a bare `docker run`. Each
// reports the median of its iterations as "median-ms" besides ns/op;
// scripts/bench-container.sh runs them and prints the ratios.

type timings []time.Duration

func (ts timings) report(b *testing.B, unit string) {
	if len(ts) == 0 {
		return
	}
	s := slices.Clone(ts)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	b.ReportMetric(float64(med)/1e6, unit)
}

// BenchmarkContainerColdStart: a new kernel until its first cell (`pass`)
// has run ("median-ms"), and the same with the kernel's Close, which removes
// the container as `docker run --rm` does ("with-close-median-ms").
func BenchmarkContainerColdStart(b *testing.B) {
	for _, rt := range runtimes {
		b.Run(rt, func(b *testing.B) {
			requireEngine(b)
			// One kernel first, so the engine connection and the image
			// check are warm as in a running server.
			newContainerKernel(b, rt, Limits{}).Start(context.Background())
			var ts, withClose timings
			for b.Loop() {
				start := time.Now()
				k, err := NewContainer(ContainerOptions{Container: ContainerConfig{Image: testImage(), Pull: "never", Runtime: rt}})
				if err != nil {
					b.Fatal(err)
				}
				r, err := k.Execute(context.Background(), Request{Code: "pass"})
				if err != nil || r.Status != StatusOK {
					b.Fatalf("%+v %v", r, err)
				}
				ts = append(ts, time.Since(start))
				k.Close()
				withClose = append(withClose, time.Since(start))
			}
			ts.report(b, "median-ms")
			withClose.report(b, "with-close-median-ms")
		})
	}
}

// BenchmarkDockerRun is the baseline: `docker run --rm --network none
// --runtime=RT IMAGE python3 -c pass`.
func BenchmarkDockerRun(b *testing.B) {
	for _, rt := range runtimes {
		b.Run(rt, func(b *testing.B) {
			requireEngine(b)
			var ts timings
			for b.Loop() {
				start := time.Now()
				out, err := exec.Command("docker", "run", "--rm", "--network", "none", "--runtime="+rt, testImage(), "python3", "-c", "pass").CombinedOutput()
				if err != nil {
					b.Fatalf("%v: %s", err, out)
				}
				ts = append(ts, time.Since(start))
			}
			ts.report(b, "median-ms")
		})
	}
}

// BenchmarkContainerCell: a warm trivial cell, `x = x + 1; x`.
func BenchmarkContainerCell(b *testing.B) {
	for _, rt := range runtimes {
		b.Run(rt, func(b *testing.B) {
			k := newContainerKernel(b, rt, Limits{})
			run(b, k, "x = 0")
			for range 20 {
				run(b, k, "x = x + 1; x")
			}
			var ts timings
			for b.Loop() {
				start := time.Now()
				r, err := k.Execute(context.Background(), Request{Code: "x = x + 1; x"})
				ts = append(ts, time.Since(start))
				if err != nil || r.Value == nil {
					b.Fatalf("%+v %v", r, err)
				}
			}
			ts.report(b, "median-ms")
		})
	}
}

// BenchmarkContainerPrint1000: a cell printing 1000 lines, all streamed.
func BenchmarkContainerPrint1000(b *testing.B) {
	for _, rt := range runtimes {
		b.Run(rt, func(b *testing.B) {
			k := newContainerKernel(b, rt, Limits{})
			code := "for i in range(1000):\n    print(i)"
			run(b, k, code)
			var ts timings
			for b.Loop() {
				lines := 0
				start := time.Now()
				_, err := k.Execute(context.Background(), Request{Code: code, OnOutput: func(_ Stream, text string) {
					lines += strings.Count(text, "\n")
				}})
				ts = append(ts, time.Since(start))
				if err != nil || lines != 1000 {
					b.Fatalf("%d lines, %v", lines, err)
				}
			}
			ts.report(b, "median-ms")
		})
	}
}
