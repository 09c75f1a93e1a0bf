package api

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/internal/jsonval"
	"github.com/backyard-ls/backyard-ls/internal/proc"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/monty"
	"github.com/backyard-ls/backyard-ls/notebook"
	"github.com/backyard-ls/backyard-ls/pypkg"
	"github.com/backyard-ls/backyard-ls/sandbox"
)

// box is one open sandbox.
type box struct {
	id      string
	s       *server
	sb      *sandbox.Sandbox
	backend contract.Backend
	write   contract.FilesWrite

	runMu   sync.Mutex // runs take turns
	running atomic.Bool
	kept    atomic.Pointer[kept] // the running run's call, while on the read loop
	once    sync.Once
	own     string // the folder made for it when the client named none
}

func (b *box) close() {
	b.once.Do(func() {
		if err := b.sb.Close(); err != nil {
			b.s.log.Debug("closing a sandbox", zap.String("sandbox", b.id), zap.Error(err))
		}
		removeOwn(b.own, b.s.log)
	})
}

// folderPrefix names the folders ownFolder makes: folderPrefix, the
// server's pid, "-" and a random part, so that a later server can remove
// those of one that was killed (ReapFolders).
const folderPrefix = "backyard-sandbox-"

// ownFolder makes the working directory of a sandbox opened without a
// workspace: an empty folder of its own, as a notebook's kernel starts in
// its folder, and never the server's (it may be the home folder or /).
func ownFolder() (string, error) {
	dir, err := os.MkdirTemp("", folderPrefix+strconv.Itoa(os.Getpid())+"-")
	if err != nil {
		return "", err
	}
	// The kernel sees the real path (a temporary folder behind a link on
	// macOS), the same on Monty and in a container.
	path, err := filepath.EvalSymlinks(dir)
	if err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return path, nil
}

// ReapFolders removes the sandbox folders (ownFolder) of servers that are
// gone, killed before they could remove them, and returns them. A folder
// whose pid is alive, reused or not, is kept.
func ReapFolders() []string {
	tmp := os.TempDir()
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return nil
	}
	var removed []string
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), folderPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		digits, _, ok := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(digits)
		if !ok || err != nil || pid <= 0 || pid == os.Getpid() || proc.Alive(pid) {
			continue
		}
		dir := filepath.Join(tmp, e.Name())
		if os.RemoveAll(dir) == nil {
			removed = append(removed, dir)
		}
	}
	return removed
}

func removeOwn(dir string, log *zap.Logger) {
	if dir == "" {
		return
	}
	if err := os.RemoveAll(dir); err != nil {
		log.Warn("removing a sandbox's folder", zap.String("folder", dir), zap.Error(err))
	}
}

// box finds an open sandbox.
func (s *server) box(id string) (*box, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if b := s.boxes[id]; b != nil {
		return b, nil
	}
	return nil, errorf(contract.APIClosed, "sandbox %q is closed or was never opened", id)
}

// settingsOf are the server's settings with what a request sets: keys are
// settings' keys, so the declared bounds and checks apply; a zero value
// sets nothing.
func (s *server) settingsOf(set map[string]any) (contract.Settings, error) {
	for k, v := range set {
		switch x := v.(type) {
		case string:
			if x == "" {
				delete(set, k)
			}
		case contract.Seconds:
			if x == 0 {
				delete(set, k)
			}
		case contract.MiB:
			if x == 0 {
				delete(set, k)
			}
		case int:
			if x == 0 {
				delete(set, k)
			}
		}
	}
	raw, err := json.Marshal(set)
	if err != nil {
		return contract.Settings{}, err
	}
	over, warns := contract.ParseSettings(raw, nil)
	if len(warns) > 0 {
		msgs := make([]string, len(warns))
		for i, w := range warns {
			msgs[i] = fmt.Sprintf("%s: %s", paramName[w.Key], w.Reason)
		}
		slices.Sort(msgs)
		return contract.Settings{}, errorf(contract.APIBadArgument, "%s", strings.Join(msgs, "; "))
	}
	return over.Apply(s.opts.Settings), nil
}

