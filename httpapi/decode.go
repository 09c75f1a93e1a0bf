package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/backyard-ls/backyard-ls/contract"
)

// decode reads a request body into v (whose defaults are set), checking it
// as SandboxFusion's server (pydantic behind FastAPI) does: a body that is
// not a JSON object, a required member missing or null, a value of the
// wrong type get 422 with contract.ValidationErrors; unknown members are
// ignored. A body over the limit gets 413. It reports whether v can be
// used; when not, the answer is written.
func decode(w http.ResponseWriter, r *http.Request, v any, required ...string) bool {
	b := bodies.Get().(*bodyBuffer)
	defer b.put()
	body, err := b.read(r)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, tooLarge(tooBig.Limit))
		}
		// Otherwise the client went away: nobody to answer.
		return false
	}
	fields := fieldsOf(reflect.TypeOf(v).Elem())
	present, null, err := b.members(body, fields)
	if err != nil {
		var se *json.SemanticError
		if errors.As(err, &se) {
			invalid(w, contract.ValidationError{Type: "model_attributes_type", Loc: []any{"body"}, Msg: "Input should be a valid dictionary or object to extract fields from"})
			return false
		}
		invalid(w, contract.ValidationError{Type: "json_invalid", Loc: []any{"body", offsetOf(err)}, Msg: "JSON decode error: " + jsonProblem(err)})
		return false
	}
	var errs []contract.ValidationError
	for _, name := range required {
		if i := fields.index(name); i < 0 || present&(1<<i) == 0 || null&(1<<i) != 0 {
			errs = append(errs, contract.ValidationError{Type: "missing", Loc: []any{"body", name}, Msg: "Field required"})
		}
	}
	for i, f := range fields {
		if null&(1<<i) != 0 && !f.nullable && !contains(required, f.name) {
			errs = append(errs, contract.ValidationError{Type: f.kind + "_type", Loc: []any{"body", f.name}, Msg: "Input should be a valid " + f.word})
		}
	}
	if len(errs) > 0 {
		invalid(w, errs...)
		return false
	}
	if err := json.Unmarshal(body, v); err != nil {
		e := contract.ValidationError{Type: "value_error", Loc: []any{"body"}, Msg: err.Error()}
		var se *json.SemanticError
		if errors.As(err, &se) {
			for _, tok := range strings.Split(strings.TrimPrefix(string(se.JSONPointer), "/"), "/") {
				if tok == "" {
					continue
				}
				if n, err := strconv.Atoi(tok); err == nil {
					e.Loc = append(e.Loc, n)
				} else {
					e.Loc = append(e.Loc, strings.NewReplacer("~1", "/", "~0", "~").Replace(tok))
				}
			}
			if se.GoType != nil {
				e.Type, e.Msg = kindName(se.GoType)+"_type", "Input should be a valid "+kindWord(se.GoType)
			}
		}
		invalid(w, e)
		return false
	}
	return true
}

// field is a request member as decode checks it.
type field struct {
	name       string
	nullable   bool
	kind, word string // kindName, kindWord
}

type fields []field

// index is the position of the member name, -1 when there is none.
func (fs fields) index(name string) int {
	for i, f := range fs {
		if f.name == name {
			return i
		}
	}
	return -1
}

// requestFields caches fieldsOf by request type: requests are decoded
// often, and their types are few.
var requestFields sync.Map // reflect.Type → fields

// fieldsOf lists the JSON members of struct type t (at most 64).
func fieldsOf(t reflect.Type) fields {
	if fs, ok := requestFields.Load(t); ok {
		return fs.(fields)
	}
	if t.NumField() > 64 {
		panic("httpapi: a request type of more than 64 fields: " + t.String())
	}
	var fs fields
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		fs = append(fs, field{name: name, nullable: nullable(f.Type), kind: kindName(f.Type), word: kindWord(f.Type)})
	}
	requestFields.Store(t, fs)
	return fs
}

