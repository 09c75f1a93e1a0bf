package container

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/contract"
)

// Attacks on the channel between a runtime and the host, as model-written
// code would try them: results only the runtime can write.

// forgeries write to every descriptor from 3 up (the runtime's channel is
// among them) and then fail; none may become a record.
var forgeries = map[string]string{
	// A result frame as the runtime writes it, without its key.
	"forged result": `json.dumps({"t": "done", "id": 1, "status": "ok"}).encode()`,
	// A bare result body, for the fork server's result pipe.
	"forged body": `b'{"status": "ok"}'`,
	"deep array":  `b"[" * 100000 + b"]" * 100000`,
	// A frame length that would make a reader wait for 16 MiB.
	"length only": `(16 << 20).to_bytes(4, "big")`,
}

func forgeCell(payload string, framed bool) string {
	frame := "data"
	if framed {
		frame = `len(data).to_bytes(4, "big") + data`
	}
	return "import json, os\ndata = " + payload + "\nframe = " + frame + `
for fd in range(3, 256):
    try:
        os.write(fd, frame)
    except OSError:
        pass
raise ValueError("the real outcome")
`
}

// A cell of the (local) kernel driver that writes frames to the channel's
// descriptor ends the stream at the first of them: nothing it wrote is
// taken for the driver's.
func TestDriverChannelTakesOnlyItsFrames(t *testing.T) {
	for name, payload := range forgeries {
		t.Run(name, func(t *testing.T) {
			d := startLocalTo(t, io.Discard) // the cell writes to the driver's stderr too
			d.nextID++
			d.send(message{T: msgExec, ID: d.nextID, Code: forgeCell(payload, name != "length only")})
			for m := range d.events {
				if m.T == msgDone && m.Status == "ok" {
					t.Fatalf("a forged frame was taken: %+v", m)
				}
			}
			var ce *ChannelError
			if !errors.As(d.readErr, &ce) {
				t.Fatalf("the stream ended with %v, want a channel error", d.readErr)
			}
		})
	}
}

// The same cells in a kernel container, on runc and runsc: the host stops
// the kernel at the first foreign frame and says why; the cell is not ok.
func TestContainerChannelTakesOnlyItsFrames(t *testing.T) {
	e := requireEngine(t)
	for _, rt := range []string{RuntimeRunc, RuntimeRunsc} {
		t.Run(rt, func(t *testing.T) {
			for _, name := range []string{"forged result", "deep array"} {
				s := startSession(t, e, Config{ContainerSettings: contract.ContainerSettings{Runtime: contract.Runtime(rt)}})
				if _, err := s.Exec(context.Background(), ExecRequest{Code: "x = 1"}, nil); err != nil {
					t.Fatal(err)
				}
				r, err := s.Exec(context.Background(), ExecRequest{Code: forgeCell(forgeries[name], true)}, nil)
				if !errors.Is(err, ErrEnded) {
					t.Fatalf("%s: %+v, %v; want the kernel ended", name, r, err)
				}
				x := s.Exit(context.Background())
				if x.Foreign == nil || !strings.Contains(x.Describe(), "did not write") {
					t.Fatalf("%s: %+v: %s", name, x, x.Describe())
				}
			}
		})
	}
}

// A batch snippet that writes a result of its own to the fork server's
// result channel (and closes it, so the runtime's cannot follow), junk, or
// a 100,000-deep JSON array, is a crash; the fork server lives on, and a
// subprocess of a snippet does not get the channel at all.
func TestForkServerResultChannel(t *testing.T) {
	e := requireEngine(t)
	for _, rt := range []string{RuntimeRunc, RuntimeRunsc} {
		t.Run(rt, func(t *testing.T) {
			f := startForkServer(t, e, rt)
			id := f.ID()
			closing := `import os
os.write(3, b'{"status": "ok"}')
os.close(3)
raise ValueError("the real outcome")`
			r := runSnippet(t, f, Snippet{Code: closing})
			if r.Status != "crashed" || !strings.Contains(r.Error.EValue, "did not write") {
				t.Fatalf("closing: %+v %+v", r, r.Error)
			}
			for name, payload := range forgeries {
				r := runSnippet(t, f, Snippet{Code: forgeCell(payload, false)})
				if r.Status != "crashed" || !strings.Contains(r.Error.EValue, "did not write") {
					t.Fatalf("%s: %+v %+v", name, r, r.Error)
				}
			}
			sub := `import subprocess, sys
p = subprocess.run([sys.executable, "-c", "import os; os.write(3, b'{}')"], capture_output=True, text=True)
print(p.returncode, "Bad file descriptor" in p.stderr)`
			r = runSnippet(t, f, Snippet{Code: sub})
			if r.Status != "ok" || r.Stdout != "1 True\n" {
				t.Fatalf("subprocess: %+v %+v", r, r.Error)
			}
			if r := runSnippet(t, f, Snippet{Code: "6 * 7"}); r.Status != "ok" || snippetValue(r) != "42" || !f.Alive() || f.ID() != id {
				t.Fatalf("the fork server did not live on: %+v alive %v", r, f.Alive())
			}
		})
	}
}