// paramName is the API's name of a setting's key, for messages.
var paramName = map[string]string{
	"backend": "backend", "timeout": "timeout_s", "memory": "memory_mb", "recursionLimit": "recursion_limit",
	"maxOutputBytes": "max_output_bytes", "montyPath": "monty", "container.image": "image",
	"container.runtime": "runtime", "container.network": "network", "files.write": "files_write",
	"autoInstall": "auto_install", "indexUrl": "index_url", "findLinks": "find_links",
}

// Open implements contract.API.
func (s *server) Open(_ context.Context, a *contract.OpenArgs) (*contract.OpenResult, error) {
	set, err := s.settingsOf(map[string]any{
		"backend": string(a.Backend), "timeout": a.TimeoutS, "memory": a.MemoryMB, "recursionLimit": a.RecursionLimit,
		"maxOutputBytes": a.MaxOutputBytes, "montyPath": a.Monty, "container.image": a.Image,
		"container.runtime": string(a.Runtime), "container.network": string(a.Network), "files.write": string(a.FilesWrite),
		"autoInstall": string(a.AutoInstall), "indexUrl": a.IndexURL, "findLinks": a.FindLinks,
	})
	if err != nil {
		return nil, err
	}
	ws := a.Workspace
	if ws != "" {
		if ws, err = filepath.Abs(ws); err == nil {
			var st os.FileInfo
			if st, err = os.Stat(ws); err == nil && !st.IsDir() {
				err = fmt.Errorf("%s is not a directory", ws)
			}
		}
		if err != nil {
			return nil, errorf(contract.APIBadArgument, "workspace: %v", err)
		}
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errorf(contract.APIClosed, "the server is stopping")
	}
	b := &box{id: s.newID("s"), s: s, backend: set.Backend, write: set.Files.Write}
	s.mu.Unlock()
	if ws == "" {
		if ws, err = ownFolder(); err != nil {
			return nil, fmt.Errorf("a folder for the sandbox: %w", err)
		}
		b.own = ws
	}
	opts := sandbox.Options{
		Backend: set.Backend, Limits: kernel.LimitsOf(set), MontyBinary: set.MontyPath, Container: set.Container,
		Install: set.Install, Env: a.Env, Workspace: ws, FilesWrite: set.Files.Write,
		OnProgress: func(title, message string, percent int, done bool) {
			s.notify(contract.APIClientProgress, &contract.APIProgressParams{Sandbox: b.id, Title: title, Message: message, Percent: percent, Done: done})
		},
		OnWarning: func(w string) {
			s.notify(contract.APIClientWarning, &contract.APIWarningParams{Sandbox: b.id, Message: w})
		},
	}
	if len(a.Functions) > 0 {
		opts.Functions = make(map[string]kernel.HostFunc, len(a.Functions))
		for _, name := range a.Functions {
			opts.Functions[name] = s.hostFunc(b, name)
		}
	}
	sb, err := sandbox.New(opts)
	if err != nil {
		removeOwn(b.own, s.log)
		if errors.Is(err, monty.ErrNotFound) {
			return nil, errorf(contract.APIBackendUnavailable, "no Monty worker: %v (the %s backend needs one; the container backend does not)", err, set.Backend)
		}
		return nil, errorf(contract.APIBadArgument, "%v", err)
	}
	b.sb = sb
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		b.close()
		return nil, errorf(contract.APIClosed, "the server is stopping")
	}
	s.boxes[b.id] = b
	s.mu.Unlock()
	return &contract.OpenResult{Sandbox: b.id, Backend: set.Backend}, nil
}

