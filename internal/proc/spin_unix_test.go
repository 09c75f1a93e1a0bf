//go:build unix

package proc

import (
	"errors"
	"io"
	"os"
	"testing"
	"time"
)

// A spinning read returns what arrives while it spins, parks when nothing
// comes in time and is woken by what comes later, and ends at EOF.
func TestSpinReader(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sr := SpinReader(r, 5*time.Millisecond)
	if sr == io.Reader(r) {
		t.Fatal("a pipe must be read by spinning")
	}
	buf := make([]byte, 8)
	for _, delay := range []time.Duration{0, time.Millisecond, 50 * time.Millisecond} {
		go func() {
			time.Sleep(delay)
			w.Write([]byte("ab"))
		}()
		if n, err := sr.Read(buf); err != nil || string(buf[:n]) != "ab" {
			t.Fatalf("after %v: %q %v", delay, buf[:n], err)
		}
	}
	w.Close()
	if n, err := sr.Read(buf); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("at the end: %d %v", n, err)
	}
}
