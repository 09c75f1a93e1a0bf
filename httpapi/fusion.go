package httpapi

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/container"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/sandbox"
)

// fusionLanguages are the languages SandboxFusion's API names (its
// Language literal): one of them that is not Python gets a SandboxError
// answer; anything else is not a valid request (422).
var fusionLanguages = []string{"python", "python2", "cpp", "nodejs", "go", "go_test", "java", "php", "csharp", "bash",
	"typescript", "sql", "rust", "cuda", "lua", "R", "perl", "D_ut", "ruby", "scala", "julia", "pytest", "junit",
	"kotlin_script", "jest", "verilog", "python_gpu", "lean", "swift", "racket", "gtest", "react"}

// runContext is the context of a run for request r: it ends when the
// client goes away or the server stops the runs still going.
func (s *Server) runContext(r *http.Request) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(r.Context())
	stop := context.AfterFunc(s.life, cancel)
	return ctx, func() { stop(); cancel() }
}

func (s *Server) runCode(w http.ResponseWriter, r *http.Request) {
	const endpoint = "run_code"
	start := time.Now()
	// Admitted before the body is read: the bodies in memory are bounded
	// by the runs.
	if !s.begin(w, r) {
		return
	}
	defer s.end()
	var req contract.RunCodeRequest
	req.SetDefaults()
	if !decode(w, r, &req, "code", "language") {
		return
	}
	if req.Language != "python" {
		if !slices.Contains(fusionLanguages, req.Language) {
			invalid(w, contract.ValidationError{Type: "literal_error", Loc: []any{"body", "language"}, Msg: "Input should be " + quoteList(fusionLanguages), Input: req.Language})
			return
		}
		writeJSON(w, http.StatusOK, &contract.RunCodeResponse{Status: contract.RunSandboxError, ExecutorPodName: s.podName(), Files: map[string]string{},
			Message: fmt.Sprintf("language %q is not supported here: backyard-ls runs Python only (language \"python\")", req.Language)})
		return
	}
	sn, bad := s.programOf(&req)
	if bad != nil {
		invalid(w, *bad)
		return
	}
	s.serveRun(w, r, endpoint, start, func(ctx context.Context) answer {
		res := s.lanes.run(ctx, sn)
		s.metrics.ran(endpoint, string(res.Backend), string(res.Status))
		resp := programResponse(res)
		resp.ExecutorPodName = s.podName()
		return answer{resp, string(res.Backend), resp.Status == contract.RunSandboxError}
	})
}

func (s *Server) podName() *string {
	if s.opts.PodName == "" {
		return nil
	}
	return &s.opts.PodName
}

// programOf is the snippet a /run_code request runs, or why the request
// is not valid.
func (s *Server) programOf(req *contract.RunCodeRequest) (kernel.Snippet, *contract.ValidationError) {
	sn := kernel.Snippet{Code: req.Code, Program: true, Fetch: req.FetchFiles}
	if req.RunTimeout <= 0 {
		return sn, &contract.ValidationError{Type: "greater_than", Loc: []any{"body", "run_timeout"}, Msg: "Input should be greater than 0", Input: req.RunTimeout}
	}
	sn.Timeout = min(seconds(req.RunTimeout), s.opts.MaxTimeout)
	if req.MemoryLimitMB > 0 {
		sn.MemoryBytes = uint64(req.MemoryLimitMB) << 20
	}
	if req.Stdin != nil && *req.Stdin != "" {
		sn.Stdin = req.Stdin
	}
	var bad *contract.ValidationError
	sn.Files, bad = decodeFiles(req.Files)
	if bad != nil {
		return sn, bad
	}
	if err := container.CheckPaths(req.FetchFiles); err != nil {
		return sn, &contract.ValidationError{Type: "value_error", Loc: []any{"body", "fetch_files"}, Msg: err.Error()}
	}
	return sn, nil
}