// hostFunc is host function name of sandbox b: each call is a call request
// to the client, whose answer is the function's value or exception.
func (s *server) hostFunc(b *box, name string) kernel.HostFunc {
	return func(ctx context.Context, args []any, kwargs map[string]any) (any, error) {
		// The answer comes through the read loop: a run kept on it lets
		// it go first.
		if c := b.kept.Load(); c != nil {
			s.keeper.release(c)
		}
		p := &contract.CallParams{Sandbox: b.id, Function: name, Args: make([]jsontext.Value, len(args)), Kwargs: make(map[string]jsontext.Value, len(kwargs))}
		for i, v := range args {
			b, err := jsonval.Encode(v)
			if err != nil {
				return nil, sandbox.Raise("TypeError", fmt.Sprintf("argument %d of %s %v", i+1, name, err))
			}
			p.Args[i] = b
		}
		for k, v := range kwargs {
			b, err := jsonval.Encode(v)
			if err != nil {
				return nil, sandbox.Raise("TypeError", fmt.Sprintf("argument %s of %s %v", k, name, err))
			}
			p.Kwargs[k] = b
		}
		var res contract.CallResult
		if _, err := s.conn.Call(ctx, contract.APIClientCall, p, &res); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, sandbox.Raise("RuntimeError", fmt.Sprintf("the host function %s could not be called: %v", name, err))
		}
		if res.Error != nil {
			return nil, sandbox.Raise(res.Error.Type, res.Error.Message)
		}
		if len(res.Value) == 0 {
			return nil, nil
		}
		v, err := jsonval.Decode(res.Value)
		if err != nil {
			return nil, sandbox.Raise("TypeError", fmt.Sprintf("the host function %s returned %v", name, err))
		}
		return v, nil
	}
}

// Run implements contract.API.
func (s *server) Run(ctx context.Context, a *contract.RunArgs) (*contract.Execution, error) {
	b, err := s.box(a.Sandbox)
	if err != nil {
		return nil, err
	}
	if a.TimeoutS < 0 || a.TimeoutS > 86400 {
		return nil, errorf(contract.APIBadArgument, "timeout_s must be between 0 and 86400 seconds, got %v", float64(a.TimeoutS))
	}
	o := sandbox.RunOptions{Limits: kernel.Limits{Timeout: a.TimeoutS.Duration()}}
	if len(a.Inputs) > 0 {
		o.Inputs = make(map[string]any, len(a.Inputs))
		for k, raw := range a.Inputs {
			v, err := jsonval.Decode(raw)
			if err != nil {
				return nil, errorf(contract.APIBadArgument, "input %s: %v", k, err)
			}
			o.Inputs[k] = v
		}
	}
	if a.Stream {
		o.OnOutput = func(stream kernel.Stream, text string) {
			s.notify(contract.APIClientOutput, &contract.APIOutputParams{Sandbox: b.id, Stream: stream, Text: text})
		}
	}
	c, _ := ctx.Value(keptKey{}).(*kept)
	if !b.runMu.TryLock() {
		// Another run of the sandbox goes on: waiting for it must not hold
		// the read loop.
		if c != nil {
			s.keeper.release(c)
		}
		b.runMu.Lock()
	}
	defer b.runMu.Unlock()
	b.kept.Store(c)
	b.running.Store(true)
	r, err := b.sb.RunWith(ctx, a.Code, o)
	b.running.Store(false)
	b.kept.Store(nil)
	if err != nil {
		return nil, b.kernelError(err)
	}
	if r.Unavailable {
		// Auto's cell that needs a container none can start: the original
		// backyard's run raises then, and so does the container backend's.
		return nil, errorf(contract.APIBackendUnavailable, "%s", r.Error.EValue)
	}
	return notebook.CodeRecord(a.Code, r, false), nil
}

// kernelError is the API error of a kernel that could not do what was
// asked.
func (b *box) kernelError(err error) error {
	switch {
	case errors.Is(err, kernel.ErrClosed):
		return errorf(contract.APIClosed, "sandbox %s is closed", b.id)
	case errors.Is(err, kernel.ErrLimitFixed):
		return errorf(contract.APIBadArgument, "%v", err)
	case errors.Is(err, context.Canceled):
		return errorf(contract.APIClosed, "the server is stopping")
	}
	return errorf(contract.APIBackendUnavailable, "the %s backend cannot run: %v", b.backend, err)
}

// Interrupt implements contract.API.
func (s *server) Interrupt(_ context.Context, a *contract.SandboxArg) (*contract.InterruptResult, error) {
	b, err := s.box(a.Sandbox)
	if err != nil {
		return nil, err
	}
	running := b.running.Load()
	if err := b.sb.Kernel().Interrupt(); err != nil && !errors.Is(err, kernel.ErrClosed) {
		return nil, err
	}
	return &contract.InterruptResult{Interrupted: running}, nil
}

