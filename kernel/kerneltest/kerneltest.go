// Package kerneltest has helpers for tests of kernels.
package kerneltest

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/kernel"
)

// Run executes code on k and fails the test when the kernel cannot run it.
func Run(t testing.TB, k kernel.Kernel, code string) kernel.Result {
	t.Helper()
	r, err := k.Execute(context.Background(), kernel.Request{Code: code})
	if err != nil {
		t.Fatalf("execute %q: %v", code, err)
	}
	return r
}

// Variables lists k's variables, keyed by name.
func Variables(t testing.TB, k kernel.Kernel) map[string]kernel.Variable {
	t.Helper()
	vs, err := k.Variables(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]kernel.Variable{}
	for _, v := range vs {
		got[v.Name] = v
	}
	return got
}

// Samples are per-operation times of a benchmark: the VM's scheduling
// noise makes Go's mean (ns/op) misleading, so benchmarks report medians.
type Samples []time.Duration

// Median is the middle sample (the mean of the two middle ones).
func (s Samples) Median() time.Duration {
	c := slices.Clone(s)
	slices.Sort(c)
	if len(c)%2 == 0 {
		return (c[len(c)/2-1] + c[len(c)/2]) / 2
	}
	return c[len(c)/2]
}

// Report reports the median and the 90th percentile in microseconds
// ("median-µs", "p90-µs").
func (s Samples) Report(b *testing.B) {
	if len(s) == 0 {
		return
	}
	c := slices.Clone(s)
	slices.Sort(c)
	b.ReportMetric(float64(s.Median().Nanoseconds())/1e3, "median-µs")
	b.ReportMetric(float64(c[len(c)*9/10].Nanoseconds())/1e3, "p90-µs")
}

// ReportMillis reports the median in milliseconds under the metric name.
func (s Samples) ReportMillis(b *testing.B, metric string) {
	if len(s) > 0 {
		b.ReportMetric(float64(s.Median())/1e6, metric)
	}
}

// BlockedInHostCall runs on k a cell blocked in a host call that never
// returns and ignores its context, and that catches the KeyboardInterrupt
// an interrupt raises there to block again (it is interrupted once here).
// It returns when the cell blocks the second time; the cell's result comes
// on the channel. The host calls end with the test.
func BlockedInHostCall(t testing.TB, k kernel.Kernel) <-chan kernel.Result {
	t.Helper()
	called := make(chan struct{}, 16)
	never := make(chan struct{})
	t.Cleanup(func() { close(never) })
	block := func(context.Context, []any, map[string]any) (any, error) {
		select {
		case called <- struct{}{}:
		default: // the cell may call again and again while it is stopped
		}
		<-never
		return nil, nil
	}
	res := make(chan kernel.Result, 1)
	go func() {
		r, _ := k.Execute(context.Background(), kernel.Request{
			Code:      "while True:\n    try:\n        block()\n    except KeyboardInterrupt:\n        pass",
			Functions: map[string]kernel.HostFunc{"block": block},
		})
		res <- r
	}()
	<-called
	k.Interrupt()
	<-called
	return res
}

// RunInterrupted runs req on k and interrupts it once: when the cell's
// output first shows at (the cell prints it where the interrupt is to find
// it), or, with at empty, once the code is on its way to the interpreter.
// A timer would fire before a slow start reaches the cell on a busy
// machine, and an interrupt of an idle kernel does nothing.
func RunInterrupted(t testing.TB, k kernel.Kernel, req kernel.Request, at string) kernel.Result {
	t.Helper()
	var once sync.Once
	interrupt := func() { once.Do(func() { go k.Interrupt() }) }
	if at == "" {
		sent := req.OnSent
		req.OnSent = func() {
			if sent != nil {
				sent()
			}
			interrupt()
		}
	} else {
		var seen strings.Builder
		out := req.OnOutput
		req.OnOutput = func(s kernel.Stream, text string) {
			if out != nil {
				out(s, text)
			}
			if seen.Len() < 1<<16 {
				seen.WriteString(text)
				if strings.Contains(seen.String(), at) {
					interrupt()
				}
			}
		}
	}
	r, err := k.Execute(context.Background(), req)
	if err != nil {
		t.Fatalf("execute %q: %v", req.Code, err)
	}
	return r
}
