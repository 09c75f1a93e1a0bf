package lsp

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
	"go.lsp.dev/protocol"
)

// Hand-written JSON for the messages of every run (the executeCommand
// request, Execution, the backyard/* notifications): no reflection on the
// hot path. Everything else goes through the protocol package's codec.

func (p *outputParams) appendJSON(b []byte) []byte {
	b = append(b, `{"uri":`...)
	b = appendString(b, p.URI)
	b = append(b, `,"executionId":`...)
	b = appendString(b, p.ExecutionID)
	b = append(b, `,"stream":`...)
	b = appendString(b, string(p.Stream))
	b = append(b, `,"text":`...)
	b = appendString(b, p.Text)
	return append(b, '}')
}

func (p *executionStateParams) appendJSON(b []byte) []byte {
	b = append(b, `{"uri":`...)
	b = appendString(b, p.URI)
	b = append(b, `,"executionId":`...)
	b = appendString(b, p.ExecutionID)
	b = append(b, `,"range":`...)
	b = appendRange(b, p.Range)
	b = append(b, `,"state":`...)
	b = appendString(b, p.State)
	if p.Execution != nil {
		b = append(b, `,"execution":`...)
		b = p.Execution.appendJSON(b)
	}
	return append(b, '}')
}

func (p *kernelStateParams) appendJSON(b []byte) []byte {
	b = append(b, `{"uri":`...)
	b = appendString(b, p.URI)
	b = append(b, `,"backend":`...)
	b = appendString(b, p.Backend)
	b = append(b, `,"runtime":`...)
	b = appendString(b, p.Runtime)
	b = append(b, `,"state":`...)
	b = appendString(b, string(p.State))
	return append(b, '}')
}

func (r *runResult) appendJSON(b []byte) []byte {
	b = append(b, `{"executions":[`...)
	for i, x := range r.Executions {
		if i > 0 {
			b = append(b, ',')
		}
		b = x.appendJSON(b)
	}
	return append(b, "]}"...)
}

