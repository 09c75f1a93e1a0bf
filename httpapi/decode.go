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
	body, err := io.ReadAll(r.Body)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			writeError(w, http.StatusRequestEntityTooLarge, tooLarge(tooBig.Limit))
		}
		// Otherwise the client went away: nobody to answer.
		return false
	}
	members, err := topMembers(body)
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
		if null, ok := members[name]; !ok || null {
			errs = append(errs, contract.ValidationError{Type: "missing", Loc: []any{"body", name}, Msg: "Field required"})
		}
	}
	t := reflect.TypeOf(v).Elem()
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if null := members[name]; null && !nullable(f.Type) && !contains(required, name) {
			errs = append(errs, contract.ValidationError{Type: kindName(f.Type) + "_type", Loc: []any{"body", name}, Msg: "Input should be a valid " + kindWord(f.Type)})
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

// topMembers reads a JSON object's member names, each with whether its
// value is null, without decoding the values. The error is a
// *jsontext.SyntacticError (or io.ErrUnexpectedEOF) for what is not JSON,
// a *json.SemanticError for JSON that is not an object.
func topMembers(body []byte) (map[string]bool, error) {
	d := jsontext.NewDecoder(bytes.NewReader(body))
	if k := d.PeekKind(); k != '{' {
		if _, err := d.ReadValue(); err != nil {
			return nil, err
		}
		if _, err := d.ReadToken(); err != io.EOF {
			return nil, fmt.Errorf("data after the value: %w", err)
		}
		return nil, &json.SemanticError{JSONKind: k}
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, err
	}
	members := map[string]bool{}
	for d.PeekKind() != '}' {
		name, err := d.ReadToken()
		if err != nil {
			return nil, err
		}
		members[name.String()] = d.PeekKind() == 'n'
		if err := d.SkipValue(); err != nil {
			return nil, err
		}
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, err
	}
	if _, err := d.ReadToken(); err != io.EOF {
		if err == nil {
			err = errors.New("data after the object")
		}
		return nil, err
	}
	return members, nil
}
