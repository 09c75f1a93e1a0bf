package monty

import (
	"context"
	"fmt"
	"testing"
)

// BenchmarkFeed is the raw round trip of a trivial feed.
func BenchmarkFeed(b *testing.B) {
	w := start(b, Limits{})
	feed(b, w, "x = 0")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := w.Feed(context.Background(), "x = x + 1", FeedOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDump measures what a snapshot costs as the heap grows.
func BenchmarkDump(b *testing.B) {
	for _, n := range []int{0, 10_000, 100_000} {
		b.Run(fmt.Sprintf("list-%d", n), func(b *testing.B) {
			w := start(b, Limits{})
			feed(b, w, fmt.Sprintf("data = [str(i) for i in range(%d)]", n))
			b.ResetTimer()
			size := 0
			for i := 0; i < b.N; i++ {
				d, err := w.Dump()
				if err != nil {
					b.Fatal(err)
				}
				size = len(d)
			}
			b.ReportMetric(float64(size), "bytes")
		})
	}
}
