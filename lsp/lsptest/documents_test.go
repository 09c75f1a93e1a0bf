package lsptest

import (
	"strings"
	"testing"

	"go.lsp.dev/protocol"
)

func TestApplyChange(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		change     protocol.TextDocumentContentChangeEvent
		want       string
	}{
		{"whole", "a\nb\n", Replace("c\n"), "c\n"},
		{"insert at start", "a\nb\n", Edit(0, 0, 0, 0, "x"), "xa\nb\n"},
		{"replace across lines", "ab\ncd\nef\n", Edit(0, 1, 2, 1, "Z"), "aZf\n"},
		// 😀 is two UTF-16 code units (four UTF-8 bytes).
		{"utf-16 units", "s = '😀a'\n", Edit(0, 7, 0, 8, "bc"), "s = '😀bc'\n"},
		{"inside a surrogate pair stays before it", "😀x", Edit(0, 1, 0, 1, "|"), "|😀x"},
		{"character past the line end clamps before CRLF", "ab\r\ncd\r\n", Edit(0, 1, 0, 40, "Z"), "aZ\r\ncd\r\n"},
		{"CRLF counts as one line end", "ab\r\ncd\r\n", Edit(1, 0, 1, 1, "X"), "ab\r\nXd\r\n"},
		{"lone CR ends a line", "ab\rcd", Edit(1, 1, 1, 2, "Y"), "ab\rcY"},
		{"line past the end is the end", "ab\n", Edit(5, 0, 9, 0, "tail\n"), "ab\ntail\n"},
		{"the empty last line", "ab\n", Edit(1, 0, 1, 0, "c"), "ab\nc"},
	} {
		got, err := ApplyChange(tc.text, tc.change)
		if err != nil || got != tc.want {
			t.Errorf("%s: got %q (%v), want %q", tc.name, got, err, tc.want)
		}
	}
	if _, err := ApplyChange("abc", Edit(0, 2, 0, 1, "")); err == nil {
		t.Error("a range ending before its start applied")
	}
}

func TestStateString(t *testing.T) {
	s := newState()
	s.Documents["file:///a.py"] = &Document{URI: "file:///a.py", Version: 3, Text: "x = 1\n1/0\n"}
	s.observe(Message{Method: "window/showMessageRequest", Call: true, Params: []byte(`{"type":3,"message":"install?"}`)})
	s.observe(Message{Method: "backyard/output", Params: []byte(`{"text":"hi"}`)})
	got := s.String()
	for _, want := range []string{"file:///a.py version 3", "  1| 1/0", "pending server requests:\n  [0] window/showMessageRequest", "[1] notification backyard/output"} {
		if !strings.Contains(got, want) {
			t.Errorf("the dump lacks %q:\n%s", want, got)
		}
	}
}
