package jsonval

import (
	"math"
	"math/big"
	"reflect"
	"testing"
)

type celsius float64

func TestNormalizeAndEncode(t *testing.T) {
	big30, _ := new(big.Int).SetString("1000000000000000000000000000000", 10)
	in := map[string]any{
		"i": 3, "u": uint64(math.MaxUint64), "f": 2.0, "c": celsius(21.5), "s": []string{"a"},
		"st": struct {
			N int `json:"n"`
		}{1}, "b": big30, "nil": nil,
	}
	got, err := Encode(in)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"b":1000000000000000000000000000000,"c":21.5,"f":2.0,"i":3,"nil":null,"s":["a"],"st":{"n":1},"u":18446744073709551615}`
	if string(got) != want {
		t.Fatalf("%s", got)
	}
	back, err := Decode(got)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := new(big.Int).SetString("18446744073709551615", 10)
	wantBack := map[string]any{"b": big30, "c": 21.5, "f": 2.0, "i": int64(3), "nil": nil, "s": []any{"a"}, "st": map[string]any{"n": int64(1)}, "u": u}
	if !reflect.DeepEqual(back, wantBack) {
		t.Fatalf("%#v", back)
	}
	for _, bad := range []any{math.NaN(), math.Inf(-1), make(chan int), []any{func() {}}} {
		if _, err := Normalize(bad); err == nil {
			t.Fatalf("%v must not cross", bad)
		}
	}
}
