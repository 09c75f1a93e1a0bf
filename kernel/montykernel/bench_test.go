package kernel

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"
	"time"
)

// Benchmarks report the median of the per-operation times as well as Go's
// mean (ns/op): the VM's scheduling noise makes means misleading.
// scripts/bench.sh runs them next to the Jupyter peer.

type samples []time.Duration

func (s samples) report(b *testing.B) {
	if len(s) == 0 {
		return
	}
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	b.ReportMetric(float64(s[len(s)/2].Nanoseconds())/1e3, "median-µs")
	b.ReportMetric(float64(s[len(s)*9/10].Nanoseconds())/1e3, "p90-µs")
}

func benchKernel(b *testing.B, opts MontyOptions) *Monty {
	k, err := NewMonty(opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { k.Close() })
	ctx := context.Background()
	if r, err := k.Execute(ctx, Request{Code: "x = 0"}); err != nil || r.Status != StatusOK {
		b.Fatal(err, r.Error)
	}
	for range 20 { // warm up
		k.Execute(ctx, Request{Code: "w = 1"})
	}
	return k
}

func benchTrivial(b *testing.B, opts MontyOptions) {
	b.Helper()
	k := benchKernel(b, opts)
	ctx := context.Background()
	var s samples
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		r, err := k.Execute(ctx, Request{Code: "x = x + 1"})
		s = append(s, time.Since(t))
		if err != nil || r.Status != StatusOK {
			b.Fatal(err, r.Error)
		}
	}
	b.StopTimer()
	if r, _ := k.Execute(ctx, Request{Code: "x"}); r.Value.Text != fmt.Sprint(b.N) {
		b.Fatalf("state lost: x = %s after %d cells", r.Value.Text, b.N)
	}
	s.report(b)
}

// BenchmarkTrivialCell: `x = x + 1` through the Kernel, checkpoints
// included.
func BenchmarkTrivialCell(b *testing.B) { benchTrivial(b, MontyOptions{}) }

// BenchmarkInterruptRecovery: interrupt a `while True` cell and get the next
// result; the namespace comes back from the checkpoint.
func BenchmarkInterruptRecovery(b *testing.B) {
	k := benchKernel(b, MontyOptions{})
	ctx := context.Background()
	var s samples
	for i := 0; i < b.N; i++ {
		done := make(chan Result)
		go func() {
			r, _ := k.Execute(ctx, Request{Code: "while True:\n    pass"})
			done <- r
		}()
		for k.Info().State != StateBusy {
			time.Sleep(100 * time.Microsecond)
		}
		time.Sleep(time.Millisecond)
		t := time.Now()
		k.Interrupt()
		if r := <-done; r.Status != StatusInterrupted {
			b.Fatalf("%+v", r)
		}
		r, _ := k.Execute(ctx, Request{Code: "x"})
		s = append(s, time.Since(t))
		if r.Value == nil || r.Value.Text != "0" {
			b.Fatalf("state lost: %+v", r)
		}
	}
	s.report(b)
}

// BenchmarkColdStart: from a new kernel to the result of its first cell.
func BenchmarkColdStart(b *testing.B) {
	ctx := context.Background()
	var s samples
	for i := 0; i < b.N; i++ {
		t := time.Now()
		k, err := NewMonty(MontyOptions{})
		if err != nil {
			b.Fatal(err)
		}
		r, err := k.Execute(ctx, Request{Code: "1"})
		s = append(s, time.Since(t))
		if err != nil || r.Value == nil {
			b.Fatal(err)
		}
		b.StopTimer()
		k.Close()
		b.StartTimer()
	}
	s.report(b)
}

// BenchmarkPrint1000: a cell printing 1000 lines, all received.
func BenchmarkPrint1000(b *testing.B) {
	k := benchKernel(b, MontyOptions{})
	ctx := context.Background()
	var s samples
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t := time.Now()
		r, _ := k.Execute(ctx, Request{Code: "for i in range(1000):\n    print(i)"})
		s = append(s, time.Since(t))
		if strings.Count(r.Stdout, "\n") != 1000 {
			b.Fatalf("got %d lines", strings.Count(r.Stdout, "\n"))
		}
	}
	s.report(b)
}

// BenchmarkRunBatch: independent trivial snippets on 2 workers.
func BenchmarkRunBatch(b *testing.B) {
	sb, err := NewSandbox(Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer sb.Close()
	codes := make([]string, 2000)
	for i := range codes {
		codes[i] = fmt.Sprintf("%d * 2", i)
	}
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		res, err := sb.RunBatch(context.Background(), codes, 2)
		if err != nil || res[len(res)-1].Value.Text != fmt.Sprint((len(codes)-1)*2) {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(codes))/time.Since(start).Seconds(), "snippets/s")
}

// BenchmarkKernelRSS reports the worker process's peak RSS after 500 cells.
func BenchmarkKernelRSS(b *testing.B) {
	for i := 0; i < b.N; i++ {
		k := benchKernel(b, MontyOptions{})
		for range 500 {
			k.Execute(context.Background(), Request{Code: "x = x + 1"})
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