func (x *Execution) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, x.ID)
	b = append(b, `,"range":`...)
	b = appendRange(b, x.Range)
	b = append(b, `,"executionCount":`...)
	b = strconv.AppendInt(b, int64(x.ExecutionCount), 10)
	b = append(b, `,"status":`...)
	b = appendString(b, string(x.Status))
	b = append(b, `,"stdout":`...)
	b = appendString(b, x.Stdout)
	b = append(b, `,"stderr":`...)
	b = appendString(b, x.Stderr)
	if v := x.Result; v != nil {
		b = append(b, `,"result":{"text":`...)
		b = appendString(b, v.Text)
		if len(v.MIME) > 0 {
			b = append(b, `,"mime":{`...)
			keys := make([]string, 0, len(v.MIME))
			for k := range v.MIME {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for i, k := range keys {
				if i > 0 {
					b = append(b, ',')
				}
				b = appendString(b, k)
				b = append(b, ':')
				b = appendString(b, v.MIME[k])
			}
			b = append(b, '}')
		}
		b = append(b, '}')
	}
	if e := x.Error; e != nil {
		b = append(b, `,"error":{"ename":`...)
		b = appendString(b, e.EName)
		b = append(b, `,"evalue":`...)
		b = appendString(b, e.EValue)
		b = append(b, `,"traceback":[`...)
		for i, f := range e.Traceback {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"line":`...)
			b = strconv.AppendInt(b, int64(f.Line), 10)
			b = append(b, `,"name":`...)
			b = appendString(b, f.Name)
			b = append(b, `,"text":`...)
			b = appendString(b, f.Text)
			b = append(b, '}')
		}
		b = append(b, "]}"...)
	}
	b = append(b, `,"backend":`...)
	b = appendString(b, x.Backend)
	b = append(b, `,"runtime":`...)
	b = appendString(b, x.Runtime)
	b = append(b, `,"durationMs":`...)
	b = strconv.AppendFloat(b, x.DurationMs, 'f', -1, 64)
	return append(b, '}')
}

func appendRange(b []byte, r protocol.Range) []byte {
	b = append(b, `{"start":{"line":`...)
	b = strconv.AppendUint(b, uint64(r.Start.Line), 10)
	b = append(b, `,"character":`...)
	b = strconv.AppendUint(b, uint64(r.Start.Character), 10)
	b = append(b, `},"end":{"line":`...)
	b = strconv.AppendUint(b, uint64(r.End.Line), 10)
	b = append(b, `,"character":`...)
	b = strconv.AppendUint(b, uint64(r.End.Character), 10)
	return append(b, "}}"...)
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string; invalid UTF-8 becomes U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// --- decoding workspace/executeCommand ---

// rawCommand is workspace/executeCommand's params, decoded without
// reflection: the command, its raw arguments and the workDoneToken.
type rawCommand struct {
	command   string
	arguments []jsontext.Value
	token     protocol.ProgressToken
}

var errNotObject = errors.New("not a JSON object")

func decodeCommand(params []byte) (rawCommand, error) {
	var c rawCommand
	fields, err := decodeObject(params)
	if err != nil {
		return c, err
	}
	if v, ok := fields["command"]; ok {
		if c.command, ok = stringValue(v); !ok {
			return c, fmt.Errorf("\"command\" must be a string, got %s", short(v))
		}
	}
	if v, ok := fields["arguments"]; ok && v.Kind() != 'n' {
		if v.Kind() != '[' {
			return c, fmt.Errorf("\"arguments\" must be an array, got %s", short(v))
		}
		d := getDecoder(v)
		defer putDecoder(d)
		if _, err := d.ReadToken(); err != nil {
			return c, err
		}
		for d.PeekKind() != ']' {
			a, err := d.ReadValue()
			if err != nil {
				return c, err
			}
			c.arguments = append(c.arguments, a.Clone())
		}
	}
	if v, ok := fields["workDoneToken"]; ok {
		switch v.Kind() {
		case '"':
			s, _ := stringValue(v)
			c.token = protocol.String(s)
		case '0':
			if n, ok := numberValue(v); ok && n == math.Trunc(n) {
				c.token = protocol.Integer(int32(n))
			}
		}
	}
	return c, nil
}

// decodeObject splits a JSON object into its members' raw values.
func decodeObject(raw []byte) (map[string]jsontext.Value, error) {
	d := getDecoder(raw)
	defer putDecoder(d)
	tok, err := d.ReadToken()
	if err != nil {
		return nil, err
	}
	if tok.Kind() != '{' {
		return nil, errNotObject
	}
	m := map[string]jsontext.Value{}
	for d.PeekKind() != '}' {
		name, err := d.ReadToken()
		if err != nil {
			return nil, err
		}
		key := name.String() // before the next read voids the token
		v, err := d.ReadValue()
		if err != nil {
			return nil, err
		}
		m[key] = v.Clone()
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, err
	}
	return m, nil
}

var decoders sync.Pool

// getDecoder returns a decoder reading raw (a *bytes.Buffer lets jsontext
// decode in place).
func getDecoder(raw []byte) *jsontext.Decoder {
	if d, ok := decoders.Get().(*jsontext.Decoder); ok {
		d.Reset(bytes.NewBuffer(raw))
		return d
	}
	return jsontext.NewDecoder(bytes.NewBuffer(raw))
}

func putDecoder(d *jsontext.Decoder) {
	d.Reset(bytes.NewBuffer(nil))
	decoders.Put(d)
}

func stringValue(v jsontext.Value) (string, bool) {
	if v.Kind() != '"' {
		return "", false
	}
	s, err := jsontext.AppendUnquote(nil, v)
	return string(s), err == nil
}

func numberValue(v jsontext.Value) (float64, bool) {
	if v.Kind() != '0' {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(v), 64)
	return f, err == nil
}

func boolValue(v jsontext.Value) (bool, bool) {
	switch v.Kind() {
	case 't':
		return true, true
	case 'f':
		return false, true
	}
	return false, false
}
