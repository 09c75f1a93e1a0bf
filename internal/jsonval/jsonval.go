// Package jsonval is the one definition of the values that cross between
// host and sandbox (host function arguments and results, named inputs):
// JSON-compatible values in a canonical Go form, the same on every backend.
package jsonval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
)

// MaxDepth bounds nesting.
const MaxDepth = 100

// Normalize returns v in canonical form: nil, bool, string, int64, *big.Int
// (integers beyond 64 bits), float64 (finite), []any and map[string]any.
// Other values go through encoding/json (structs, typed slices and maps,
// named types). The error says why v is not JSON-compatible.
func Normalize(v any) (any, error) { return normalize(v, 0) }

func normalize(v any, depth int) (any, error) {
	if depth > MaxDepth {
		return nil, fmt.Errorf("nested more than %d levels deep", MaxDepth)
	}
	switch x := v.(type) {
	case nil, bool, string, int64:
		return x, nil
	case int:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case uint64:
		return Int(new(big.Int).SetUint64(x)), nil
	case *big.Int:
		return Int(x), nil
	case float64:
		return finite(x)
	case float32:
		return finite(float64(x))
	case json.Number:
		if i, ok := new(big.Int).SetString(string(x), 10); ok {
			return Int(i), nil
		}
		f, err := x.Float64()
		if err != nil {
			return nil, err
		}
		return finite(f)
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			n, err := normalize(it, depth+1)
			if err != nil {
				return nil, err
			}
			out[i] = n
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, it := range x {
			n, err := normalize(it, depth+1)
			if err != nil {
				return nil, err
			}
			out[k] = n
		}
		return out, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("is not JSON-compatible: %v", err)
	}
	if k := reflect.ValueOf(v).Kind(); k == reflect.Float32 || k == reflect.Float64 {
		f, _ := strconv.ParseFloat(string(b), 64)
		return f, nil // a named float type stays a float
	}
	g, err := Decode(b)
	if err != nil {
		return nil, err
	}
	return normalize(g, depth+1)
}

// Int is i as an int64 when it fits.
func Int(i *big.Int) any {
	if i.IsInt64() {
		return i.Int64()
	}
	return i
}

func finite(f float64) (any, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("is not JSON-compatible: %s", pyFloat(f))
	}
	return f, nil
}

func pyFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case f > 0:
		return "inf"
	}
	return "-inf"
}

// Decode parses JSON into canonical form.
func Decode(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return Normalize(v)
}

// Encode writes v as JSON in which a float always reads back as a float
// (2.0, not 2), so that Python gets the type the host meant.
func Encode(v any) ([]byte, error) {
	n, err := Normalize(v)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	encode(&b, n)
	return b.Bytes(), nil
}

func encode(b *bytes.Buffer, v any) {
	switch x := v.(type) {
	case float64:
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !bytes.ContainsAny([]byte(s), ".eE") {
			s += ".0"
		}
		b.WriteString(s)
	case []any:
		b.WriteByte('[')
		for i, it := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			encode(b, it)
		}
		b.WriteByte(']')
	case map[string]any:
		b.WriteByte('{')
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			encode(b, x[k])
		}
		b.WriteByte('}')
	default: // nil, bool, string, int64, *big.Int
		vb, _ := json.Marshal(x)
		b.Write(vb)
	}
}
