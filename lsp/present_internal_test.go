package lsp

import "testing"

func TestFormatDuration(t *testing.T) {
	for ms, want := range map[float64]string{0.043: "0.04 ms", 1.23: "1.2 ms", 120.4: "120 ms", 1500: "1.5 s", 125000: "2 min 5 s"} {
		if got := formatDuration(ms); got != want {
			t.Errorf("formatDuration(%v) = %q, want %q", ms, got, want)
		}
	}
}

func TestHintLabel(t *testing.T) {
	long := ""
	for range 100 {
		long += "x"
	}
	for v, want := range map[string]string{
		"42":       "⇒ 42",
		"[1,\n 2]": "⇒ [1,…",
		long:       "⇒ " + long[:maxHintLabel] + "…",
	} {
		if got := hintLabel(v); got != want {
			t.Errorf("hintLabel(%q) = %q, want %q", v, got, want)
		}
	}
}