// bodyBuffer holds a request body while it is decoded, and the decoder
// that scans it; both are kept between requests (bodies).
type bodyBuffer struct {
	data bytes.Buffer
	r    bytes.Reader
	dec  jsontext.Decoder
	name []byte
}

var bodies = sync.Pool{New: func() any { return new(bodyBuffer) }}

// keptBody is the largest body buffer kept for the next request.
const keptBody = 64 << 10

func (b *bodyBuffer) put() {
	if b.data.Cap() > keptBody {
		return
	}
	b.data.Reset()
	b.r.Reset(nil)
	b.dec.Reset(&b.r)
	bodies.Put(b)
}

// read reads r's body; it is valid until put.
func (b *bodyBuffer) read(r *http.Request) ([]byte, error) {
	if n := r.ContentLength; n > 0 && n < keptBody {
		b.data.Grow(int(n) + bytes.MinRead)
	}
	_, err := b.data.ReadFrom(r.Body)
	return b.data.Bytes(), err
}

// members reads a JSON object's member names, without decoding the
// values, and reports which of fs are present and which of those are
// null (bit i for fs[i]). The error is a *jsontext.SyntacticError (or
// io.ErrUnexpectedEOF) for what is not JSON, a *json.SemanticError for
// JSON that is not an object.
func (b *bodyBuffer) members(body []byte, fs fields) (present, null uint64, err error) {
	b.r.Reset(body)
	d := &b.dec
	d.Reset(&b.r)
	if k := d.PeekKind(); k != '{' {
		if _, err := d.ReadValue(); err != nil {
			return 0, 0, err
		}
		if _, err := d.ReadToken(); err != io.EOF {
			return 0, 0, fmt.Errorf("data after the value: %w", err)
		}
		return 0, 0, &json.SemanticError{JSONKind: k}
	}
	if _, err := d.ReadToken(); err != nil {
		return 0, 0, err
	}
	for d.PeekKind() != '}' {
		raw, err := d.ReadValue()
		if err != nil {
			return 0, 0, err
		}
		if b.name, err = jsontext.AppendUnquote(b.name[:0], raw); err != nil {
			return 0, 0, err
		}
		isNull := d.PeekKind() == 'n'
		for i, f := range fs {
			if f.name == string(b.name) {
				present |= 1 << i
				if isNull {
					null |= 1 << i
				}
				break
			}
		}
		if err := d.SkipValue(); err != nil {
			return 0, 0, err
		}
	}
	if _, err := d.ReadToken(); err != nil {
		return 0, 0, err
	}
	if _, err := d.ReadToken(); err != io.EOF {
		if err == nil {
			err = errors.New("data after the object")
		}
		return 0, 0, err
	}
	return present, null, nil
}

func invalid(w http.ResponseWriter, errs ...contract.ValidationError) {
	writeJSON(w, http.StatusUnprocessableEntity, &contract.ValidationErrors{Detail: errs})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func nullable(t reflect.Type) bool {
	switch t.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Interface:
		return true
	}
	return false
}

// kindName and kindWord name a Go type as pydantic's errors name the
// JSON type it expects.
func kindName(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Float32, reflect.Float64:
		return "float"
	case reflect.Int, reflect.Int64, reflect.Int32, reflect.Uint, reflect.Uint64, reflect.Uint32:
		return "int"
	case reflect.Bool:
		return "bool"
	case reflect.Slice, reflect.Array:
		return "list"
	case reflect.Map, reflect.Struct:
		return "dict"
	}
	return "value"
}

func kindWord(t reflect.Type) string {
	switch k := kindName(t); k {
	case "float":
		return "number"
	case "int":
		return "integer"
	case "bool":
		return "boolean"
	case "dict":
		return "dictionary"
	default:
		return k
	}
}

// offsetOf is where a syntax error is, in bytes from the body's start.
func offsetOf(err error) any {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		return se.ByteOffset
	}
	return 0
}

func jsonProblem(err error) string {
	var se *jsontext.SyntacticError
	if errors.As(err, &se) {
		return se.Err.Error()
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "the body ends before the JSON value does"
	}
	return fmt.Sprint(err)
}
