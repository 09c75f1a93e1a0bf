package sandbox

import (
	"context"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/kernel"
)

// Snippets run from many goroutines at once each get their own result;
// one whose context ends, queued or running, comes back interrupted, and
// so do those still running when the lanes close, and any run after.
func TestLanes(t *testing.T) {
	sb, err := New(Options{Limits: kernel.Limits{Timeout: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	defer sb.Close()
	l, err := sb.Lanes(context.Background(), BatchOptions{Parallelism: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 50 {
				n := strconv.Itoa(g*1000 + i)
				if r := l.Run(kernel.Snippet{Code: "print(" + n + ")", Program: true}); r.Status != kernel.StatusOK || r.Stdout != n+"\n" {
					t.Errorf("%s: %+v", n, r)
					return
				}
			}
		})
	}
	wg.Wait()

	gone, cancel := context.WithCancel(context.Background())
	cancel()
	if r := l.Run(kernel.Snippet{Code: "1", Context: gone}); r.Status != kernel.StatusInterrupted {
		t.Fatalf("a snippet whose context ended before it ran: %+v", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	if r := l.Run(kernel.Snippet{Code: "import time\ntime.sleep(50)", Context: ctx}); r.Status != kernel.StatusInterrupted {
		t.Fatalf("a snippet whose context ended while it ran: %+v", r)
	}
	if r := l.Run(kernel.Snippet{Code: "print(1)"}); r.Status != kernel.StatusOK || r.Stdout != "1\n" {
		t.Fatalf("the lane serves again: %+v", r)
	}

	done := make(chan kernel.Result)
	go func() { done <- l.Run(kernel.Snippet{Code: "while True: pass"}) }()
	time.AfterFunc(200*time.Millisecond, l.Close)
	if r := <-done; r.Status != kernel.StatusInterrupted {
		t.Fatalf("a snippet running when the lanes close: %+v", r)
	}
	if r := l.Run(kernel.Snippet{Code: "1"}); r.Status != kernel.StatusInterrupted {
		t.Fatalf("a run after Close: %+v", r)
	}
}
