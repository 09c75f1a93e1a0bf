package kcore

import (
	"fmt"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/kernel"
)

// cellOutput is a cell's output capped at max bytes, with what it
// forwarded as it came.
func cellOutput(max int) (*Output, *strings.Builder) {
	var live strings.Builder
	return NewCellOutput(max, kernel.Request{OnOutput: func(_ kernel.Stream, text string) { live.WriteString(text) }}), &live
}

// A flood keeps its head and its tail, the marker between them saying how
// much was cut; what was forwarded as it came ends the same once the cell
// is over.
func TestOutputKeepsHeadAndTail(t *testing.T) {
	o, live := cellOutput(1000)
	total := 0
	for i := range 10_000 {
		line := fmt.Sprintf("line %d\n", i)
		total += len(line)
		o.Write(kernel.Stdout, line)
	}
	o.End()
	got := o.Stdout()
	head, tail, ok := strings.Cut(got, "\n[backyard: output truncated at 1000 bytes: ")
	if !ok || !strings.HasPrefix(head, "line 0\nline 1\n") || !strings.HasSuffix(tail, "line 9998\nline 9999\n") || len(got) > 1100 {
		t.Fatalf("%d bytes: %q … %q", len(got), got[:40], got[len(got)-80:])
	}
	cut, _, _ := strings.Cut(tail, " bytes cut here]\n")
	if kept := len(head) + len(tail) - len(cut) - len(" bytes cut here]\n"); fmt.Sprint(total-kept) != cut {
		t.Errorf("marker says %s bytes were cut, %d were", cut, total-kept)
	}
	if live.String() != got {
		t.Errorf("forwarded %q…, kept %q…", live.String()[:40], got[:40])
	}
}

// A progress bar overwritten with carriage returns keeps its last state,
// as a terminal or a Jupyter front end shows it, however long its raw
// output; a line break after a carriage return is one line break.
func TestOutputCarriageReturns(t *testing.T) {
	o, live := cellOutput(1 << 20)
	o.Write(kernel.Stdout, "start\r\n")
	for i := 1; i <= 120_000; i++ {
		o.Write(kernel.Stdout, fmt.Sprintf("\r%d/120000", i))
	}
	o.Write(kernel.Stdout, "\ndone\n")
	o.End()
	if got := o.Stdout(); got != "start\n120000/120000\ndone\n" {
		t.Fatalf("%q", got)
	}
	if !strings.HasSuffix(live.String(), "it ends:]\nstart\n120000/120000\ndone\n") || len(live.String()) > 1<<20 {
		t.Fatalf("forwarded %d bytes ending %q", len(live.String()), live.String()[len(live.String())-80:])
	}
	o, _ = cellOutput(100)
	o.Write(kernel.Stdout, "abcdef\rxy")
	o.Write(kernel.Stdout, "\r")
	o.Write(kernel.Stdout, "\nnext")
	if got := o.Stdout(); got != "xycdef\nnext" {
		t.Fatalf("%q", got)
	}
}

// A batch snippet's output is its own bytes, the head up to the limit.
func TestSnippetOutputKeepsItsBytes(t *testing.T) {
	o := NewOutput(10, kernel.Request{})
	o.Write(kernel.Stdout, "a\rb\r\n")
	o.Write(kernel.Stdout, "0123456789")
	if got := o.Stdout(); got != "a\rb\r\n01234\n[backyard: output truncated at 10 bytes]\n" {
		t.Fatalf("%q", got)
	}
}

// Bytes the backend dropped count in the cut, between what came before
// and after them.
func TestOutputSkip(t *testing.T) {
	o, _ := cellOutput(20)
	o.Write(kernel.Stdout, strings.Repeat("a", 30))
	o.Skip(kernel.Stdout, 100)
	o.Write(kernel.Stdout, strings.Repeat("b", 20)+"\n")
	if got := o.Stdout(); got != "aaaaaaaaaa\n[backyard: output truncated at 20 bytes: 131 bytes cut here]\nbbbbbbbbb\n" {
		t.Fatalf("%q", got)
	}
}
