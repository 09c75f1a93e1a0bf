package contract

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-json-experiment/json"
)

// settingField is one leaf of Settings (generated from the declaration).
type settingField struct {
	key   string
	alias string // an older key that still works
	doc   string
	def   string // default, as text
	min   string
	max   string
	check string // executable, dir or url
	flag  string // command-line flag name
	enum  []string
	ptr   func(*Settings) any
}

// Duration is the time limit in Go's units.
func (s Seconds) Duration() time.Duration { return time.Duration(float64(s) * float64(time.Second)) }

// Bytes is the size in bytes.
func (m MiB) Bytes() uint64 { return uint64(m) << 20 }

func (InstallPolicy) fromBool(b bool) string {
	if b {
		return string(InstallOn)
	}
	return string(InstallOff)
}

func (Network) fromBool(b bool) string {
	if b {
		return string(NetworkBridge)
	}
	return string(NetworkNone)
}

// boolEnum is an enum setting that also takes true and false.
type boolEnum interface{ fromBool(bool) string }

// SettingWarning is a setting that was ignored, and why.
type SettingWarning struct{ Key, Reason string }

func (w SettingWarning) String() string {
	return fmt.Sprintf("ignoring setting backyard.%s: %s", w.Key, w.Reason)
}

// Overrides are the settings one source (the command line, a client) set,
// by key, with values as decoded from JSON. Zero Overrides set nothing.
type Overrides map[string]any

var defaults = sync.OnceValue(func() Settings {
	var s Settings
	for i := range settingFields {
		f := &settingFields[i]
		if f.def == "" {
			continue
		}
		if why := f.set(&s, f.fromText(f.def)); why != "" {
			panic("contract: default of " + f.key + ": " + why)
		}
	}
	return s
})

// DefaultSettings are the declared defaults.
func DefaultSettings() Settings { return defaults() }

// Apply returns base with the overrides applied.
func (o Overrides) Apply(base Settings) Settings {
	for i := range settingFields {
		f := &settingFields[i]
		if v, ok := o[f.key]; ok {
			f.set(&base, v)
		}
	}
	return base
}

// ParseSettings reads a settings object over prev, either nested under
// "backyard" ({"backyard": {"backend": "monty"}}) or flat; nested objects and
// dotted keys are equivalent. It returns prev with what the object sets
// replaced; an invalid value keeps the previous one and yields a warning; a
// null value removes the key (back to the default below it). Unknown keys are
// ignored (clients send whole sections, e.g. backyard.trace.server).
func ParseSettings(raw []byte, prev Overrides) (Overrides, []SettingWarning) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return prev, nil
	}
	var top any
	if err := json.Unmarshal(raw, &top, decodeOptions); err != nil {
		return prev, []SettingWarning{{"*", "settings are not valid JSON: " + err.Error()}}
	}
	obj, ok := top.(map[string]any)
	if !ok {
		return prev, []SettingWarning{{"*", "settings must be a JSON object, got " + describe(top)}}
	}
	if nested, ok := obj["backyard"]; ok {
		if n, ok := nested.(map[string]any); ok {
			obj = n
		} else if nested != nil {
			return prev, []SettingWarning{{"*", "\"backyard\" must be an object, got " + describe(nested)}}
		}
	}
	flat := map[string]any{}
	flatten("", obj, flat)
	keys := make([]string, 0, len(flat))
	for k := range flat {
		keys = append(keys, k)
	}
	slices.Sort(keys)

	out := make(Overrides, len(prev)+len(flat))
	for k, v := range prev {
		out[k] = v
	}
	var warns []SettingWarning
	for _, key := range keys {
		f := fieldOf(key)
		if f == nil {
			continue
		}
		v := flat[key]
		if v == nil {
			delete(out, f.key)
			continue
		}
		var scratch Settings
		if why := f.set(&scratch, v); why != "" {
			warns = append(warns, SettingWarning{key, why})
			continue
		}
		out[f.key] = v
	}
	return out, warns
}

func fieldOf(key string) *settingField {
	for i := range settingFields {
		if f := &settingFields[i]; f.key == key || f.alias != "" && f.alias == key {
			return f
		}
	}
	return nil
}

func flatten(prefix string, obj map[string]any, out map[string]any) {
	for k, v := range obj {
		k = strings.TrimPrefix(prefix+k, "backyard.")
		if m, ok := v.(map[string]any); ok {
			flatten(k+".", m, out)
			continue
		}
		out[k] = v
	}
}

// set stores v (a decoded JSON value) in s; it returns why v is refused, or
// "".
func (f *settingField) set(s *Settings, v any) string {
	switch p := f.ptr(s).(type) {
	case *string:
		str, ok := v.(string)
		if !ok {
			return "must be " + f.stringKind() + ", got " + describe(v)
		}
		if str != "" {
			if why := f.checkString(str); why != "" {
				return why
			}
		}
		*p = str
	case *bool:
		b, ok := v.(bool)
		if !ok {
			return "must be true or false, got " + describe(v)
		}
		*p = b
	case *int:
		n, ok := f.integer(v)
		if !ok {
			return fmt.Sprintf("must be a whole number between %s and %s, got %s", f.min, f.max, describe(v))
		}
		*p = int(n)
	case *MiB:
		n, ok := f.integer(v)
		if !ok {
			return fmt.Sprintf("must be a whole number of MiB between %s and %s, got %s", f.min, f.max, describe(v))
		}
		*p = MiB(n)
	case *Seconds:
		x, ok := f.number(v)
		if !ok {
			return fmt.Sprintf("must be a number of seconds between %s and %s, got %s", f.min, f.max, describe(v))
		}
		*p = Seconds(x)
	case *[]string:
		list, ok := stringList(v)
		if !ok {
			return "must be a list of strings, got " + describe(v)
		}
		*p = list
	default:
		rv := reflect.ValueOf(p).Elem()
		if len(f.enum) == 0 || rv.Kind() != reflect.String {
			return "cannot be set"
		}
		str, ok := v.(string)
		if b, isBool := v.(bool); isBool {
			if be, ok2 := rv.Interface().(boolEnum); ok2 {
				str, ok = be.fromBool(b), true
			}
		}
		if !ok || !slices.Contains(f.enum, str) {
			return "must be " + f.oneOf(rv.Interface()) + ", got " + describe(v)
		}
		rv.SetString(str)
	}
	return ""
}

