package api

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.uber.org/zap"
)

// A line over the limit is answered with a too_large error carrying its
// id, a malformed one with a parse error; both are skipped and the next
// message is read.
func TestStreamSkipsWhatItCannotTake(t *testing.T) {
	long := `{"jsonrpc":"2.0","id":7,"method":"run","params":{"code":"` + strings.Repeat("x", 200_000) + `"}}`
	in := strings.Join([]string{
		long,
		`not json`,
		``,
		`[{"jsonrpc":"2.0","id":8,"method":"hello"}]`,
		`{"jsonrpc":"2.0","id":"s","method":"run","params":{"code":"` + strings.Repeat("y", 1000) + `"}}`,
		`{"jsonrpc":"2.0","id":9,"method":"hello","params":{}}`,
	}, "\n") + "\n"
	var out bytes.Buffer
	s := newStream(strings.NewReader(in), &out, 100_000, nil, zap.NewNop())
	body, _, err := s.ReadFrame(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `"id":"s"`) {
		t.Fatalf("first message read: %.80s", body)
	}
	if body, _, err = s.ReadFrame(context.Background()); err != nil || !strings.Contains(string(body), `"id":9`) {
		t.Fatalf("second message: %.80s %v", body, err)
	}
	if _, _, err = s.ReadFrame(context.Background()); err != io.EOF {
		t.Fatalf("at the end: %v, want EOF", err)
	}
	select {
	case <-s.ended:
	default:
		t.Fatal("ended is not closed at EOF")
	}
	answers := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(answers) != 3 {
		t.Fatalf("answers: %q", answers)
	}
	for i, want := range []string{`"id":7,"error":{"code":-32600`, `"id":null,"error":{"code":-32700`, `"id":null,"error":{"code":-32600`} {
		if !strings.Contains(answers[i], want) {
			t.Errorf("answer %d = %s, want %s", i, answers[i], want)
		}
	}
	for i, kind := range []string{"too_large", "bad_argument", "bad_argument"} {
		if !strings.Contains(answers[i], `"kind":"`+kind+`"`) {
			t.Errorf("answer %d = %s, want kind %s", i, answers[i], kind)
		}
	}
}

func TestIDOf(t *testing.T) {
	for _, c := range []struct {
		raw  string
		want jsonrpc2.ID
	}{
		{`12`, jsonrpc2.NewNumberID(12)},
		{`"a\"b"`, jsonrpc2.NewStringID(`a"b`)},
		{`null`, jsonrpc2.ID{}},
		{``, jsonrpc2.ID{}},
		{`1.5`, jsonrpc2.ID{}},
		{`[1]`, jsonrpc2.ID{}},
	} {
		if got := idOf([]byte(c.raw)); got != c.want {
			t.Errorf("idOf(%s) = %v, want %v", c.raw, got, c.want)
		}
	}
}
