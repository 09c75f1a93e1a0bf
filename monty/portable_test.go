package monty

import (
	"encoding/json"
	"strings"
	"testing"
)

// Values read together keep their sharing in the graph: one object is one
// entry, whatever names reach it, and an object that holds itself refers to
// its own entry. A cycle the arena does not tell (two lists on the path)
// is not carried, nor is what holds a function.
func TestGraphKeepsIdentity(t *testing.T) {
	w := start(t, Limits{})
	feed(t, w, "a = [1]\nb = a\nd = {'k': a}\nloop = [0]\nloop.append(loop)\nt = ([],)\nt[0].append(t)\n"+
		"x = []\ny = [x]\nx.append(y)\ndef f():\n    pass\nwith_f = [a, f]")
	names := []string{"a", "b", "d", "loop", "t", "x", "with_f"}
	o, _ := feed(t, w, "("+strings.Join(names, ", ")+",)")
	vals := map[string]*Value{}
	for i, v := range o.Value.Items() {
		vals[names[i]] = v
	}
	g := NewGraph(names, vals)
	for _, n := range names {
		_, err := g.Add(n, vals[n], 1000)
		if carried := err == nil; carried != (n != "x" && n != "with_f") {
			t.Errorf("%s carried: %v (%v)", n, carried, err)
		}
	}
	p := g.Payload([]string{"a", "b", "d", "loop", "t"})
	ids := p["names"].(map[string]any)
	objs := map[int]string{}
	for _, e := range p["objs"].([]any) {
		pair := e.([]any)
		j, err := json.Marshal(pair[1])
		if err != nil {
			t.Fatal(err)
		}
		objs[pair[0].(int)] = string(j)
	}
	if ids["a"] != ids["b"] {
		t.Errorf("a and b: %v, %v", ids["a"], ids["b"])
	}
	at := func(n string) string { return objs[ids[n].(int)] }
	if want := `{"$":"dict","v":[[` + keyOf(objs, `"k"`) + `,` + itoa(ids["a"]) + `]]}`; at("d") != want {
		t.Errorf("d: %s, want %s", at("d"), want)
	}
	if want := `,` + itoa(ids["loop"]) + `]}`; !strings.HasSuffix(at("loop"), want) {
		t.Errorf("loop: %s does not hold itself", at("loop"))
	}
	var tuple struct{ V []int }
	var list struct{ V []int }
	if err := json.Unmarshal([]byte(at("t")), &tuple); err != nil || len(tuple.V) != 1 {
		t.Fatalf("t: %s %v", at("t"), err)
	}
	if err := json.Unmarshal([]byte(objs[tuple.V[0]]), &list); err != nil || len(list.V) != 1 || list.V[0] != ids["t"] {
		t.Errorf("t[0]: %s, t is %v", objs[tuple.V[0]], ids["t"])
	}
	if len(objs) != g.Len() {
		t.Errorf("the payload holds %d objects, the graph %d", len(objs), g.Len())
	}
}

func itoa(id any) string { j, _ := json.Marshal(id); return string(j) }

// keyOf is the id of the entry whose form is form.
func keyOf(objs map[int]string, form string) string {
	for id, f := range objs {
		if f == form {
			return itoa(id)
		}
	}
	return "none"
}
