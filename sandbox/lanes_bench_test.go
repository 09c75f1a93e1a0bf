package sandbox

import (
	"context"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/kernel"
)

// BenchmarkLanes: trivial programs on 2 Monty workers, as a batch (one
// feed, the lanes kept full) and through Lanes from 16 goroutines that
// each wait for a result before they run the next, as 16 clients of a
// service do. Beside the rates, the CPU time a snippet costs this process
// and its workers: Lanes pay for lanes that hold at most 16 snippets, so
// that the workers wait for work and are woken for it.
func BenchmarkLanes(b *testing.B) {
	const n = 20000
	sn := kernel.Snippet{Code: "print(6 * 7)", Program: true}
	check := func(r kernel.Result) {
		if r.Status != kernel.StatusOK || r.Stdout != "42\n" {
			b.Errorf("%+v", r)
		}
	}
	measure := func(b *testing.B, run func()) {
		sb := 0.0
		start, cpu := time.Now(), treeCPU(b)
		for b.Loop() {
			run()
		}
		sb = float64(b.N * n)
		b.ReportMetric(sb/time.Since(start).Seconds(), "snippets/s")
		b.ReportMetric((treeCPU(b)-cpu).Seconds()*1e6/sb, "cpu-us/snippet")
	}
	b.Run("batch", func(b *testing.B) {
		s, err := New(Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		var mu sync.Mutex
		measure(b, func() {
			err := s.Batch(context.Background(), func(yield func(kernel.Snippet) bool) {
				for range n {
					if !yield(sn) {
						return
					}
				}
			}, BatchOptions{Parallelism: 2, OnResult: func(_ int, r kernel.Result) { mu.Lock(); check(r); mu.Unlock() }})
			if err != nil {
				b.Fatal(err)
			}
		})
	})
	b.Run("lanes-16", func(b *testing.B) {
		s, err := New(Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		l, err := s.Lanes(context.Background(), BatchOptions{Parallelism: 2})
		if err != nil {
			b.Fatal(err)
		}
		defer l.Close()
		measure(b, func() {
			var wg sync.WaitGroup
			for range 16 {
				wg.Go(func() {
					for range n / 16 {
						check(l.Run(sn))
					}
				})
			}
			wg.Wait()
		})
	})
}

// treeCPU is the CPU time of this process and of its child processes,
// those that ended and those still running (the Monty workers).
func treeCPU(b *testing.B) time.Duration {
	ticks := func(stat string) (own, waited int) {
		f := strings.Fields(stat[strings.LastIndexByte(stat, ')')+2:])
		n := func(i int) int { v, _ := strconv.Atoi(f[i]); return v }
		return n(11) + n(12), n(13) + n(14) // utime+stime, cutime+cstime
	}
	self, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		b.Skip("no /proc")
	}
	own, waited := ticks(string(self))
	total := own + waited
	ents, _ := os.ReadDir("/proc")
	me := strconv.Itoa(os.Getpid())
	for _, e := range ents {
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil || e.Name() == "self" {
			continue
		}
		s := string(stat)
		if f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]); len(f) > 1 && f[1] == me {
			o, _ := ticks(s)
			total += o
		}
	}
	return time.Duration(total) * time.Second / 100 // USER_HZ
}