// Reset implements contract.API.
func (s *server) Reset(ctx context.Context, a *contract.SandboxArg) (*contract.KernelInfo, error) {
	b, err := s.box(a.Sandbox)
	if err != nil {
		return nil, err
	}
	if err := b.sb.Kernel().Restart(ctx); err != nil {
		return nil, b.kernelError(err)
	}
	info := b.sb.Kernel().Info()
	return &info, nil
}

// Info implements contract.API.
func (s *server) Info(_ context.Context, a *contract.SandboxArg) (*contract.KernelInfo, error) {
	b, err := s.box(a.Sandbox)
	if err != nil {
		return nil, err
	}
	info := b.sb.Kernel().Info()
	return &info, nil
}

// Variables implements contract.API.
func (s *server) Variables(ctx context.Context, a *contract.SandboxArg) (*contract.VariablesResult, error) {
	b, err := s.box(a.Sandbox)
	if err != nil {
		return nil, err
	}
	vars, err := b.sb.Kernel().Variables(ctx)
	if err != nil {
		return nil, b.kernelError(err)
	}
	if vars == nil {
		vars = []contract.Variable{}
	}
	return &contract.VariablesResult{Variables: vars}, nil
}

// Install implements contract.API. The program asked for the packages, so
// the install policy does not apply; what installs take is checked as
// everywhere (pypkg.CheckRequirements).
func (s *server) Install(ctx context.Context, a *contract.InstallArgs) (*contract.InstallResult, error) {
	b, err := s.box(a.Sandbox)
	if err != nil {
		return nil, err
	}
	if len(a.Packages) == 0 {
		return nil, errorf(contract.APIBadArgument, "packages is empty: name the PyPI packages to install")
	}
	if err := pypkg.CheckRequirements(a.Packages); err != nil {
		return nil, errorf(contract.APIBadArgument, "%v", err)
	}
	if b.backend == contract.BackendMonty {
		return nil, errorf(contract.APIBadArgument, "the monty backend has no packages: open the sandbox with backend \"auto\" or \"container\" to install them")
	}
	if err := b.sb.Install(ctx, a.Packages); err != nil {
		if errors.Is(err, kernel.ErrClosed) {
			return nil, b.kernelError(err)
		}
		return nil, fmt.Errorf("installing %s: %w", strings.Join(a.Packages, ", "), err)
	}
	return &contract.InstallResult{Installed: a.Packages}, nil
}

// Files implements contract.API.
func (s *server) Files(ctx context.Context, a *contract.SandboxArg) (*contract.FilesResult, error) {
	b, err := s.box(a.Sandbox)
	if err != nil {
		return nil, err
	}
	res := &contract.FilesResult{Files: []contract.FileEntry{}, Write: b.write}
	if fk, ok := b.sb.Kernel().(kernel.FileKeeper); ok {
		entries, err := fk.Files(ctx)
		if err != nil {
			return nil, b.kernelError(err)
		}
		if entries != nil {
			res.Files = entries
		}
	}
	return res, nil
}

// SaveFiles implements contract.API.
func (s *server) SaveFiles(ctx context.Context, a *contract.SaveFilesArgs) (*contract.SaveFilesResult, error) {
	b, err := s.box(a.Sandbox)
	if err != nil {
		return nil, err
	}
	fk, ok := b.sb.Kernel().(kernel.FileKeeper)
	if !ok {
		return nil, errorf(contract.APIBadArgument, "the %s backend keeps no files", b.backend)
	}
	saved, err := fk.SaveFiles(ctx, a.Paths)
	if saved == nil {
		saved = []string{}
	}
	if err != nil {
		return nil, errorf(contract.APIBadArgument, "saved %d of %d files: %v", len(saved), len(a.Paths), err)
	}
	return &contract.SaveFilesResult{Saved: saved}, nil
}

// Close implements contract.API.
func (s *server) Close(_ context.Context, a *contract.SandboxArg) (*contract.CloseResult, error) {
	s.mu.Lock()
	b := s.boxes[a.Sandbox]
	delete(s.boxes, a.Sandbox)
	s.mu.Unlock()
	if b == nil {
		return &contract.CloseResult{Closed: false}, nil
	}
	b.close()
	return &contract.CloseResult{Closed: true}, nil
}
