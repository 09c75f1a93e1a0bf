package kcore

import (
	"context"
	"errors"
	"testing"
)

// A cell's OnStop function hears each interrupt after the first and a
// restart or close, as they come; none once it is unset.
func TestRepeatsOnStop(t *testing.T) {
	for _, tc := range []struct {
		name string
		stop func(b *Base)
		want []error
	}{
		{"interrupts", func(b *Base) { _ = b.Interrupt(); _ = b.Interrupt(); _ = b.Interrupt() }, []error{ErrInterrupted, ErrInterrupted}},
		{"restart", func(b *Base) { b.Stop(); b.Stop() }, []error{ErrRestarted}},
		{"close", func(b *Base) { b.MarkClosed() }, []error{ErrRestarted}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBase(nil)
			ctx, _, hard, end := b.Begin(context.Background(), false)
			defer end()
			r := NewRepeats()
			r.Running(ctx)
			b.Track(r)
			var got []error
			r.OnStop(func(why error) { got = append(got, why) })
			tc.stop(&b)
			if len(got) != len(tc.want) {
				t.Fatalf("OnStop heard %v, want %v", got, tc.want)
			}
			for i := range got {
				if !errors.Is(got[i], tc.want[i]) {
					t.Fatalf("OnStop heard %v, want %v", got, tc.want)
				}
			}
			if tc.name != "interrupts" {
				select {
				case <-hard:
				default:
					t.Fatal("hard is still open")
				}
			}
			r.OnStop(nil)
			_ = b.Interrupt()
			if len(got) != len(tc.want) {
				t.Fatalf("OnStop unset, yet heard %v", got)
			}
		})
	}
}
