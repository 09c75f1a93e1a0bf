package kcore

import (
	"strings"
	"testing"
)

func TestDisplays(t *testing.T) {
	d := NewDisplays(100)
	d.Add(map[string]string{"text/plain": "1"}, []byte(` { "w" : 1 } `), "", false, false, false)
	d.Add(map[string]string{"text/plain": "a"}, []byte(`"not an object"`), "x", false, false, false)
	d.Add(map[string]string{"text/plain": "b"}, nil, "x", true, false, false)
	ds := d.List()
	if len(ds) != 2 || string(ds[0].Metadata) != `{"w":1}` || ds[1].Metadata != nil || ds[1].Data["text/plain"] != "b" {
		t.Fatalf("%+v", ds)
	}
	d.Add(map[string]string{"text/plain": strings.Repeat("x", 200)}, nil, "", false, false, false)
	d.Add(map[string]string{"text/plain": "later"}, nil, "", false, false, false)
	ds = d.List()
	if len(ds) != 3 || !strings.Contains(ds[2].Data["text/plain"], "further display outputs left out") {
		t.Fatalf("over the limit: %+v", ds)
	}
	d.Add(nil, nil, "", false, true, false)
	d.Add(map[string]string{"text/plain": "after clear"}, nil, "", false, false, false)
	if ds = d.List(); len(ds) != 1 || ds[0].Data["text/plain"] != "after clear" {
		t.Fatalf("after clear: %+v", ds)
	}
}
