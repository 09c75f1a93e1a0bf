//go:build unix

package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// With --stop-with-parent a batch whose parent dies stops as Ctrl+C does,
// though its input never ends: the running snippet is recorded as
// interrupted and the process exits.
func TestBatchStopsWithItsParent(t *testing.T) {
	in, feed, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Close() // held open: the input never ends
	out, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	ctl, release, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer release.Close()
	// The parent starts the batch on the test's pipes (exec 4<&0: an
	// asynchronous command's stdin would be /dev/null) and exits when
	// the test closes release (its fd 3).
	parent := exec.Command("sh", "-c", `exec 4<&0; "$0" batch --stop-with-parent --backend monty <&4 3<&- 4<&- & echo $!; read -r _ <&3 || true`, binary)
	parent.Stdin, parent.Stdout, parent.ExtraFiles = in, w, []*os.File{ctl}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	in.Close()
	w.Close()
	ctl.Close()
	r := bufio.NewReader(out)
	line := func() string {
		t.Helper()
		l, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("%v after %q", err, l)
		}
		return l
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line()))
	if err != nil {
		t.Fatal(err)
	}
	// A first record: the batch runs under its parent.
	feed.WriteString(`{"id": "quick", "code": "1"}` + "\n")
	if recs := parseRecords(t, line()); len(recs) != 1 || recs[0].Status != "ok" {
		t.Fatalf("%+v", recs)
	}
	feed.WriteString(`{"id": "slow", "code": "import time\ntime.sleep(600)"}` + "\n")
	release.Close()
	if err := parent.Wait(); err != nil {
		t.Fatal(err)
	}
	// The batch holds the same stdout: reading it to the end waits for
	// the batch to exit.
	rest, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if recs := parseRecords(t, string(rest)); len(recs) != 1 || recs[0].Status != "interrupted" {
		t.Fatalf("%+v", recs)
	}
	for syscall.Kill(pid, 0) == nil {
		runtime.Gosched() // a zombie of init's for a moment
	}
}
