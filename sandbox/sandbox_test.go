package sandbox

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/montykernel"
	"github.com/backyard-ls/backyard-ls/monty"
)

// BenchmarkRunBatch: independent trivial snippets on 2 workers, through
// RunBatch (pipelined lanes) and, as the peer, the way RunBatch ran them
// before: each worker waits for a snippet's result before it gets the next.
func BenchmarkRunBatch(b *testing.B) {
	codes := make([]string, 2000)
	for i := range codes {
		codes[i] = fmt.Sprintf("%d * 2", i)
	}
	last := fmt.Sprint((len(codes) - 1) * 2)
	b.Run("pipelined", func(b *testing.B) {
		sb, err := New(Options{})
		if err != nil {
			b.Fatal(err)
		}
		defer sb.Close()
		start := time.Now()
		for b.Loop() {
			res, err := sb.RunBatch(context.Background(), codes, 2)
			if err != nil || res[len(res)-1].Value.Text != last {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.N*len(codes))/time.Since(start).Seconds(), "snippets/s")
	})
	b.Run("sequential", func(b *testing.B) {
		bin, err := monty.Find("")
		if err != nil {
			b.Fatal(err)
		}
		limits := kernel.DefaultLimits
		start := time.Now()
		for b.Loop() {
			res := make([]kernel.Result, len(codes))
			next := make(chan int)
			var wg sync.WaitGroup
			for range 2 {
				wg.Go(func() {
					w, err := monty.Start(context.Background(), montykernel.WorkerConfig(bin, limits))
					if err != nil {
						b.Error(err)
						return
					}
					defer w.Close()
					used := false
					for i := range next {
						res[i], _ = montykernel.RunSnippet(context.Background(), w, codes[i], limits, used)
						used = true
					}
				})
			}
			for i := range codes {
				next <- i
			}
			close(next)
			wg.Wait()
			if res[len(res)-1].Value == nil || res[len(res)-1].Value.Text != last {
				b.Fatal("wrong result")
			}
		}
		b.ReportMetric(float64(b.N*len(codes))/time.Since(start).Seconds(), "snippets/s")
	})
}

func TestRunBatch(t *testing.T) {
	s, err := New(Options{Limits: kernel.Limits{Timeout: time.Second, MemoryBytes: 16 << 20, RecursionDepth: 100_000_000}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	codes := []string{"1 + 1", "leak = 1", "leak", "def f(n):\n    return f(n + 1)\nf(0)", "print('after crash')\n3 * 3", "1/0"}
	for i := 0; i < 30; i++ {
		codes = append(codes, "sum(range("+string(rune('0'+i%10))+"))")
	}
	res, err := s.RunBatch(context.Background(), codes, 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(codes) || res[0].Value.Text != "2" || res[1].Status != kernel.StatusOK {
		t.Fatalf("%+v", res[:2])
	}
	if res[2].Status != kernel.StatusError || res[2].Error.EName != "NameError" {
		t.Fatalf("snippets must not share state: %+v", res[2])
	}
	if res[3].Status != kernel.StatusCrashed {
		t.Fatalf("%+v", res[3])
	}
	if res[4].Status != kernel.StatusOK || res[4].Stdout != "after crash\n" || res[4].Value.Text != "9" {
		t.Fatalf("a crash must not affect other snippets: %+v", res[4])
	}
	if res[5].Error.EName != "ZeroDivisionError" {
		t.Fatalf("%+v", res[5])
	}
	for i := 6; i < len(res); i++ {
		n := (i - 6) % 10
		if want := n * (n - 1) / 2; res[i].Value == nil || res[i].Value.Text != strconv.Itoa(want) {
			t.Fatalf("result %d out of order: %+v", i, res[i].Value)
		}
	}
}

func TestSandboxRunIsStateful(t *testing.T) {
	s, err := New(Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	s.Run(context.Background(), "total = 40")
	r, err := s.Run(context.Background(), "total + 2")
	if err != nil || r.Value.Text != "42" || r.Duration <= 0 {
		t.Fatalf("%+v %v", r, err)
	}
}
