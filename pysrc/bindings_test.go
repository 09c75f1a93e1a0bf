package pysrc

import (
	"slices"
	"testing"
)

func TestBindings(t *testing.T) {
	for code, want := range map[string][]string{
		"x = 1":                                       {"x"},
		"a, (b, c) = f()\nd = e = 2":                  {"a", "b", "c", "d", "e"},
		"x[i] = 1\nobj.attr = 2\nf(k=1)":              nil,
		"n += 1\nm: int = 3\nk: str":                  {"n", "m", "k"},
		"def f(x):\n    y = x\n    return y\ng = 1":   {"f", "g"},
		"class P:\n    z = 1\nasync def h(): pass":    {"P", "h"},
		"import a.b, c as d\nfrom m import x as y, w": {"a", "d", "y", "w"},
		"for i, j in pairs:\n    total = i\n":         {"i", "j", "total"},
		"with open(p) as fh:\n    data = fh.read()":   {"fh", "data"},
		"if (m := re.match(p, s)):\n    hit = m":      {"m", "hit"},
		"if x == 1:\n    y = 2":                       {"y"},
	} {
		got, star := Bindings(code)
		if !slices.Equal(got, want) || star {
			t.Errorf("%q: %v %v, want %v", code, got, star, want)
		}
	}
	if _, star := Bindings("from os.path import *"); !star {
		t.Error("a star import binds names it cannot know")
	}
}

func TestDraws(t *testing.T) {
	drawers := map[string]string{}
	for _, c := range []struct {
		code string
		want []string
	}{
		{"x = 1 + 2", nil},
		{"import time\ntime.sleep(1)", nil},
		{"import random\nr = random.random()", []string{DrawsRandom}},
		{"stamp = time.time()", []string{DrawsClock}},
		{"import datetime\nnow = datetime.datetime.now()", []string{DrawsClock}},
		{"token = os.urandom(8)", []string{DrawsRandom}},
		{"def roll():\n    return random.randint(1, 6)", []string{DrawsRandom}},
		{"dice = roll()", []string{DrawsRandom}}, // roll draws when called
		{"from random import choice\n", []string{DrawsRandom}},
		{"pick = choice([1, 2])", []string{DrawsRandom}},
		{"total = r + 1", nil}, // r holds a drawn value: using it draws nothing
		{"h = hash('abc')", []string{DrawsRandom}},
		{"obj.hash(1)", nil},
	} {
		if got := Draws(c.code, drawers); !slices.Equal(got, c.want) {
			t.Errorf("%q: %v, want %v", c.code, got, c.want)
		}
	}
}

// BenchmarkDraws: what the Monty kernel asks of every cell, here a trivial
// one as the kernel feeds it, which draws nothing.
func BenchmarkDraws(b *testing.B) {
	code := "__backyard_value__((__backyard_v__ := (x + 1)), 1048576, None, 52, (_52 := __backyard_v__) if __backyard_v__ is not None and __backyard_v__ is not Out else None)"
	drawers := map[string]string{"roll": DrawsRandom}
	for i := 0; i < b.N; i++ {
		if Draws(code, drawers) != nil {
			b.Fatal("draws")
		}
	}
}
