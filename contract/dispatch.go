package contract

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

// Finish runs a command's reply; its result is the JSON-RPC result.
type Finish func(ctx context.Context) (any, error)

// ArgError is a command argument that does not fit its declaration, or an
// unknown command; its message is for a person. The language server sends
// it as InvalidParams.
type ArgError struct{ Msg string }

func (e *ArgError) Error() string { return e.Msg }

// argument is implemented by every command's argument type (generated).
type argument interface {
	usage() string
	check() error
	nested() []string
}

// decodeOptions match the LSP codec's relaxed wire validation.
var decodeOptions = json.JoinOptions(jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))

// decodeArg decodes a command's one JSON object argument into a and checks
// it.
func decodeArg(cmd string, a argument, args []jsontext.Value) error {
	if len(args) != 1 {
		return argErrorf("%s takes one JSON object argument %s, got %d arguments", cmd, a.usage(), len(args))
	}
	raw := args[0]
	if raw.Kind() != '{' {
		return argErrorf("%s takes one JSON object argument %s, got %s", cmd, a.usage(), short(raw))
	}
	if err := json.Unmarshal(raw, a, decodeOptions); err != nil {
		return typeError(cmd, raw, err)
	}
	if err := a.check(); err != nil {
		var ae *ArgError
		if errors.As(err, &ae) {
			ae.Msg = cmd + ": " + strings.ReplaceAll(ae.Msg, "$usage", a.usage())
		}
		return err
	}
	for _, p := range a.nested() {
		if !hasPath(raw, p) {
			return argErrorf("%s: missing %q (the argument is %s)", cmd, p, a.usage())
		}
	}
	return nil
}

// decodeParams decodes the params of an API method into a and checks them;
// absent params are an empty object.
func decodeParams(method string, a argument, params jsontext.Value) error {
	if len(params) == 0 || params.Kind() == 'n' {
		params = jsontext.Value("{}")
	}
	if params.Kind() != '{' {
		return argErrorf("%s takes a JSON object %s as params, got %s", method, a.usage(), short(params))
	}
	return decodeArg(method, a, []jsontext.Value{params})
}

func unknownMethod(method string) error {
	return argErrorf("unknown method %q (this server answers %s)", method, strings.Join(APIMethods, ", "))
}

func argErrorf(format string, args ...any) error { return &ArgError{Msg: fmt.Sprintf(format, args...)} }

func missing(key string) error {
	return argErrorf("missing %q (the argument is $usage)", key)
}

func invalid(key, oneOf, got string) error {
	return argErrorf("%q must be %s, got %q", key, oneOf, got)
}

func unknownCommand(cmd string) error {
	return argErrorf("unknown command %q (this server runs %s)", cmd, strings.Join(CommandIDs, ", "))
}

// finish adapts a method's reply to Finish.
func finish[T any](r Reply[T], err error) (Finish, error) {
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) (any, error) {
		v, err := r(ctx)
		if err != nil {
			return nil, err
		}
		return v, nil
	}, nil
}

// typeError turns a decoding error into a message that names the member and
// what it must be.
func typeError(cmd string, raw jsontext.Value, err error) error {
	var se *json.SemanticError
	if !errors.As(err, &se) || se.JSONPointer == "" {
		return argErrorf("%s: %v", cmd, err)
	}
	ptr := string(se.JSONPointer)
	key := strings.ReplaceAll(strings.TrimPrefix(ptr, "/"), "/", ".")
	got := "?"
	if v, ok := valueAt(raw, ptr); ok {
		got = short(v)
	}
	return argErrorf("%s: %q must be %s, got %s", cmd, key, describeType(se.GoType), got)
}

// describeType says in words what a Go type accepts.
func describeType(t reflect.Type) string {
	if t == nil {
		return "something else"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case reflect.TypeFor[Range]():
		return `an object {"start", "end"}`
	case reflect.TypeFor[Position]():
		return `a position {"line", "character"}`
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number ≥ 0"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "a whole number"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return t.String()
}

// valueAt finds the value at a JSON pointer (object members only).
func valueAt(raw jsontext.Value, ptr string) (jsontext.Value, bool) {
	v := raw
	for _, name := range strings.Split(strings.TrimPrefix(ptr, "/"), "/") {
		var obj map[string]jsontext.Value
		if json.Unmarshal(v, &obj, decodeOptions) != nil {
			return nil, false
		}
		var ok bool
		if v, ok = obj[name]; !ok {
			return nil, false
		}
	}
	return v, true
}

// hasPath reports whether raw has a non-null member at a dotted path.
func hasPath(raw jsontext.Value, path string) bool {
	v, ok := valueAt(raw, "/"+strings.ReplaceAll(path, ".", "/"))
	return ok && v.Kind() != 'n'
}

func short(b []byte) string {
	s := strings.TrimSpace(string(b))
	if len(s) > 60 {
		s = s[:60] + "…"
	}
	return s
}
