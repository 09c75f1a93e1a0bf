package montykernel

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
)

// Benchmarks report the median of the per-operation times as well as Go's
// mean (ns/op): the VM's scheduling noise makes means misleading.
// scripts/bench.sh runs them next to the Jupyter peer.

func benchKernel(b *testing.B, opts Options) *Kernel {
	k, err := New(opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { k.Close() })
	ctx := context.Background()
	if r, err := k.Execute(ctx, kernel.Request{Code: "x = 0"}); err != nil || r.Status != kernel.StatusOK {
		b.Fatal(err, r.Error)
	}
	for range 20 { // warm up
		k.Execute(ctx, kernel.Request{Code: "w = 1"})
	}
	return k
}

func benchTrivial(b *testing.B, opts Options) {
	b.Helper()
	k := benchKernel(b, opts)
	ctx := context.Background()
	var s kerneltest.Samples
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		r, err := k.Execute(ctx, kernel.Request{Code: "x = x + 1"})
		s = append(s, time.Since(t))
		if err != nil || r.Status != kernel.StatusOK {
			b.Fatal(err, r.Error)
		}
	}
	b.StopTimer()
	if r, _ := k.Execute(ctx, kernel.Request{Code: "x"}); r.Value.Text != fmt.Sprint(b.N) {
		b.Fatalf("state lost: x = %s after %d cells", r.Value.Text, b.N)
	}
	s.Report(b)
}

// BenchmarkTrivialCell: `x = x + 1` through the kernel.Kernel, checkpoints
// included.
func BenchmarkTrivialCell(b *testing.B) { benchTrivial(b, Options{}) }

// BenchmarkInterruptRecovery: interrupt a `while True` cell and get the next
// result; the namespace comes back from the checkpoint.
func BenchmarkInterruptRecovery(b *testing.B) {
	k := benchKernel(b, Options{})
	ctx := context.Background()
	var s kerneltest.Samples
	for i := 0; i < b.N; i++ {
		done := make(chan kernel.Result)
		go func() {
			r, _ := k.Execute(ctx, kernel.Request{Code: "while True:\n    pass"})
			done <- r
		}()
		for k.Info().State != kernel.StateBusy {
			time.Sleep(100 * time.Microsecond)
		}
		time.Sleep(time.Millisecond)
		t := time.Now()
		k.Interrupt()
		if r := <-done; r.Status != kernel.StatusInterrupted {
			b.Fatalf("%+v", r)
		}
		r, _ := k.Execute(ctx, kernel.Request{Code: "x"})
		s = append(s, time.Since(t))
		if r.Value == nil || r.Value.Text != "0" {
			b.Fatalf("state lost: %+v", r)
		}
	}
	s.Report(b)
}

// BenchmarkColdStart: from a new kernel to the result of its first cell.
func BenchmarkColdStart(b *testing.B) {
	ctx := context.Background()
	var s kerneltest.Samples
	for i := 0; i < b.N; i++ {
		t := time.Now()
		k, err := New(Options{})
		if err != nil {
			b.Fatal(err)
		}
		r, err := k.Execute(ctx, kernel.Request{Code: "1"})
		s = append(s, time.Since(t))
		if err != nil || r.Value == nil {
			b.Fatal(err)
		}
		b.StopTimer()
		k.Close()
		b.StartTimer()
	}
	s.Report(b)
}

// BenchmarkPrint1000: a cell printing 1000 lines, all received.
func BenchmarkPrint1000(b *testing.B) {
	benchCell(b, "for i in range(1000):\n    print(i)", func(r kernel.Result, _ error) {
		if strings.Count(r.Stdout, "\n") != 1000 {
			b.Fatalf("got %d lines", strings.Count(r.Stdout, "\n"))
		}
	})
}

// benchCell runs code b.N times on one warm kernel, checking each result,
// and reports the samples.
func benchCell(b *testing.B, code string, check func(kernel.Result, error)) {
	k := benchKernel(b, Options{})
	ctx := context.Background()
	var s kerneltest.Samples
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		r, err := k.Execute(ctx, kernel.Request{Code: code})
		s = append(s, time.Since(t))
		check(r, err)
	}
	b.StopTimer()
	s.Report(b)
}

// BenchmarkKernelRSS reports the worker process's peak RSS after 500 cells.
func BenchmarkKernelRSS(b *testing.B) {
	for i := 0; i < b.N; i++ {
		k := benchKernel(b, Options{})
		for range 500 {
			k.Execute(context.Background(), kernel.Request{Code: "x = x + 1"})
		}
		b.ReportMetric(float64(vmHWM(b, k.w.Pid()))/1024, "worker-peak-rss-MiB")
	}
}

// vmHWM reads a process's peak resident set size in KiB.
func vmHWM(b *testing.B, pid int) int {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			var kb int
			fmt.Sscanf(strings.TrimPrefix(line, "VmHWM:"), "%d", &kb)
			return kb
		}
	}
	return 0
}

// BenchmarkValueCell: cells that show a value as IPython does: a number,
// a short list, a list of 30 numbers one a line, a list of 1,000.
func BenchmarkValueCell(b *testing.B) {
	for _, c := range []struct{ name, code string }{{"int", "x"}, {"short-list", "[x, 2, 3]"}, {"list-30", "list(range(30))"}, {"list-1000", "list(range(1000))"}} {
		b.Run(c.name, func(b *testing.B) {
			benchCell(b, c.code, func(r kernel.Result, err error) {
				if err != nil || r.Status != kernel.StatusOK || r.Value == nil {
					b.Fatal(err, r.Error)
				}
			})
		})
	}
}