func (f *settingField) oneOf(zero any) string {
	q := make([]string, 0, len(f.enum)+2)
	if _, ok := zero.(boolEnum); ok {
		q = append(q, "true", "false")
	}
	for _, e := range f.enum {
		q = append(q, strconv.Quote(e))
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

func (f *settingField) stringKind() string {
	switch f.check {
	case "executable":
		return "a path"
	case "dir":
		return "a directory"
	case "url":
		return "a URL"
	}
	return "a string"
}

func (f *settingField) checkString(s string) string {
	switch f.check {
	case "executable":
		if !isExecutable(s) {
			return fmt.Sprintf("%q is not an executable file", s)
		}
	case "dir":
		if st, err := os.Stat(s); err != nil || !st.IsDir() {
			return fmt.Sprintf("%q is not a directory", s)
		}
	case "url":
		if !strings.Contains(s, "://") {
			return "must be a URL, got " + describe(s)
		}
	}
	return ""
}

func isExecutable(path string) bool {
	st, err := os.Stat(path)
	if err != nil || st.IsDir() {
		return false
	}
	return runtime.GOOS == "windows" || st.Mode()&0o111 != 0
}

func (f *settingField) number(v any) (float64, bool) {
	x, ok := v.(float64)
	if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
		return 0, false
	}
	lo, _ := strconv.ParseFloat(f.min, 64)
	hi, _ := strconv.ParseFloat(f.max, 64)
	return x, (f.min == "" || x >= lo) && (f.max == "" || x <= hi)
}

func (f *settingField) integer(v any) (int64, bool) {
	x, ok := f.number(v)
	return int64(x), ok && x == math.Trunc(x) && math.Abs(x) <= 1<<53
}

// stringList reads a list setting: a JSON array of strings, or a string of
// comma-separated items (a flag, a default).
func stringList(v any) ([]string, bool) {
	switch v := v.(type) {
	case string:
		var out []string
		for _, item := range strings.Split(v, ",") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, item)
			}
		}
		return out, true
	case []any:
		out := make([]string, 0, len(v))
		for _, item := range v {
			s, ok := item.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// fromText turns a value written as text (a default, a flag) into the JSON
// value set takes.
func (f *settingField) fromText(text string) any {
	var zero Settings
	switch f.ptr(&zero).(type) {
	case *bool:
		if b, err := strconv.ParseBool(text); err == nil {
			return b
		}
	case *int, *MiB:
		if x, err := strconv.ParseFloat(text, 64); err == nil {
			return x
		}
	case *Seconds:
		if x, err := strconv.ParseFloat(text, 64); err == nil {
			return x
		}
		if d, err := time.ParseDuration(text); err == nil {
			return d.Seconds()
		}
	default:
		return text
	}
	return text // refused by set with a message
}

// describe names a decoded JSON value for a message: `"abc"`, 12, true, an object.
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case string:
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		return strconv.Quote(v)
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return fmt.Sprint(v)
}

// BindFlags defines on fs the command-line flag of every setting whose flag
// name is in names (all flagged settings when names is empty), with the
// setting's doc and default. After fs.Parse, the returned function gives
// the overrides of the flags that were set, or the first invalid one.
func BindFlags(fs *flag.FlagSet, names ...string) func() (Overrides, error) {
	vals := map[string]func() string{} // the flag's value as text
	for i := range settingFields {
		f := &settingFields[i]
		if f.flag == "" || len(names) > 0 && !slices.Contains(names, f.flag) {
			continue
		}
		help := strings.ReplaceAll(f.doc, "`", "'") // a backquoted word would name the flag's value
		if len(f.enum) > 0 {
			var q []string
			for _, e := range f.enum {
				if e != "" {
					q = append(q, e)
				}
			}
			help += " (" + strings.Join(q, ", ") + ")"
		}
		var zero Settings
		switch f.ptr(&zero).(type) {
		case *int, *MiB:
			def, _ := strconv.Atoi(f.def)
			n := fs.Int(f.flag, def, help)
			vals[f.key] = func() string { return strconv.Itoa(*n) }
		case *Seconds: // "30" or "30s"
			text := textFlag(f.def)
			fs.Var(&text, f.flag, help)
			vals[f.key] = func() string { return string(text) }
		default:
			text := fs.String(f.flag, f.def, help)
			vals[f.key] = func() string { return *text }
		}
	}
	return func() (Overrides, error) {
		o := Overrides{}
		var err error
		fs.Visit(func(fl *flag.Flag) {
			for i := range settingFields {
				f := &settingFields[i]
				if f.flag != fl.Name || vals[f.key] == nil || err != nil {
					continue
				}
				v := f.fromText(vals[f.key]())
				var scratch Settings
				if why := f.set(&scratch, v); why != "" {
					err = fmt.Errorf("--%s: %s", f.flag, why)
					return
				}
				o[f.key] = v
			}
		})
		return o, err
	}
}

// textFlag is a flag value kept as text, checked by the setting after
// parsing.
type textFlag string

func (t *textFlag) String() string     { return string(*t) }
func (t *textFlag) Set(s string) error { *t = textFlag(s); return nil }