// decodeFiles decodes SandboxFusion's files (path → base64; a null
// content is skipped, as SandboxFusion does).
func decodeFiles(in map[string]*string) (map[string]string, *contract.ValidationError) {
	if len(in) == 0 {
		return nil, nil
	}
	out := make(map[string]string, len(in))
	for name, b64 := range in {
		if b64 == nil {
			continue
		}
		data, err := base64.StdEncoding.DecodeString(*b64)
		if err != nil {
			return nil, &contract.ValidationError{Type: "value_error", Loc: []any{"body", "files", name}, Msg: "the content is not base64: " + err.Error()}
		}
		out[name] = string(data)
	}
	if err := container.CheckFiles(out); err != nil {
		return nil, &contract.ValidationError{Type: "value_error", Loc: []any{"body", "files"}, Msg: err.Error()}
	}
	return out, nil
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

func quoteList(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = "'" + v + "'"
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// programResponse is SandboxFusion's answer for a program that ran as r
// says, as `python file.py` would have ended: an uncaught exception is
// its traceback on stderr and exit code 1, SystemExit its code.
func programResponse(r kernel.Result) *contract.RunCodeResponse {
	// One allocation for the answer and what it points to. No files is a
	// nil map, which marshals as {} as SandboxFusion's answer has it.
	a := &struct {
		resp           contract.RunCodeResponse
		run            contract.CommandRunResult
		took           float64
		stdout, stderr string
		code           int
	}{took: r.Duration.Seconds(), stdout: r.Stdout}
	resp, run := &a.resp, &a.run
	if len(r.Fetched) > 0 {
		resp.Files = make(map[string]string, len(r.Fetched))
	}
	for p, data := range r.Fetched {
		resp.Files[p] = base64.StdEncoding.EncodeToString([]byte(data))
	}
	*run = contract.CommandRunResult{Status: contract.CommandFinished, ExecutionTime: &a.took, Stdout: &a.stdout, Stderr: &a.stderr}
	stderr, code := r.Stderr, 0
	switch r.Status {
	case kernel.StatusOK:
	case kernel.StatusTimeout:
		run.Status = contract.CommandTimeLimitExceeded
	case kernel.StatusError:
		e := r.Error
		switch e.EName {
		case "BackendUnavailable", "BatchInputError", "KernelError":
			return sandboxError(resp, e.EValue)
		case "SystemExit":
			var msg string
			code, msg = exitStatus(e.EValue)
			if msg != "" {
				stderr += msg + "\n"
			}
		case "KeyboardInterrupt":
			stderr += traceback(e)
			code = -2 // CPython ends by SIGINT
		default:
			stderr += traceback(e)
			code = 1
		}
	case kernel.StatusCrashed:
		if r.Exit == nil {
			return sandboxError(resp, "the sandbox failed under the program: "+r.Error.EValue)
		}
		code = r.Exit.Code
		if r.Exit.Signal > 0 {
			code = -r.Exit.Signal
		}
	default: // interrupted: the server is stopping (a client that went away is not answered)
		return sandboxError(resp, "the run was stopped: the server is shutting down")
	}
	a.stderr, a.code = stderr, code
	resp.RunResult = run
	resp.Status = contract.RunFailed
	if run.Status == contract.CommandFinished {
		run.ReturnCode = &a.code
		if code == 0 {
			resp.Status = contract.RunSuccess
		}
	}
	return resp
}

func sandboxError(resp *contract.RunCodeResponse, msg string) *contract.RunCodeResponse {
	resp.Status, resp.Message = contract.RunSandboxError, msg
	return resp
}

// exitStatus is the exit status of SystemExit whose code's str() is
// value, as CPython exits: None (an empty str) is 0, an integer is itself
// modulo 256, True and False are 1 and 0, anything else is printed to
// stderr and exits with 1.
func exitStatus(value string) (code int, msg string) {
	switch value {
	case "", "None", "False":
		return 0, ""
	case "True":
		return 1, ""
	}
	if n, err := strconv.Atoi(value); err == nil {
		return n & 0xff, ""
	}
	return 1, value
}

func (s *Server) runJupyter(w http.ResponseWriter, r *http.Request) {
	const endpoint = "run_jupyter"
	start := time.Now()
	if !s.begin(w, r) {
		return
	}
	defer s.end()
	var req contract.RunJupyterRequest
	req.SetDefaults()
	if !decode(w, r, &req, "cells") {
		return
	}
	var bad *contract.ValidationError
	switch {
	case req.Kernel != "python3":
		bad = &contract.ValidationError{Type: "literal_error", Loc: []any{"body", "kernel"}, Msg: "Input should be 'python3'", Input: req.Kernel}
	case req.TotalTimeout <= 0:
		bad = &contract.ValidationError{Type: "greater_than", Loc: []any{"body", "total_timeout"}, Msg: "Input should be greater than 0", Input: req.TotalTimeout}
	case req.CellTimeout < 0:
		bad = &contract.ValidationError{Type: "greater_than_equal", Loc: []any{"body", "cell_timeout"}, Msg: "Input should be greater than or equal to 0", Input: req.CellTimeout}
	}
	var files map[string]string
	if bad == nil {
		in := make(map[string]*string, len(req.Files))
		for name, data := range req.Files {
			in[name] = &data
		}
		files, bad = decodeFiles(in)
	}
	if bad == nil {
		if err := container.CheckPaths(req.FetchFiles); err != nil {
			bad = &contract.ValidationError{Type: "value_error", Loc: []any{"body", "fetch_files"}, Msg: err.Error()}
		}
	}
	if bad != nil {
		invalid(w, *bad)
		return
	}
	s.serveRun(w, r, endpoint, start, func(ctx context.Context) answer {
		resp, backend := s.notebook(ctx, &req, files)
		resp.ExecutorPodName = s.podName()
		return answer{resp, backend, resp.Status == contract.RunSandboxError}
	})
}

// notebook runs a /run_jupyter request's cells in a fresh session whose
// working directory holds its files; it returns the answer and the
// backend of the last cell.
func (s *Server) notebook(ctx context.Context, req *contract.RunJupyterRequest, files map[string]string) (*contract.RunJupyterResponse, string) {
	start := time.Now()
	resp := &contract.RunJupyterResponse{Cells: []contract.CellRunResult{}, Files: map[string]string{}}
	fail := func(msg string) (*contract.RunJupyterResponse, string) {
		resp.Status, resp.Message = contract.RunSandboxError, msg
		stderr := msg
		resp.Driver = &contract.CommandRunResult{Status: contract.CommandError, Stderr: &stderr}
		return resp, ""
	}
	var dir string
	if len(files) > 0 || len(req.FetchFiles) > 0 {
		var err error
		if dir, err = os.MkdirTemp("", "backyard-jupyter-"); err != nil {
			return fail("no working directory for the session: " + err.Error())
		}
		defer os.RemoveAll(dir)
		if err := writeFiles(dir, files); err != nil {
			return fail("the files could not be written: " + err.Error())
		}
	}
	sb, err := sandbox.New(sandbox.Options{
		Backend: s.opts.Settings.Backend, Limits: s.limits(req.MemoryLimitMB), MontyBinary: s.opts.Settings.MontyPath,
		Container: s.opts.Settings.Container, Workspace: dir,
	})
	if err != nil {
		return fail("the session could not start: " + err.Error())
	}
	defer sb.Close()
	deadline := start.Add(min(seconds(req.TotalTimeout), s.opts.MaxTimeout))
	timedOut, backend := false, ""
	for _, code := range req.Cells {
		left := time.Until(deadline)
		if left <= 0 {
			timedOut = true
			break
		}
		limit := left
		if req.CellTimeout > 0 {
			limit = min(limit, seconds(req.CellTimeout))
		}
		r, err := sb.RunWith(ctx, code, sandbox.RunOptions{Limits: kernel.Limits{Timeout: limit}})
		if err != nil {
			return fail("the session stopped: " + err.Error())
		}
		backend = string(r.Backend)
		s.metrics.ran("run_jupyter", backend, string(r.Status))
		if r.Status == kernel.StatusInterrupted {
			return fail("the run was stopped: the server is shutting down")
		}
		resp.Cells = append(resp.Cells, cellResult(r))
		if r.Status == kernel.StatusTimeout && limit == left {
			timedOut = true
			break
		}
	}
	if len(req.FetchFiles) > 0 {
		resp.Files = fetch(ctx, sb.Kernel(), dir, req.FetchFiles, s.log)
	}
	took := time.Since(start).Seconds()
	empty := ""
	resp.Driver = &contract.CommandRunResult{Status: contract.CommandFinished, ExecutionTime: &took, Stdout: &empty, Stderr: &empty}
	resp.Status = contract.RunSuccess
	if timedOut {
		resp.Status = contract.RunFailed
		resp.Driver.Status = contract.CommandTimeLimitExceeded
	} else {
		zero := 0
		resp.Driver.ReturnCode = &zero
	}
	return resp, backend
}

// cellResult is a cell's output as a Jupyter kernel reports it.
func cellResult(r kernel.Result) contract.CellRunResult {
	c := contract.CellRunResult{Stdout: r.Stdout, Stderr: r.Stderr, Display: []map[string]string{}, Error: []contract.JupyterError{}}
	if v := r.Value; v != nil {
		bundle := map[string]string{"text/plain": v.Text}
		for mime, data := range v.MIME {
			bundle[mime] = data
		}
		c.Display = append(c.Display, bundle)
	}
	if e := r.Error; e != nil && r.Status != kernel.StatusOK {
		c.Error = append(c.Error, contract.JupyterError{EName: e.EName, EValue: e.EValue, Traceback: tracebackLines(e)})
	}
	return c
}

// writeFiles writes files (relative slash-separated paths, checked) under
// dir.
func writeFiles(dir string, files map[string]string) error {
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// fetch reads back the files paths of a session whose working directory
// is dir: those its cells wrote (kept in the kernel) are saved to dir
// first. A path that is not a regular file there is left out.
func fetch(ctx context.Context, k kernel.Kernel, dir string, paths []string, log *zap.Logger) map[string]string {
	out := map[string]string{}
	gone := map[string]bool{}
	if fk, ok := k.(kernel.FileKeeper); ok {
		changed, err := fk.Files(ctx)
		if err != nil {
			log.Warn("the session's files could not be listed", zap.Error(err))
		}
		var save []string
		for _, f := range changed {
			for _, p := range paths {
				if f.Path != filepath.Join(dir, filepath.FromSlash(p)) {
					continue
				}
				if f.State == contract.FileDeleted {
					gone[p] = true
				} else {
					save = append(save, f.Path)
				}
			}
		}
		if len(save) > 0 {
			if _, err := fk.SaveFiles(ctx, save); err != nil {
				log.Warn("the files to fetch could not be saved", zap.Error(err))
			}
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return out
	}
	defer root.Close()
	for _, p := range paths {
		if st, err := root.Lstat(filepath.FromSlash(p)); gone[p] || err != nil || !st.Mode().IsRegular() {
			continue
		}
		f, err := root.Open(filepath.FromSlash(p))
		if err != nil {
			continue
		}
		data, err := io.ReadAll(f)
		f.Close()
		if err == nil {
			out[p] = base64.StdEncoding.EncodeToString(data)
		}
	}
	return out
}
