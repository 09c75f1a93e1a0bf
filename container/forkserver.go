package container

import (
	"context"
	_ "embed"
	"encoding/base64"
	"fmt"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// forkServerPy is the batch fork server: stdlib-only Python >= 3.8,
// started like the driver, as the -c argument (forkServerSource), after
// the exception records it shares with the driver.
//
//go:embed forkserver.py
var forkServerPy string

var forkServerSource = pyerrorPy + "\n" + forkServerPy

// forkServerArgs are the fork server's arguments before its preloads: the
// count of the parts of IPython's shell (ipython.py, the driver's), then
// the parts. The server compiles the shell when a snippet first needs it
// (Snippet.Shell), never for a batch without IPython syntax.
var forkServerArgs = sync.OnceValue(func() []string {
	parts := splitSource(ipythonPy, maxArg)
	return append([]string{"-c", forkServerSource, strconv.Itoa(len(parts))}, parts...)
})

const forkServerProtocol = 1

// ForkServerHeadroom is the memory a fork-server container has on top of
// the snippets' limit: the server itself and the modules it preloaded.
const ForkServerHeadroom = 256 << 20

// forkServerEnv keeps numerical libraries single-threaded: a fork copies
// only the thread that forks, and thread pools started before it hang
// the child.
var forkServerEnv = []string{"OPENBLAS_NUM_THREADS=1", "OMP_NUM_THREADS=1", "MKL_NUM_THREADS=1", "NUMEXPR_NUM_THREADS=1"}

// forkServerGrace is how long past a snippet's time limit the host waits
// for the fork server's answer before it gives the container up. A
// server that answers late is not stuck: after a fork bomb it shares the
// container's CPU with hundreds of spinning processes until its kill
// lands, and on a loaded host that took over 5 s.
const forkServerGrace = 20 * time.Second

// ForkServer is a long-lived hardened container (the same hardening as a
// kernel container) whose fork server runs independent snippets: the
// interpreter and the preloaded modules start once, and every snippet runs
// in a fresh forked child with its own limits, after which every other
// process of the container is killed and its writable directories are
// emptied. Run must not be called concurrently; Close may be called from
// any goroutine.
type ForkServer struct {
	s *Session
}

var moduleName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$`)

// IsModuleName reports whether s is a dotted module name a fork server
// imports (ASCII identifiers).
func IsModuleName(s string) bool { return moduleName.MatchString(s) }

// StartForkServer starts a fork-server container on e that imports the
// modules preload (e.g. "numpy") once. cfg.MemoryBytes is the limit of
// each snippet; the container itself gets ForkServerHeadroom more. A
// preload the image cannot import makes the start fail with the error.
func (e *Engine) StartForkServer(ctx context.Context, cfg Config, preload []string) (*ForkServer, error) {
	for _, m := range preload {
		if !moduleName.MatchString(m) {
			return nil, fmt.Errorf("preload %q is not a module name", m)
		}
	}
	cfg = cfg.WithDefaults()
	cfg.MemoryBytes += ForkServerHeadroom
	cfg.MountWorkspace = false // a batch has no workspace; a snippet's files come with it
	s, err := e.start(ctx, cfg, program{
		command: func(python string) []string {
			return slices.Concat([]string{python}, forkServerArgs(), preload)
		},
		env:      forkServerEnv,
		protocol: forkServerProtocol,
	})
	if err != nil {
		return nil, err
	}
	return &ForkServer{s: s}, nil
}

// Snippet is one independent run on a fork server.
type Snippet struct {
	Code string
	// Inputs are the lines the snippet's stdin holds (what input() reads).
	Inputs []string
	// Stdin, when set, is what the snippet's stdin holds, as is (Inputs
	// are then ignored).
	Stdin *string
	// Files are written into the snippet's working directory before it
	// runs: relative slash-separated path → content (UTF-8 text or any
	// bytes).
	Files map[string]string
	// Fetch are files of the working directory read back once the snippet
	// ended (SnippetResult.Fetched): regular files reached without a
	// symbolic link, at most FetchMax bytes in all (default 16 MiB); the
	// others are left out.
	Fetch    []string
	FetchMax int
	// Program runs it as `python file.py` would: a trailing expression
	// is evaluated but has no value to show.
	Program bool
	// Shell: the code is a cell with IPython syntax, transformed
	// (ipysyntax.Transform): get_ipython() is IPython's shell as a
	// kernel's cells have it, and a UsageError shows as IPython shows one.
	Shell bool
	// Timeout, MemoryBytes, MaxOutput and RecursionLimit bound the
	// snippet (defaults 30 s, 256 MiB, 1 MiB per stream, 1000).
	Timeout        time.Duration
	MemoryBytes    int64
	MaxOutput      int
	RecursionLimit int
}

// SnippetResult is how a snippet ended.
type SnippetResult struct {
	// Status is "ok", "error" (an exception; Error says which), "timeout"
	// or "crashed" (the child died without a result; Error says how).
	Status         string
	Stdout, Stderr string // each cut a little past MaxOutput
	Value          *Value // the trailing expression's repr, nil if none
	Error          *PyError
	Duration       time.Duration
	// Fetched are the Fetch files found, path → content.
	Fetched map[string]string
	// ExitCode or Signal tell how a crashed snippet's process ended, when
	// it exited (ExitCode set) or was killed (Signal > 0).
	ExitCode *int
	Signal   int
	// OOMKilled: the container's OOM killer struck while the snippet ran
	// and the snippet died by SIGKILL (read from the container's memory
	// cgroup where this host has it; several snippets at once can push
	// the container past its limit, and the killer takes a child).
	OOMKilled bool
}

// runRequest is the fork server's request frame.
type runRequest struct {
	T              string            `json:"t"`
	ID             uint64            `json:"id"`
	Code           string            `json:"code"`
	Program        bool              `json:"program,omitempty"`
	Shell          bool              `json:"shell,omitempty"`
	Inputs         []string          `json:"inputs,omitempty"`
	Stdin          *string           `json:"stdin,omitempty"`
	Files          map[string]string `json:"files,omitempty"`
	FilesB64       map[string]string `json:"files_b64,omitempty"` // files that are not UTF-8 text
	Fetch          []string          `json:"fetch,omitempty"`
	FetchMax       int               `json:"fetch_max,omitempty"`
	Timeout        float64           `json:"timeout"`
	Memory         int64             `json:"memory"`
	MaxOutput      int               `json:"max_output"`
	RecursionLimit int               `json:"recursion_limit"`
	Processes      int               `json:"processes,omitempty"`
}

// gvisorProcesses caps the processes (and threads) of a snippet under
// gVisor, whose own host processes share the container's pids limit: a
// fork bomb that reaches that limit stops the whole sandbox. Under runc the
// pids limit stops the bomb alone, and the rlimit (counted per user
// across the host) is left alone.
const gvisorProcesses = 64

// CheckFiles reports the first file name a snippet may not have: it must
// be a relative, clean, slash-separated path inside the working directory.
func CheckFiles(files map[string]string) error {
	for name := range files {
		if err := checkPath(name); err != nil {
			return err
		}
	}
	return nil
}

// CheckPaths is CheckFiles for a list of names.
func CheckPaths(names []string) error {
	for _, name := range names {
		if err := checkPath(name); err != nil {
			return err
		}
	}
	return nil
}

func checkPath(name string) error {
	if name == "" || strings.ContainsRune(name, 0) || strings.HasPrefix(name, "/") || path.Clean(name) != name ||
		name == "." || name == ".." || strings.HasPrefix(name, "../") || strings.Contains(name, `\`) {
		return fmt.Errorf("file name %q must be a relative path inside the working directory, like data/in.csv", name)
	}
	return nil
}

// Run runs one snippet and waits for its end. When ctx ends, the server is
// asked to kill the snippet's processes: the result then has Status
// "interrupted" and the server goes on. The error is for a fork server
// that cannot go on (its container stopped: ErrEnded; a bad file name; a
// stopped snippet it did not end in time); a snippet that fails, crashes
// or runs out of time is a result.
func (f *ForkServer) Run(ctx context.Context, sn Snippet) (SnippetResult, error) {
	if err := CheckFiles(sn.Files); err != nil {
		return SnippetResult{}, err
	}
	if err := CheckPaths(sn.Fetch); err != nil {
		return SnippetResult{}, err
	}
	if sn.Timeout <= 0 {
		sn.Timeout = 30 * time.Second
	}
	if sn.MemoryBytes <= 0 {
		sn.MemoryBytes = DefaultMemoryBytes
	}
	if sn.MaxOutput <= 0 {
		sn.MaxOutput = 1 << 20
	}
	if sn.RecursionLimit <= 0 {
		sn.RecursionLimit = DefaultRecursionLimit
	}
	s := f.s
	id := s.nextID.Add(1)
	req := runRequest{
		T: "run", ID: id, Code: sn.Code, Program: sn.Program, Shell: sn.Shell, Inputs: sn.Inputs, Stdin: sn.Stdin, Timeout: sn.Timeout.Seconds(),
		Memory: sn.MemoryBytes, MaxOutput: sn.MaxOutput, RecursionLimit: sn.RecursionLimit, Fetch: sn.Fetch, FetchMax: sn.FetchMax,
	}
	req.Files, req.FilesB64 = splitFiles(sn.Files)
	if f.Runtime().Name == RuntimeRunsc {
		req.Processes = gvisorProcesses
	}
	buf, err := appendFrame(nil, req)
	if err != nil {
		return SnippetResult{}, err
	}
	kills, counted := s.oom.Kills()
	start := time.Now()
	s.wmu.Lock()
	_, err = s.conn.Conn.Write(buf)
	s.wmu.Unlock()
	if err != nil {
		s.conn.Close() // let the reader end
	}
	stuck := time.NewTimer(sn.Timeout + forkServerGrace)
	defer stuck.Stop()
	var r SnippetResult
	done := ctx.Done()
	for {
		select {
		case m, ok := <-s.events:
			if !ok {
				return SnippetResult{}, fmt.Errorf("%w: %s", ErrEnded, s.Exit(context.Background()).Describe())
			}
			switch {
			case m.T == msgOut && m.S == "stderr":
				r.Stderr += m.D
			case m.T == msgOut:
				r.Stdout += m.D
			case m.T == msgDone && m.ID == id:
				r.Status, r.Value, r.Error, r.Duration = m.Status, m.Value, m.Error, time.Since(start)
				r.ExitCode, r.Signal = m.Exit, m.Signal
				if n, ok := s.oom.Kills(); counted && ok && n > kills && SignalName(r.Signal) == "SIGKILL" {
					r.OOMKilled = true
				}
				if len(m.Fetched) > 0 {
					r.Fetched = make(map[string]string, len(m.Fetched))
					for p, b := range m.Fetched {
						if data, err := base64.StdEncoding.DecodeString(b); err == nil {
							r.Fetched[p] = string(data)
						}
					}
				}
				return r, nil
			case m.T == msgError:
				return SnippetResult{}, fmt.Errorf("fork server: %s", m.Message)
			}
		case <-stuck.C:
			s.Kill()
			if done == nil {
				return SnippetResult{}, fmt.Errorf("%w: the fork server did not stop the snippet within %s", ErrEnded, forkServerGrace)
			}
			return SnippetResult{}, fmt.Errorf("%w: the fork server did not answer within %s of the time limit", ErrEnded, forkServerGrace)
		case <-done:
			// Stopped: the server kills the snippet and answers
			// "interrupted".
			done = nil
			buf, _ := appendFrame(nil, message{T: msgCancel, ID: id})
			s.wmu.Lock()
			_, err := s.conn.Conn.Write(buf)
			s.wmu.Unlock()
			if err != nil {
				return SnippetResult{}, context.Cause(ctx)
			}
			stuck.Reset(forkServerGrace)
		}
	}
}

// Imported is what Import did.
type Imported struct {
	Modules []string          // imported
	Had     []string          // already imported before (by the interpreter, a preload, a module)
	Failed  map[string]string // module → why not
	// Threads are the server's threads afterwards: more than one makes
	// forking unsafe (a child gets only the forking thread), and the
	// server must then be given up.
	Threads int
	// RSS is the server's resident memory afterwards, in bytes.
	RSS int64
}

// Import imports modules into the fork server between snippets, as a
// preload would have: the snippets after it find them loaded. A module
// that fails to import is reported, not an error; the error is for a
// server that cannot go on (as Run's).
func (f *ForkServer) Import(ctx context.Context, modules []string) (Imported, error) {
	for _, m := range modules {
		if !moduleName.MatchString(m) {
			return Imported{}, fmt.Errorf("%q is not a module name", m)
		}
	}
	s := f.s
	id := s.nextID.Add(1)
	buf, err := appendFrame(nil, message{T: msgImport, ID: id, Modules: modules})
	if err != nil {
		return Imported{}, err
	}
	s.wmu.Lock()
	_, err = s.conn.Conn.Write(buf)
	s.wmu.Unlock()
	if err != nil {
		s.conn.Close() // let the reader end
	}
	stuck := time.NewTimer(importTimeout)
	defer stuck.Stop()
	for {
		select {
		case m, ok := <-s.events:
			if !ok {
				return Imported{}, fmt.Errorf("%w: %s", ErrEnded, s.Exit(context.Background()).Describe())
			}
			switch {
			case m.T == msgImported && m.ID == id:
				return Imported{Modules: m.Modules, Had: m.Had, Failed: m.Failed, Threads: m.Threads, RSS: m.RSS}, nil
			case m.T == msgError:
				return Imported{}, fmt.Errorf("fork server: %s", m.Message)
			}
		case <-stuck.C:
			s.Kill()
			return Imported{}, fmt.Errorf("%w: the fork server did not import %v within %s", ErrEnded, modules, importTimeout)
		case <-ctx.Done():
			return Imported{}, context.Cause(ctx)
		}
	}
}

// importTimeout bounds an Import (a module that hangs on import).
const importTimeout = time.Minute

// splitFiles sends UTF-8 files as text and the others base64-encoded.
func splitFiles(files map[string]string) (text, b64 map[string]string) {
	for p, c := range files {
		if utf8.ValidString(c) {
			if text == nil {
				text = map[string]string{}
			}
			text[p] = c
			continue
		}
		if b64 == nil {
			b64 = map[string]string{}
		}
		b64[p] = base64.StdEncoding.EncodeToString([]byte(c))
	}
	return text, b64
}

// ID is the container's ID.
func (f *ForkServer) ID() string { return f.s.ID() }

// Runtime is the runtime the container runs on.
func (f *ForkServer) Runtime() Runtime { return f.s.Runtime() }

// Python is the container's python3 version.
func (f *ForkServer) Python() string { return f.s.Python() }

// Alive reports whether the fork server still runs.
func (f *ForkServer) Alive() bool { return f.s.Alive() }

// Close removes the container (a running snippet stops at once).
func (f *ForkServer) Close() error { return f.s.Close() }

// Exit waits for the container to end and says why (see Session.Exit):
// after Run or Import returned ErrEnded.
func (f *ForkServer) Exit(ctx context.Context) ExitInfo { return f.s.Exit(ctx) }
