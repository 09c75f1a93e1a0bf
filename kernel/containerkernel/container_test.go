package containerkernel

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	dockerclient "github.com/docker/docker/client"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
)

// The container tests use a real engine and the local test image
// (scripts/build-test-image.sh); they never pull. Without an engine or the
// image they fail, unless -short is given.

var runtimes = []string{container.RuntimeRunc, container.RuntimeRunsc}

func testImage() string { return containertest.Image() }

var engineChecked struct {
	sync.Once
	err error
}

// requireEngine fails the test when the engine or the test image is
// missing, and skips it under -short.
func requireEngine(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("container tests need a container engine (-short)")
	}
	engineChecked.Do(func() {
		r := container.Probe(context.Background(), container.Config{ContainerSettings: contract.ContainerSettings{Image: testImage()}})
		if !r.Reachable {
			engineChecked.err = r.Err
		} else if r.ImageID == "" {
			engineChecked.err = &container.ImageMissingError{Image: testImage()}
		}
	})
	if engineChecked.err != nil {
		t.Fatalf("%v (run scripts/docker-setup.sh and scripts/build-test-image.sh, or pass -short)", engineChecked.err)
	}
}

func newContainerKernel(t testing.TB, runtime string, lim kernel.Limits, edit ...func(*Options)) *Kernel {
	t.Helper()
	requireEngine(t)
	opts := Options{
		Container: contract.ContainerSettings{Image: testImage(), Runtime: contract.Runtime(runtime)}, Pull: "never",
		Limits: lim, InterruptGrace: 2 * time.Second,
	}
	for _, e := range edit {
		e(&opts)
	}
	k, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { k.Close() })
	return k
}

// forRuntimes runs f once per runtime, with a kernel each.
func forRuntimes(t *testing.T, lim kernel.Limits, f func(t *testing.T, k *Kernel), edit ...func(*Options)) {
	for _, rt := range runtimes {
		t.Run(rt, func(t *testing.T) {
			f(t, newContainerKernel(t, rt, lim, edit...))
		})
	}
}

func value(r kernel.Result) string {
	if r.Value == nil {
		return ""
	}
	return r.Value.Text
}

