package monty

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/backyard-ls/backyard-ls/files"
	"github.com/backyard-ls/backyard-ls/monty/internal/pb"
)

// workspace makes a folder with a few files, a hidden one and two links
// (one inside, one out) and returns it with an FS over it.
func workspace(t *testing.T) (string, *files.FS) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(dir, "ws")
	for name, data := range map[string]string{
		"x.csv": "a,b\n1,2\n", "sub/z.csv": "z\n", ".env": "TOKEN=1\n", "latin.txt": "caf\xe9\n",
	} {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "outside.txt"), []byte("secret"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("x.csv", filepath.Join(ws, "in_link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "outside.txt"), filepath.Join(ws, "out_link")); err != nil {
		t.Fatal(err)
	}
	return ws, files.New(files.Options{Rules: files.NewRules([]string{ws}, []string{".env"})})
}

// osCase is a snippet that makes the worker send one OS call kind, and
// what the cell must see.
type osCase struct {
	code  string
	want  string // repr of the value, or "Type: message" of the exception
	clock bool   // needs the host clock policy
	types bool   // needs type checking
}

// osCases covers every OsCall kind of the pinned worker's schema; WS is
// the workspace's path.
var osCases = map[string]osCase{
	"exists":             {code: "from pathlib import Path\nPath('x.csv').exists(), os.path.exists('nope'), os.path.exists('.env'), os.path.exists('out_link')", want: "(True, False, False, False)"},
	"is_file":            {code: "os.path.isfile('x.csv'), os.path.isfile('sub')", want: "(True, False)"},
	"is_dir":             {code: "os.path.isdir('sub'), os.path.isdir('x.csv')", want: "(True, False)"},
	"is_symlink":         {code: "os.path.islink('in_link'), os.path.islink('x.csv')", want: "(True, False)"},
	"read_text":          {code: "from pathlib import Path\nPath('x.csv').read_text()", want: `'a,b\n1,2\n'`},
	"read_bytes":         {code: "from pathlib import Path\nPath('sub/z.csv').read_bytes()", want: `b'z\n'`},
	"stat":               {code: "os.stat('x.csv').st_size, os.path.getsize('sub/z.csv')", want: "(8, 2)"},
	"iterdir":            {code: "sorted(os.listdir('.'))", want: "['in_link', 'latin.txt', 'sub', 'x.csv']"},
	"resolve":            {code: "from pathlib import Path\nstr(Path('sub/../in_link').resolve())", want: "'WS/x.csv'"},
	"absolute":           {code: "from pathlib import Path\nstr(Path('sub/../x.csv').absolute())", want: "'WS/sub/../x.csv'"},
	"unlink":             {code: "from pathlib import Path\nPath('u.txt').write_text('u')\nos.remove('u.txt')\nos.path.exists('u.txt')", want: "False"},
	"rmdir":              {code: "os.mkdir('d1')\nos.rmdir('d1')\nos.path.exists('d1')", want: "False"},
	"write_text":         {code: "from pathlib import Path\nPath('w.txt').write_text('héllo')", want: "5"},
	"append_text":        {code: "f = open('a.txt', 'a')\nn = f.write('ab')\nf.close()\nn, open('a.txt').read()", want: "(2, 'ab')"},
	"write_bytes":        {code: "from pathlib import Path\nPath('b.bin').write_bytes(b'\\x00\\x01')", want: "2"},
	"append_bytes":       {code: "f = open('b2.bin', 'ab')\nn = f.write(b'xy')\nf.close()\nn", want: "2"},
	"open":               {code: "open('latin.txt').read()", want: "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe9 in position 3: invalid continuation byte"},
	"mkdir":              {code: "os.makedirs('m/n', exist_ok=True)\nos.makedirs('m/n', exist_ok=True)\nos.path.isdir('m/n')", want: "True"},
	"rename":             {code: "from pathlib import Path\nPath('r1.txt').write_text('r')\nos.rename('r1.txt', 'r2.txt')\nos.path.exists('r1.txt'), open('r2.txt').read()", want: "(False, 'r')"},
	"getenv":             {code: "os.getenv('HOME'), os.getenv('NOPE', 'dflt')", want: "('/tmp', 'dflt')"},
	"get_environ":        {code: "os.environ['LANG']", want: "'C.UTF-8'"},
	"urandom":            {code: "len(os.urandom(5))", want: "5"},
	"system_sleep":       {code: "import time\ntime.sleep(0.001)", want: "None"},
	"async_system_sleep": {code: "import asyncio\nasync def f():\n    await asyncio.sleep(0.001)\n    return 1\nawait f()", want: "1"},
	"import":             {code: "import numpy", want: "ModuleNotFoundError: No module named 'numpy'"},
	"scan":               {code: "from pathlib import Path\nsorted(p.name for p in Path('.').glob('*.csv')), sorted(str(p) for p in Path('.').rglob('*.csv'))", want: "(['x.csv'], ['sub/z.csv', 'x.csv'])"},
	"date_today":         {code: "import datetime\ntype(datetime.date.today()).__name__", want: "'date'", clock: true},
	"date_time_now":      {code: "import datetime\ndatetime.datetime.now().year > 2000", want: "True", clock: true},
	"time":               {code: "import time\ntime.time() > 1e9", want: "True", clock: true},
	"sleep":              {code: "import time\ntime.sleep(0.001)", want: "None", clock: true},
	"async_sleep":        {code: "import asyncio\nasync def f():\n    await asyncio.sleep(0.001)\n    return 2\nawait f()", want: "2", clock: true},
	"import_stubs":       {code: "import mymod", want: "", types: true},
}

// TestEveryOSCallKind runs, for each OS call kind the pinned worker's
// schema declares, a cell that sends it, and checks the cell's result: every
// kind is answered (served, or refused as CPython fails without the
// resource), none breaks the worker, and no event carries fields the schema
// lacks.
func TestEveryOSCallKind(t *testing.T) {
	ws, fsys := workspace(t)
	kinds := (&pb.OsCall{}).ProtoReflect().Descriptor().Oneofs().ByName("call").Fields()
	for i := 0; i < kinds.Len(); i++ {
		kind := string(kinds.Get(i).Name())
		c, ok := osCases[kind]
		if !ok {
			t.Errorf("OS call %s has no case: add one to osCases", kind)
			continue
		}
		t.Run(kind, func(t *testing.T) {
			seen := map[string]bool{}
			cfg := Config{Binary: workerBinary(t), Cwd: ws, FS: fsys, Env: map[string]string{"HOME": "/tmp", "LANG": "C.UTF-8"},
				hostClock: c.clock, typeCheck: c.types,
				onOSCall: func(o *pb.OsCall) {
					if f := o.ProtoReflect().WhichOneof(o.ProtoReflect().Descriptor().Oneofs().ByName("call")); f != nil {
						seen[string(f.Name())] = true
					}
				}}
			w, err := Start(context.Background(), cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			o, err := w.Feed(context.Background(), "import os\n"+c.code, FeedOptions{})
			if err != nil {
				t.Fatalf("the worker broke: %v", err)
			}
			if !seen[kind] {
				t.Errorf("the cell sent no %s call (sent %v)", kind, seen)
			}
			if w.unknown > 0 {
				t.Errorf("%d events carried fields the schema does not declare", w.unknown)
			}
			if c.want == "" {
				return
			}
			got := ""
			switch {
			case o.Exception != nil:
				got = o.Exception.Type + ": " + o.Exception.Message
			case o.Value != nil:
				got = o.Value.Repr()
			case o.TypingError != "":
				got = "typing: " + o.TypingError
			}
			if want := strings.ReplaceAll(c.want, "WS", ws); got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
}

// TestWorkspaceRules checks what a cell sees outside the rules: nothing
// above the root, no absolute path elsewhere, no link out, no hidden file;
// and that writes stay in the overlay.
func TestWorkspaceRules(t *testing.T) {
	ws, fsys := workspace(t)
	w, err := Start(context.Background(), Config{Binary: workerBinary(t), Cwd: filepath.Join(ws, "sub"), FS: fsys})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	for _, c := range []struct{ code, want string }{
		{"import os\nos.getcwd()", "'" + filepath.Join(ws, "sub") + "'"},
		{"open('../x.csv').read()", `'a,b\n1,2\n'`},
		{"open('../../outside.txt')", "FileNotFoundError: [Errno 2] No such file or directory: '../../outside.txt'"},
		{"open('" + filepath.Join(filepath.Dir(ws), "outside.txt") + "')", "FileNotFoundError: [Errno 2] No such file or directory: '" + filepath.Join(filepath.Dir(ws), "outside.txt") + "'"},
		{"open('../out_link')", "FileNotFoundError: [Errno 2] No such file or directory: '../out_link'"},
		{"open('../.env')", "FileNotFoundError: [Errno 2] No such file or directory: '../.env'"},
		{"sorted(os.listdir('..'))", "['in_link', 'latin.txt', 'sub', 'x.csv']"},
		{"os.listdir('../..')", "['ws']"},
		{"f = open('../x.csv', 'w')\nf.write('new')\nf.close()\nopen('../x.csv').read()", "'new'"},
		{"open('/etc/passwd')", "FileNotFoundError: [Errno 2] No such file or directory: '/etc/passwd'"},
		{"os.path.isdir('../..'), os.path.exists('../../outside.txt')", "(True, False)"},
	} {
		o, err := w.Feed(context.Background(), c.code, FeedOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.code, err)
		}
		got := ""
		if o.Exception != nil {
			got = o.Exception.Type + ": " + o.Exception.Message
		} else {
			got = o.Value.Repr()
		}
		if got != c.want {
			t.Errorf("%s: got %s, want %s", c.code, got, c.want)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "x.csv")); string(data) != "a,b\n1,2\n" {
		t.Errorf("the host file changed: %q", data)
	}
	if e := fsys.Entries(); len(e) != 1 || e[0].Path != filepath.Join(ws, "x.csv") || e[0].State != "changed" || e[0].Size != 3 {
		t.Errorf("overlay: %+v", e)
	}
}

// TestUnknownOSCallIsRefused: a call of a kind this schema does not know
// gets the worker's own refusal instead of breaking the session, and an
// event with undeclared fields is decoded.
func TestUnknownOSCallIsRefused(t *testing.T) {
	h := &osHost{}
	r := h.serve(&pb.OsCall{CallId: 7})
	if r.GetResumeCall().GetResult().GetNotHandled() == nil || r.GetResumeCall().GetCallId() != 7 {
		t.Fatalf("reply %v", r)
	}
	ev, err := proto.Marshal(&pb.ChildEvent{Kind: &pb.ChildEvent_OsCall{OsCall: &pb.OsCall{CallId: 3}}})
	if err != nil {
		t.Fatal(err)
	}
	// Field 40 of OsCall (a call kind from a newer schema) inside
	// ChildEvent.os_call (field 3).
	inner := protowire.AppendTag(nil, 1, protowire.VarintType)
	inner = protowire.AppendVarint(inner, 3)
	inner = protowire.AppendTag(inner, 40, protowire.BytesType)
	inner = protowire.AppendString(inner, "/x")
	osField := protoreflect.FieldNumber(3)
	ev = protowire.AppendTag(nil, osField, protowire.BytesType)
	ev = protowire.AppendBytes(ev, inner)
	frame := binary.LittleEndian.AppendUint32(nil, uint32(len(ev)))
	got, _, unknown, err := readFrame(bufio.NewReader(bytes.NewReader(append(frame, ev...))), nil)
	if err != nil || !unknown || got.GetOsCall() == nil || got.GetOsCall().Call != nil {
		t.Fatalf("readFrame: %v %v %v", got, unknown, err)
	}
	if r := h.serve(got.GetOsCall()); r.GetResumeCall().GetResult().GetNotHandled() == nil {
		t.Fatalf("reply %v", r)
	}
}
