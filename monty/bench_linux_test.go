package monty

import (
	"context"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// BenchmarkFeedReads is BenchmarkFeed with the worker's answers read on the
// runtime's poller and blocking in the read (Config.BlockingReads), with
// the CPU a feed costs this process and the worker. Run with -count to
// alternate the two.
func BenchmarkFeedReads(b *testing.B) {
	for _, m := range readModes {
		b.Run(m.name, func(b *testing.B) {
			w := startConfig(b, Config{Binary: workerBinary(b), BlockingReads: m.blocking})
			feed(b, w, "x = 0")
			host0, worker0 := processCPU(b), workerCPU(b, w)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := w.Feed(context.Background(), "x = x + 1", FeedOptions{}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			n := float64(b.N)
			b.ReportMetric(float64(processCPU(b)-host0)/n/1e3, "host-cpu-µs/op")
			b.ReportMetric(float64(workerCPU(b, w)-worker0)/n/1e3, "worker-cpu-µs/op")
		})
	}
}

func processCPU(b *testing.B) time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_PROCESS_CPUTIME_ID, &ts); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ts.Nano())
}

func workerCPU(b *testing.B, w *Worker) time.Duration {
	u, s, ok := w.CPUTimes()
	if !ok {
		b.Fatal("no CPU times of the worker")
	}
	return u + s
}