// TestContainerNotebook shares one kernel per runtime among the checks
// that leave it usable.
func TestContainerNotebook(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "visible.txt"), []byte("from the workspace"), 0o644)
	// World-writable, so only the read-only mount can refuse the kernel's
	// user (65534) a write.
	os.Chmod(ws, 0o777)
	secret := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(secret, []byte("host only"), 0o644)
	hostname, _ := os.ReadFile("/etc/hostname")

	forRuntimes(t, kernel.Limits{}, func(t *testing.T, k *Kernel) {
		if err := k.Start(context.Background()); err != nil {
			t.Fatal(err)
		}
		info := k.Info()
		if info.Backend != contract.BackendContainer || info.Runtime != t.Name()[strings.LastIndex(t.Name(), "/")+1:] ||
			info.State != kernel.StateIdle || info.Versions["python"] == "" || !strings.Contains(info.Versions["engine"], "API") ||
			!strings.HasPrefix(info.Versions["image"], testImage()) {
			t.Fatalf("%+v", info)
		}

		t.Run("state", func(t *testing.T) {
			r := kerneltest.Run(t, k, "x = 20\ndef double(v):\n    return v * 2")
			if r.Status != kernel.StatusOK || r.Value != nil || r.ExecutionCount != 1 || r.Backend != contract.BackendContainer || r.Runtime != info.Runtime {
				t.Fatalf("%+v", r)
			}
			r = kerneltest.Run(t, k, "print('double of', x)\ndouble(x) + 2")
			if r.Status != kernel.StatusOK || r.Stdout != "double of 20\n" || value(r) != "42" || r.ExecutionCount != 2 {
				t.Fatalf("%+v", r)
			}
			if r := kerneltest.Run(t, k, "x;"); r.Value != nil {
				t.Fatalf("a trailing semicolon hides the value: %+v", r.Value)
			}
		})

		t.Run("error", func(t *testing.T) {
			r := kerneltest.Run(t, k, "def g(n):\n    return 10 / n\n\ng(0)")
			e := r.Error
			if r.Status != kernel.StatusError || e.EName != "ZeroDivisionError" || len(e.Traceback) != 2 || e.Traceback[0].Line != 4 || e.Traceback[1].Line != 2 || e.Traceback[1].Text != "return 10 / n" {
				t.Fatalf("%+v %+v", r, e)
			}
		})

		t.Run("numpy and matplotlib", func(t *testing.T) {
			r := kerneltest.Run(t, k, "import numpy as np\nnp.arange(6).reshape(2, 3).sum(axis=0)")
			if r.Status != kernel.StatusOK || value(r) != "array([3, 5, 7])" {
				t.Fatalf("%+v %+v", r, r.Error)
			}
			// A figure left open is a display output, as IPython's inline backend shows it.
			r = kerneltest.Run(t, k, "import matplotlib.pyplot as plt\nplt.plot(np.arange(10) ** 2)\nplt.title('squares');")
			if r.Status != kernel.StatusOK || r.Value != nil || len(r.Displays) != 1 {
				t.Fatalf("%+v %+v", r, r.Error)
			}
			png, err := base64.StdEncoding.DecodeString(r.Displays[0].Data["image/png"])
			if err != nil || !strings.HasPrefix(string(png), "\x89PNG\r\n\x1a\n") || r.Displays[0].Data["text/plain"] != "<Figure size 640x480 with 1 Axes>" {
				t.Fatalf("no PNG: %v", err)
			}
		})

		t.Run("no network", func(t *testing.T) {
			r := kerneltest.Run(t, k, "import socket\n[name for _, name in socket.if_nameindex()]")
			if r.Status != kernel.StatusOK || value(r) != "['lo']" {
				t.Fatalf("interfaces: %+v %+v", r, r.Error)
			}
			r = kerneltest.Run(t, k, "import socket\nsocket.create_connection(('8.8.8.8', 53), timeout=3)")
			if r.Status != kernel.StatusError || !strings.Contains(r.Error.EName, "Error") {
				t.Fatalf("connect to the outside succeeded: %+v", r)
			}
		})

		t.Run("isolation", func(t *testing.T) {
			r := kerneltest.Run(t, k, "import os\nos.path.exists("+pyStr(secret)+"), open('/etc/hostname').read() == "+pyStr(string(hostname))+", os.getuid(), os.getgid()")
			if r.Status != kernel.StatusOK || value(r) != "(False, False, 65534, 65534)" {
				t.Fatalf("%+v %+v", r, r.Error)
			}
			// gVisor's /proc has no NoNewPrivs line: ask prctl(PR_GET_NO_NEW_PRIVS).
			r = kerneltest.Run(t, k, "import ctypes\nstatus = open('/proc/self/status').read()\n[l.split()[1] for l in status.splitlines() if l.startswith(('CapEff', 'CapBnd'))], ctypes.CDLL(None).prctl(39, 0, 0, 0, 0)")
			if r.Status != kernel.StatusOK || value(r) != "(['0000000000000000', '0000000000000000'], 1)" {
				t.Fatalf("capabilities and no-new-privileges: %+v %+v", r, r.Error)
			}
			for _, path := range []string{"/etc/evil", "/usr/evil", "/evil"} {
				r = kerneltest.Run(t, k, "open('"+path+"', 'w')")
				if r.Status != kernel.StatusError || !strings.Contains(r.Error.EValue, "Read-only file system") && !strings.Contains(r.Error.EValue, "Permission denied") {
					t.Fatalf("%s: %+v %+v", path, r, r.Error)
				}
			}
			// The workspace is the working directory, at its own path; a
			// write stays in the kernel.
			r = kerneltest.Run(t, k, "import os\nopen('visible.txt').read(), os.getcwd()")
			if value(r) != "('from the workspace', "+pyStr(ws)+")" {
				t.Fatalf("%+v %+v", r, r.Error)
			}
			r = kerneltest.Run(t, k, "open("+pyStr(filepath.Join(ws, "new.txt"))+", 'w').write('x')")
			if r.Status != kernel.StatusOK || len(r.Files) != 1 || r.Files[0].Path != filepath.Join(ws, "new.txt") || r.Files[0].State != contract.FileCreated {
				t.Fatalf("%+v %+v", r, r.Error)
			}
			if _, err := os.Stat(filepath.Join(ws, "new.txt")); err == nil {
				t.Fatal("file created in the workspace")
			}
			// /tmp is a small writable tmpfs, and HOME.
			r = kerneltest.Run(t, k, "import os\nopen('/tmp/ok', 'w').write('ok'), os.environ['HOME']")
			if value(r) != "(2, '/tmp')" {
				t.Fatalf("%+v %+v", r, r.Error)
			}
		})

		t.Run("variables", func(t *testing.T) {
			kerneltest.Run(t, k, "big = 'y' * 1000\nimport json")
			got := kerneltest.Variables(t, k)
			if got["x"].Repr != "20" || got["x"].Type != "int" || got["double"].Type != "function" || len(got["big"].Repr) > kernel.MaxVariableRepr+len("…") {
				t.Fatalf("%+v", got)
			}
			if _, ok := got["json"]; ok {
				t.Fatal("modules are not variables")
			}
		})

		t.Run("sent before it ends", func(t *testing.T) {
			// OnSent comes once the cell is in the driver's hands: the
			// cell's input(), answered after it, sees that it came.
			sent := 0
			r, err := k.Execute(context.Background(), kernel.Request{Code: "input()", OnSent: func() { sent++ },
				OnInput: func(context.Context, string, bool) (string, error) { return fmt.Sprint("sent ", sent), nil }})
			if err != nil || value(r) != "'sent 1'" || sent != 1 {
				t.Fatalf("%+v %v, sent %d", r, err, sent)
			}
		})

		t.Run("silent and output cap", func(t *testing.T) {
			before := k.Info().ExecutionCount
			var streamed []string
			r, err := k.Execute(context.Background(), kernel.Request{Code: "print('quiet')\nsilent_name = 1\n5", Silent: true,
				OnOutput: func(s kernel.Stream, text string) { streamed = append(streamed, text) }})
			if err != nil || r.Status != kernel.StatusOK || r.ExecutionCount != 0 || len(streamed) != 0 || r.Stdout != "" || r.Value != nil || k.Info().ExecutionCount != before {
				t.Fatalf("%+v %v %q", r, err, streamed)
			}
			if r := kerneltest.Run(t, k, "silent_name"); value(r) != "1" {
				t.Fatalf("%+v", r)
			}
			r, err = k.Execute(context.Background(), kernel.Request{Code: "print('z' * 3_000_000)",
				OnOutput: func(s kernel.Stream, text string) { streamed = append(streamed, text) }})
			if err != nil || !strings.Contains(r.Stdout, "\n[backyard: output truncated at 1048576 bytes: ") || !strings.HasSuffix(r.Stdout, "zzz\n") || len(r.Stdout) > 1<<20+100 {
				t.Fatalf("%d bytes, ends %q", len(r.Stdout), r.Stdout[max(0, len(r.Stdout)-60):])
			}
		})

		t.Run("value capped", func(t *testing.T) {
			// Six times the cap: a 60 MB string and its repr came close to
			// the 256 MiB limit under gVisor, whose sandbox counts too.
			r := kerneltest.Run(t, k, "s = 'x' * 6_000_000\ns")
			want := "\n[backyard: value truncated at 1048576 bytes; 4951426 more characters not shown]"
			if r.Value == nil || !strings.HasSuffix(r.Value.Text, want) || len(r.Value.Text) != 1<<20+len(want) {
				t.Fatalf("%+v %+v", r.Status, r.Error)
			}
			r = kerneltest.Run(t, k, "del s\nclass Big:\n    def _repr_png_(self):\n        return bytes(2_000_000)\nBig()")
			if r.Value == nil || r.Value.MIME["image/png"] != "" || !strings.Contains(r.Value.Text, "its image/png data (2666668 bytes) is over the 1048576-byte output limit") {
				t.Fatalf("%+v", r.Value)
			}
		})

		t.Run("input", func(t *testing.T) {
			r, err := k.Execute(context.Background(), kernel.Request{Code: "name = input('name? ')\nname", OnInput: func(ctx context.Context, prompt string, _ bool) (string, error) {
				return "Ada " + prompt, nil
			}})
			if err != nil || r.Status != kernel.StatusOK || value(r) != "'Ada name? '" || r.Stdout != "name? Ada name? \n" {
				t.Fatalf("%+v %v", r, err)
			}
			// No OnInput: the front end gives no stdin, as ipykernel says.
			r = kerneltest.Run(t, k, "input('x')")
			if r.Status != kernel.StatusError || r.Error.EName != "StdinNotImplementedError" || r.Stdout != "" {
				t.Fatalf("%+v %+v", r, r.Error)
			}
			// An interrupt while it waits: KeyboardInterrupt, the question's
			// context ends.
			ended := make(chan struct{})
			r, _ = k.Execute(context.Background(), kernel.Request{Code: "input('q')", OnInput: func(ctx context.Context, _ string, _ bool) (string, error) {
				go k.Interrupt() // the cell waits for the answer now
				<-ctx.Done()
				close(ended)
				return "", ctx.Err()
			}})
			if r.Status != kernel.StatusInterrupted || r.Error.EName != "KeyboardInterrupt" {
				t.Fatalf("%+v %+v", r, r.Error)
			}
			<-ended
		})

		t.Run("interrupt keeps state", func(t *testing.T) {
			kerneltest.Run(t, k, "kept = [1, 2]")
			r := kerneltest.RunInterrupted(t, k, kernel.Request{Code: "kept.append(3)\nprint('looping', flush=True)\nwhile True:\n    pass"}, "looping")
			if r.Status != kernel.StatusInterrupted || r.Error.EName != "KeyboardInterrupt" {
				t.Fatalf("%+v %+v", r, r.Error)
			}
			// As in Jupyter, what the cell did before the interrupt stays.
			if r := kerneltest.Run(t, k, "kept"); value(r) != "[1, 2, 3]" {
				t.Fatalf("%+v", r)
			}
		})

		t.Run("SystemExit ends only the cell", func(t *testing.T) {
			// As in IPython: the exception, str() of it, and the kernel
			// with its namespace goes on (argparse's --help exits 0).
			for code, want := range map[string]string{"import sys\nsys.exit(4)": "4", "raise SystemExit": "", "exit('bye')": "bye",
				"import argparse\nargparse.ArgumentParser(prog='p').parse_args(['--help'])": "0"} {
				r := kerneltest.Run(t, k, code)
				if r.Status != kernel.StatusError || r.Error.EName != "SystemExit" || r.Error.EValue != want {
					t.Fatalf("%q: %+v %+v", code, r, r.Error)
				}
			}
			before := k.Info().ExecutionCount
			r := kerneltest.Run(t, k, "x")
			if value(r) != "20" || r.ExecutionCount != before+1 {
				t.Fatalf("%+v", r)
			}
			// os._exit ends the interpreter: a crash that says so.
			r = kerneltest.Run(t, k, "import os\nos._exit(3)")
			if r.Status != kernel.StatusCrashed || !strings.Contains(r.Error.EValue, "exited with code 3 (os._exit()") {
				t.Fatalf("%+v %+v", r, r.Error)
			}
			if r := kerneltest.Run(t, k, "1 + 1"); value(r) != "2" || r.ExecutionCount != 1 {
				t.Fatalf("%+v", r)
			}
		})

		t.Run("restart clears state", func(t *testing.T) {
			kerneltest.Run(t, k, "gone = 1")
			if err := k.Restart(context.Background()); err != nil {
				t.Fatal(err)
			}
			if info := k.Info(); info.ExecutionCount != 0 {
				t.Fatalf("%+v", info)
			}
			r := kerneltest.Run(t, k, "gone")
			if r.Status != kernel.StatusError || r.Error.EName != "NameError" || r.ExecutionCount != 1 {
				t.Fatalf("%+v", r)
			}
		})

		t.Run("close removes the container", func(t *testing.T) {
			id := k.ContainerID()
			if id == "" {
				t.Fatal("no container")
			}
			if err := k.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := k.Execute(context.Background(), kernel.Request{Code: "1"}); err != kernel.ErrClosed {
				t.Fatalf("%v", err)
			}
			if containerExists(t, id) {
				t.Fatalf("container %s left after Close", id)
			}
		})
	}, func(o *Options) { o.Workspace, o.Container.MountWorkspace = ws, true })
}

