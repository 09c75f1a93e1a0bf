package bounded

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
)

func TestScanKeepsIDAndMethod(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	for _, c := range []struct{ in, id, method string }{
		{`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"code":"x"}}`, `7`, "tools/call"},
		{`{"params":{"code":"` + strings.Repeat("a", 1<<20) + `","n":[1,{"id":3}]},"method":"m","id":"abc"}`, `"abc"`, "m"},
		{` { "id" : -1.5e3 , "method" : "a\"b" } `, `-1.5e3`, `a"b`},
		{`{"deep":` + deep + `,"id":null}`, `null`, ""},
		{`{"method":"notifications/x","params":"` + strings.Repeat(`\"`, 1000) + `"}`, ``, "notifications/x"},
		{`{"id":` + `"` + strings.Repeat("x", 1000) + `"}`, ``, ""},
		{`{"i\u0064":5,"method":"m"}`, ``, "m"},
		{`[{"id":1}]`, ``, ""},
		{`{"id":tru`, ``, ""},
		{`{"method":"m","id":12`, `12`, "m"},
		{``, ``, ""},
	} {
		h, err := Scan(strings.NewReader(c.in))
		if err != nil || string(h.ID) != c.id || h.Method != c.method || h.Bytes != int64(len(c.in)) {
			t.Errorf("%.60q: %+v %v, want id %s method %q", c.in, h, err, c.id, c.method)
		}
	}
}

func TestLinesCutsAndReadsPastLongLines(t *testing.T) {
	in := "{\"a\":1}\r\n\n" + `{"params":"` + strings.Repeat("x", 5000) + `","id":9,"method":"tools/call"}` + "\n" + `{"b":2}` + "\n" + `{"id":"tail"` + strings.Repeat(" ", 300)
	l := NewLines(strings.NewReader(in), 100)
	var got []string
	for {
		line, over, err := l.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if over != nil {
			got = append(got, "over "+string(over.ID)+" "+over.Method)
			continue
		}
		got = append(got, string(line))
	}
	want := []string{`{"a":1}`, ``, `over 9 tools/call`, `{"b":2}`, `over "tail" `}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("got %q\nwant %q", got, want)
	}
}

// A line far over the limit is read past with a few KiB, not held.
func TestLinesHoldNoLongLine(t *testing.T) {
	big := bytes.Repeat([]byte("y"), 64<<20)
	in := io.MultiReader(strings.NewReader(`{"method":"tools/call","params":{"code":"`), bytes.NewReader(big), strings.NewReader(`"},"id":1}`+"\n{}\n"))
	l := NewLines(in, 1<<10)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, over, err := l.Next()
	runtime.ReadMemStats(&after)
	if err != nil || over == nil || string(over.ID) != "1" || over.Bytes != int64(len(big))+51 {
		t.Fatalf("%+v %v", over, err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 4<<20 {
		t.Fatalf("reading past a 64 MiB line allocated %d bytes", grew)
	}
	if line, _, err := l.Next(); err != nil || string(line) != "{}" {
		t.Fatalf("%q %v", line, err)
	}
}