func pyStr(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`).Replace(s) + "'"
}

func containerExists(t testing.TB, id string) bool {
	t.Helper()
	e, err := container.Shared(context.Background(), "", nil)
	if err != nil {
		t.Fatal(err)
	}
	ok, err := e.ContainerExists(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func TestContainerTimeout(t *testing.T) {
	forRuntimes(t, kernel.Limits{Timeout: time.Second}, func(t *testing.T, k *Kernel) {
		kerneltest.Run(t, k, "n = 1")
		// Stopped by SIGINT: the state stays.
		r := kerneltest.Run(t, k, "n = 2\nimport subprocess\np = subprocess.Popen(['sh', '-c', 'sleep 1000 & sleep 1000'])\nwhile True:\n    pass")
		if r.Status != kernel.StatusTimeout || r.Error.EName != "TimeoutError" || !strings.Contains(r.Error.EValue, "1s time limit") {
			t.Fatalf("%+v %+v", r, r.Error)
		}
		// The state stays; the processes the cell started do not.
		r = kerneltest.Run(t, k, "import os\nn, [p for p in os.listdir('/proc') if p.isdigit() and p != '1' and os.path.exists('/proc/%s/cmdline' % p)]")
		if value(r) != "(2, [])" {
			t.Fatalf("%+v %+v", r, r.Error)
		}
		// A cell that swallows KeyboardInterrupt is killed after the grace
		// period, and the kernel restarted.
		r = kerneltest.Run(t, k, "while True:\n    try:\n        while True:\n            pass\n    except KeyboardInterrupt:\n        pass")
		if r.Status != kernel.StatusTimeout || !strings.Contains(r.Error.EValue, "restarted") {
			t.Fatalf("%+v %+v", r, r.Error)
		}
		if r := kerneltest.Run(t, k, "'n' in globals()"); value(r) != "False" || r.ExecutionCount != 1 {
			t.Fatalf("%+v", r)
		}
	})
}

func TestContainerForkBomb(t *testing.T) {
	forRuntimes(t, kernel.Limits{}, func(t *testing.T, k *Kernel) {
		kerneltest.Run(t, k, "before = 1")
		r := kerneltest.Run(t, k, "import os\nwhile True:\n    os.fork()")
		t.Logf("%s: %+v", r.Status, r.Error)
		switch k.Info().Runtime {
		case container.RuntimeRunc:
			// fork() fails at the pids limit and the kernel lives.
			if r.Status != kernel.StatusError || r.Error.EName != "BlockingIOError" {
				t.Fatalf("%+v %+v", r, r.Error)
			}
			if r := kerneltest.Run(t, k, "before"); value(r) != "1" {
				t.Fatalf("%+v", r)
			}
		case container.RuntimeRunsc:
			// gVisor's sandbox dies: a crash, then a fresh kernel.
			if r.Status != kernel.StatusCrashed {
				t.Fatalf("%+v %+v", r, r.Error)
			}
			if r := kerneltest.Run(t, k, "'before' in globals()"); value(r) != "False" || r.ExecutionCount != 1 {
				t.Fatalf("%+v", r)
			}
		}
	})
}

func TestContainerMemoryBomb(t *testing.T) {
	forRuntimes(t, kernel.Limits{MemoryBytes: 128 << 20}, func(t *testing.T, k *Kernel) {
		kerneltest.Run(t, k, "before = 1")
		r := kerneltest.Run(t, k, "hog = []\nwhile True:\n    hog.append('x' * 10_000_000)")
		t.Logf("%s: %+v", r.Status, r.Error)
		if r.Status != kernel.StatusCrashed || !strings.Contains(r.Error.EValue, "the kernel ran out of memory (limit 128 MiB); the next run starts a fresh kernel") {
			t.Fatalf("%+v %+v", r, r.Error)
		}
		if r := kerneltest.Run(t, k, "'before' in globals()"); value(r) != "False" || r.ExecutionCount != 1 {
			t.Fatalf("%+v", r)
		}
	})
}

func TestContainerEngineUnreachable(t *testing.T) {
	k, err := New(Options{DockerHost: "unix:///nonexistent/docker.sock", Container: contract.ContainerSettings{Image: testImage()}})
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	_, err = k.Execute(context.Background(), kernel.Request{Code: "1"})
	if err == nil || !strings.Contains(err.Error(), "cannot reach the container engine at unix:///nonexistent/docker.sock") ||
		!strings.Contains(err.Error(), "start dockerd or set DOCKER_HOST") {
		t.Fatalf("%v", err)
	}
	if info := k.Info(); info.State != kernel.StateDead {
		t.Fatalf("%+v", info)
	}
}

// proxy forwards a unix socket or a TCP port to the real engine, and can be
// killed mid-run like a stopped engine.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func startProxy(t *testing.T, network, addr string) *proxy {
	t.Helper()
	ln, err := net.Listen(network, addr)
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("unix", "/var/run/docker.sock")
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			go func() { io.Copy(up, c); up.Close() }()
			go func() { io.Copy(c, up); c.Close() }()
		}
	}()
	t.Cleanup(p.kill)
	return p
}

func (p *proxy) kill() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
}

// TestContainerEngineStoppedMidRun talks to the engine through a proxy
// socket and kills the proxy while a cell runs (the real dockerd is shared
// by other tests).
func TestContainerEngineStoppedMidRun(t *testing.T) {
	requireEngine(t)
	for _, rt := range runtimes {
		t.Run(rt, func(t *testing.T) {
			sock := filepath.Join(t.TempDir(), "engine.sock")
			p := startProxy(t, "unix", sock)
			host := "unix://" + sock
			k := newContainerKernel(t, rt, kernel.Limits{}, func(o *Options) { o.DockerHost = host })
			kerneltest.Run(t, k, "import time")
			id := k.ContainerID()
			t.Cleanup(func() { removeContainer(t, id) })
			var once sync.Once // the proxy dies while the cell sleeps
			r, err := k.Execute(context.Background(), kernel.Request{Code: "print('sleeping', flush=True)\ntime.sleep(60)",
				OnOutput: func(kernel.Stream, string) { once.Do(func() { go p.kill() }) }})
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != kernel.StatusCrashed || r.Error.EName != "EngineLost" ||
				!strings.Contains(r.Error.EValue, "lost the connection to the container engine at "+host) {
				t.Fatalf("%+v %+v", r, r.Error)
			}
			_, err = k.Execute(context.Background(), kernel.Request{Code: "1"})
			if err == nil || !strings.Contains(err.Error(), "cannot reach the container engine at "+host) {
				t.Fatalf("%v", err)
			}
		})
	}
}

// A remote engine is reached through DOCKER_HOST=tcp://… (here a local
// forwarder).
func TestContainerRemoteEngineTCP(t *testing.T) {
	requireEngine(t)
	p := startProxy(t, "tcp", "127.0.0.1:0")
	t.Setenv("DOCKER_HOST", "tcp://"+p.ln.Addr().String())
	forRuntimes(t, kernel.Limits{}, func(t *testing.T, k *Kernel) {
		if r := kerneltest.Run(t, k, "6 * 7"); value(r) != "42" {
			t.Fatalf("%+v %+v", r, r.Error)
		}
		if !strings.Contains(k.Info().Versions["engine"], "API") {
			t.Fatalf("%+v", k.Info())
		}
	})
}

func removeContainer(t testing.TB, id string) {
	e, err := container.Shared(context.Background(), "", nil)
	if err == nil {
		err = e.Remove(context.Background(), id)
	}
	if err != nil {
		t.Errorf("remove %s: %v", id, err)
	}
}

// TestContainerPodman runs a kernel on Podman's Docker-compatible socket
// when BACKYARD_TEST_PODMAN_HOST names one (e.g. unix:///tmp/podman.sock
// from `podman system service --time=0 unix:///tmp/podman.sock`, with the
// test image loaded: `docker save IMAGE | podman load`). CI has no Podman.
func TestContainerPodman(t *testing.T) {
	host := os.Getenv("BACKYARD_TEST_PODMAN_HOST")
	if host == "" {
		t.Skip("set BACKYARD_TEST_PODMAN_HOST to test Podman")
	}
	for _, rt := range runtimes {
		t.Run(rt, func(t *testing.T) {
			k, err := New(Options{DockerHost: host, Container: contract.ContainerSettings{Image: testImage(), Runtime: contract.Runtime(rt)}, Pull: "never"})
			if err != nil {
				t.Fatal(err)
			}
			defer func() {
				if err := k.Close(); err != nil {
					t.Error(err)
				}
			}()
			kerneltest.Run(t, k, "x = 41")
			r := kerneltest.Run(t, k, "import os, socket\nprint('out')\nx + 1, os.getuid(), [n for _, n in socket.if_nameindex()]")
			if r.Status != kernel.StatusOK || value(r) != "(42, 65534, ['lo'])" || r.Stdout != "out\n" {
				t.Fatalf("%+v %+v", r, r.Error)
			}
			if info := k.Info(); !strings.HasPrefix(info.Versions["engine"], "Podman Engine") || info.Runtime != rt {
				t.Fatalf("%+v", info)
			}
			if r := kerneltest.RunInterrupted(t, k, kernel.Request{Code: "while True:\n    pass"}, ""); r.Status != kernel.StatusInterrupted {
				t.Fatalf("%+v", r)
			}
		})
	}
}

func TestContainerWarnOnce(t *testing.T) {
	var got []string
	to := func(w string) { got = append(got, w) }
	warnOnce("test warning a", nil) // no listener: not used up
	warnOnce("test warning a", to)
	warnOnce("test warning a", to)
	warnOnce("test warning b", to)
	if strings.Join(got, "|") != "test warning a|test warning b" {
		t.Fatalf("%q", got)
	}
}

// Interrupt is Jupyter's: one SIGINT per request. A handler that catches
// KeyboardInterrupt runs to its end; a cell still running after an
// interrupt stays running (busy), past the grace period, until a second
// interrupt; the processes the interrupted cell started are gone after it.
func TestContainerInterruptLikeJupyter(t *testing.T) {
	forRuntimes(t, kernel.Limits{}, func(t *testing.T, k *Kernel) {
		kerneltest.Run(t, k, "import subprocess, time\nold = subprocess.Popen(['sleep', '1000'])")
		time.Sleep(20 * time.Millisecond)
		r := kerneltest.RunInterrupted(t, k, kernel.Request{Code: "n = 0\ntry:\n    print('looping', flush=True)\n    while True:\n        n += 1\nexcept KeyboardInterrupt:\n    for i in range(15):\n        time.sleep(0.1)\n    cleaned = True\n'done'"}, "looping")
		if r.Status != kernel.StatusOK || value(r) != "'done'" {
			t.Fatalf("the handler did not run to its end: %+v %+v", r, r.Error)
		}

		var states []kernel.State
		var mu sync.Mutex
		var once sync.Once
		looping := func(_ kernel.Stream, text string) {
			if strings.Contains(text, "looping") {
				once.Do(func() {
					go func() {
						k.Interrupt()
						time.Sleep(3 * time.Second) // past the grace period (2 s here)
						mu.Lock()
						states = append(states, k.Info().State)
						mu.Unlock()
						k.Interrupt()
					}()
				})
			}
		}
		r, err := k.Execute(context.Background(), kernel.Request{OnOutput: looping,
			Code: "kid = subprocess.Popen(['sh', '-c', 'sleep 1000 & sleep 1000'])\ntry:\n    print('looping', flush=True)\n    while True:\n        pass\nexcept KeyboardInterrupt:\n    caught = 1\n    while True:\n        pass"})
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		got := states
		mu.Unlock()
		if r.Status != kernel.StatusInterrupted || r.Error.EName != "KeyboardInterrupt" || len(got) != 1 || got[0] != kernel.StateBusy {
			t.Fatalf("%+v %+v, state after the first interrupt %v", r, r.Error, got)
		}
		r = kerneltest.Run(t, k, "import os\n"+
			"def sleeps():\n    return sorted(int(p) for p in os.listdir('/proc') if p.isdigit() and open('/proc/%s/cmdline' % p, 'rb').read().startswith(b'sleep\\x00'))\n"+
			"(caught, cleaned, sleeps() == [old.pid])")
		if value(r) != "(1, True, True)" {
			t.Fatalf("the state or the processes after the interrupts: %+v %+v", r, r.Error)
		}
	})
}

// Death is reported truthfully: a container killed from outside between
// cells turns the kernel dead at once and the next run is a crash that
// says the state is lost (count 0, then 1); killed during a cell, it is a
// signal, not "out of memory".
func TestContainerDeath(t *testing.T) {
	var mu sync.Mutex
	var told []kernel.State
	forRuntimes(t, kernel.Limits{}, func(t *testing.T, k *Kernel) {
		kerneltest.Run(t, k, "lost = 1")
		mu.Lock()
		told = nil
		mu.Unlock()
		killContainer(t, k.ContainerID())
		deadline := time.Now().Add(20 * time.Second)
		for k.Info().State != kernel.StateDead {
			if time.Now().After(deadline) {
				t.Fatalf("the death was not noticed: %+v", k.Info())
			}
			time.Sleep(20 * time.Millisecond)
		}
		mu.Lock()
		if len(told) != 1 || told[0] != kernel.StateDead {
			t.Errorf("states told: %v", told)
		}
		mu.Unlock()
		r := kerneltest.Run(t, k, "lost")
		if r.Status != kernel.StatusCrashed || r.ExecutionCount != 0 || !strings.Contains(r.Error.EValue, "the kernel died while idle: state lost") ||
			!strings.Contains(r.Error.EValue, "SIGKILL") || strings.Contains(r.Error.EValue, "memory") {
			t.Fatalf("%+v %+v", r, r.Error)
		}
		r = kerneltest.Run(t, k, "'lost' in globals()")
		if value(r) != "False" || r.ExecutionCount != 1 {
			t.Fatalf("%+v", r)
		}
		var kill sync.Once // once the cell runs
		r, err := k.Execute(context.Background(), kernel.Request{Code: "print('looping', flush=True)\nwhile True:\n    pass",
			OnOutput: func(kernel.Stream, string) { kill.Do(func() { go killContainer(t, k.ContainerID()) }) }})
		if err != nil {
			t.Fatal(err)
		}
		if r.Status != kernel.StatusCrashed || !strings.Contains(r.Error.EValue, "killed by signal SIGKILL") || strings.Contains(r.Error.EValue, "memory") {
			t.Fatalf("%+v %+v", r, r.Error)
		}
	}, func(o *Options) {
		o.OnState = func(s kernel.State) {
			mu.Lock()
			told = append(told, s)
			mu.Unlock()
		}
	})
}

// killContainer kills a container from outside, as `docker kill` does.
func killContainer(t testing.TB, id string) {
	t.Helper()
	cli, err := dockerclient.NewClientWithOpts(dockerclient.FromEnv, dockerclient.WithAPIVersionNegotiation())
	if err != nil {
		t.Error(err)
		return
	}
	defer cli.Close()
	if err := cli.ContainerKill(context.Background(), id, "SIGKILL"); err != nil {
		t.Error(err)
	}
}
