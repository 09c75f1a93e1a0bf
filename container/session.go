package container

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types"
	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/pkg/stdcopy"
	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/internal/cgroup"
)

// Session is one running kernel container: a long-lived container whose
// driver keeps the Python namespace between cells. Exec and Variables must
// not be called concurrently (the kernel serializes them); Interrupt, Kill
// and Close may be called from any goroutine.
type Session struct {
	e       *Engine
	id      string
	cfg     Config
	runtime Runtime
	imageID string
	python  string
	log     *zap.Logger
	plan    *filePlan // how the container got the workspace

	conn   types.HijackedResponse
	wmu    sync.Mutex // guards writes to conn
	nextID atomic.Uint64

	// events carries the driver's frames in order; the reader closes it when
	// the attach stream ends, after setting streamErr.
	events    chan message
	ended     chan struct{} // closed with events
	streamErr error
	// key starts every frame of a keyed program (the kernel driver);
	// foreign is the first frame that was not its runtime's, after which
	// the container is killed.
	key     []byte
	foreign *ChannelError
	stderr  tail      // the container's own stderr: the driver's fatal errors
	stash   []message // output that arrived during a Variables call

	// running is the id of the exec request the driver runs, 0 between
	// cells: the reader sends output that comes between cells to onIdle
	// (SetIdleOutput) as it comes.
	running atomic.Uint64
	idleMu  sync.Mutex
	onIdle  func(stream, text string)

	killed atomic.Bool // Kill was called: an exit is ours, not a crash
	// oom follows the container's memory cgroup on this host (nil when it
	// cannot be), once oomReady is closed.
	oom       *cgroup.Watch
	oomReady  chan struct{}
	closeOnce sync.Once
	exitOnce  sync.Once
	exit      ExitInfo
}

var containerSeq atomic.Uint64

// Start creates and starts a kernel container on e and waits until its driver
// is ready. It pulls the image first when it is missing (see Config.Pull).
// Errors: *UnreachableError when the engine does not answer,
// *ImageMissingError, or a message saying why the container did not start.
func (e *Engine) Start(ctx context.Context, cfg Config) (*Session, error) {
	return e.start(ctx, cfg, program{command: driverCommand, protocol: ProtocolVersion, files: true, keyed: true})
}

// program is what a container runs: its command for the interpreter, the
// environment it adds and the protocol its ready frame must name.
type program struct {
	command  func(python string) []string
	env      []string
	protocol int
	// files: it serves the workspace (the plan's copies and base); a
	// fork server gets its snippets' files with each snippet instead.
	files bool
	// keyed: the program runs the user's code in its own process, which
	// can reach the channel's descriptors: the host's first frame is a key
	// that starts every frame the program writes. (A fork server's
	// children have no descriptor of its channel.)
	keyed bool
}

func (e *Engine) start(ctx context.Context, cfg Config, prog program) (s *Session, err error) {
	cfg = cfg.WithDefaults()
	info, err := e.Info(ctx)
	if err != nil {
		return nil, err
	}
	rt, err := chooseRuntime(info, string(cfg.Runtime))
	if err != nil {
		return nil, err
	}
	imageID, err := e.EnsureImage(ctx, cfg.Image, cfg.Pull, cfg.OnProgress)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.StartTimeout)
	defer cancel()
	t0 := time.Now()
	if cfg.Packages {
		// Created here, not implicitly by the mount, so that it carries its
		// label (and can be found and removed by it).
		if err := e.ensurePackagesVolume(ctx, cfg.Image); err != nil {
			return nil, err
		}
	}
	if !prog.files {
		cfg.Rules, cfg.MountWorkspace, cfg.Workspace = nil, false, ""
	}
	plan, err := planFiles(cfg, rt.Name)
	if err != nil {
		return nil, fmt.Errorf("read the workspace: %w", err)
	}
	sp := buildSpec(cfg, rt.engine, ownerLabels(), plan)
	sp.config.Cmd = prog.command(cfg.Python)
	sp.config.Env = append(sp.config.Env, prog.env...)
	name := fmt.Sprintf("backyard-%s-%d", InstanceID()[:8], containerSeq.Add(1))
	// The create is not cancelled with ctx: the engine may create the
	// container after the client gave up, once the server's exit clean-up
	// looked for it. Done, it has an ID that the clean-up below removes.
	cctx, ccancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.StartTimeout)
	created, err := e.cli.ContainerCreate(cctx, sp.config, sp.host, nil, nil, name)
	ccancel()
	if err == nil && ctx.Err() != nil {
		rctx, rcancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer rcancel()
		if rerr := e.Remove(rctx, created.ID); rerr != nil {
			cfg.Logger.Warn("kernel container left behind", zap.String("container", shortID(created.ID)), zap.Error(rerr))
		}
		return nil, fmt.Errorf("start kernel container: %w", context.Cause(ctx))
	}
	if err != nil {
		if cerrdefs.IsNotFound(err) {
			e.forgetImage(cfg.Image)
		}
		return nil, fmt.Errorf("create kernel container: %w", e.wrap(err))
	}
	s = &Session{
		e: e, id: created.ID, cfg: cfg, runtime: rt, imageID: imageID, plan: plan,
		log:    cfg.Logger.With(zap.String("container", shortID(created.ID)), zap.String("runtime", rt.Name)),
		events: make(chan message, 256),
		ended:  make(chan struct{}),
	}
	if prog.keyed {
		s.key = make([]byte, keyBytes)
		rand.Read(s.key)
	}
	defer func(s *Session) {
		if err != nil {
			s.Close()
		}
	}(s)
	s.conn, err = e.cli.ContainerAttach(ctx, s.id, container.AttachOptions{Stream: true, Stdin: true, Stdout: true, Stderr: true})
	if err != nil {
		close(s.events)
		close(s.ended)
		return nil, fmt.Errorf("attach to kernel container: %w", e.wrap(err))
	}
	go s.read()
	tAttached := time.Now()
	if err := e.cli.ContainerStart(ctx, s.id, container.StartOptions{}); err != nil {
		return nil, fmt.Errorf("start kernel container (image %s, runtime %s): %w", cfg.Image, rt.Name, e.wrap(err))
	}
	if prog.keyed {
		if err := s.send(message{T: msgKey, Key: hex.EncodeToString(s.key)}); err != nil {
			return nil, err
		}
	}
	tStarted := time.Now()
	// Alongside the driver's start: the cgroup must be followed before a
	// cell runs.
	ready := make(chan struct{})
	s.oomReady = ready
	go func(s *Session) {
		defer close(ready)
		s.watchOOM(ctx)
	}(s)
	defer func() { <-ready }() // s is nil once start fails
	select {
	case m, ok := <-s.events:
		if !ok {
			x := s.Exit(context.Background())
			return nil, fmt.Errorf("the kernel container stopped before its driver was ready: %s", x.Describe())
		}
		if m.T != msgReady {
			return nil, fmt.Errorf("the kernel driver sent %q before it was ready", m.T)
		}
		if m.Protocol != prog.protocol {
			return nil, fmt.Errorf("the kernel driver speaks protocol %d, want %d", m.Protocol, prog.protocol)
		}
		s.python = m.Python
	case <-ctx.Done():
		return nil, fmt.Errorf("the kernel container did not start within %s: %w", cfg.StartTimeout, context.Cause(ctx))
	}
	tReady := time.Now()
	if prog.files {
		if err := s.loadFiles(ctx, plan); err != nil {
			return nil, fmt.Errorf("copy the workspace into the kernel container: %w", err)
		}
	}
	s.log.Debug("kernel container ready", zap.String("python", s.python),
		zap.Duration("create+attach", tAttached.Sub(t0)), zap.Duration("start", tStarted.Sub(tAttached)),
		zap.Duration("driver", tReady.Sub(tStarted)), zap.Duration("files", time.Since(tReady)), zap.Int64("file bytes", plan.bytes))
	return s, nil
}

func (e *Engine) forgetImage(ref string) {
	e.mu.Lock()
	delete(e.images, ref)
	e.mu.Unlock()
}

// ID is the container ID.
func (s *Session) ID() string { return s.id }

// Runtime is the runtime the container runs on.
func (s *Session) Runtime() Runtime { return s.runtime }

// Python is the version of the container's python3, e.g. "3.11.2".
func (s *Session) Python() string { return s.python }

// ImageID is the ID of the image the container runs.
func (s *Session) ImageID() string { return s.imageID }

// read demultiplexes the attach stream until it ends: the driver's frames
// into s.events, the container's own stderr into s.stderr. A frame its
// runtime did not write ends the container: the stream cannot be followed
// after it.
func (s *Session) read() {
	dec := &frameDecoder{key: s.key, emit: func(body []byte) error {
		var m message
		if err := json.Unmarshal(body, &m); err != nil {
			return &ChannelError{Why: "a frame that is not a message: " + err.Error()}
		}
		switch {
		case m.T == msgOut && s.running.Load() == 0:
			if f := s.idleOutput(); f != nil {
				if m.D != "" {
					f(m.S, m.D)
				}
				return nil
			}
		case m.T == msgDone:
			s.running.CompareAndSwap(m.ID, 0) // what comes after it is between cells
		}
		s.events <- m
		return nil
	}}
	_, err := stdcopy.StdCopy(dec, &s.stderr, s.conn.Reader)
	if err != nil {
		s.log.Debug("attach stream ended", zap.Error(err))
	}
	var foreign *ChannelError
	if errors.As(err, &foreign) {
		s.foreign = foreign
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		if err := s.e.cli.ContainerKill(ctx, s.id, "SIGKILL"); err != nil && !cerrdefs.IsNotFound(err) && !cerrdefs.IsConflict(err) {
			s.log.Debug("kill kernel container", zap.Error(err))
		}
		cancel()
		s.conn.Close()
	}
	s.streamErr = err
	close(s.events)
	close(s.ended)
}

// SetIdleOutput makes f get the output the driver sends while no cell
// runs (threads a cell started), as it comes, on the session's reader
// goroutine; without it (nil) that output goes to the next cell.
func (s *Session) SetIdleOutput(f func(stream, text string)) {
	s.idleMu.Lock()
	s.onIdle = f
	s.idleMu.Unlock()
}

func (s *Session) idleOutput() func(stream, text string) {
	s.idleMu.Lock()
	defer s.idleMu.Unlock()
	return s.onIdle
}

// Alive reports whether the container's attach stream is still open (the
// driver runs).
func (s *Session) Alive() bool {
	select {
	case <-s.ended:
		return false
	default:
		return true
	}
}

// Ended is closed when the container's attach stream ends: the driver
// exited or the container was killed.
func (s *Session) Ended() <-chan struct{} { return s.ended }

// Killed reports whether Kill or Close stopped the container (so its end
// is the host's doing, not a crash).
func (s *Session) Killed() bool { return s.killed.Load() }

func (s *Session) send(m any) error {
	buf, err := appendFrame(nil, m)
	if err != nil {
		return err
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if _, err := s.conn.Conn.Write(buf); err != nil {
		return fmt.Errorf("send to kernel driver: %w", err)
	}
	return nil
}

// ExecRequest is one cell.
type ExecRequest struct {
	Code string
	// Source is the cell as written, when Code is its transformation of
	// IPython's syntax (%history shows it).
	Source string
	// Silent: no output, no value, no figures (errors are still reported).
	Silent bool
	// MaxOutput is the host's cap per stream in bytes; the driver stops
	// sending a little after it (default 1 MiB). The value's text is cut at
	// it too, and MIME data over it is dropped.
	MaxOutput int
	// Input, when set, answers the cell's input() (and getpass): the line,
	// else nil and whether the cell gets KeyboardInterrupt (the question
	// was dismissed) rather than EOFError. ctx ends when the cell stops
	// waiting. Without Input, input() raises EOFError at once.
	Input func(ctx context.Context, prompt string, password bool) (line *string, interrupt bool)
	// Inputs are bound as globals before the cell runs (JSON-compatible
	// values, see package jsonval); Functions are bound as host functions,
	// which OnCall runs on the host when the cell calls them (its ctx is
	// Exec's).
	Inputs    map[string]any
	Functions []string
	OnCall    HostFunc
	// OnSent, when set, is called once the cell is sent to the driver.
	OnSent func()
	// OnDisplay, when set, gets the cell's display outputs as they come:
	// a new one, an update of those with its id, or a clear.
	OnDisplay func(Display)
	// OnCut, when set, is told of the bytes of a stream the driver
	// dropped past MaxOutput: it sends the stream's last MaxOutput
	// characters when the cell ends, after them.
	OnCut func(stream string, bytes int)
	// File is __file__ of the cells (the document's path); empty leaves it
	// as it is.
	File string
	// Count is the cell's execution count, for IPython's history (In, Out,
	// _N, _iN); 0 keeps none.
	Count int
	// LastError, when set, becomes the shell's last exception before the
	// cell runs (kernel.Request.LastError): %tb shows this record.
	LastError *PyError
	// History are earlier cells of the document that ran elsewhere (an
	// auto kernel's Monty), filed in IPython's history before the cell.
	History []HistoryEntry
}

// HistoryEntry is a cell filed in IPython's history: In[Count] is Code,
// _iN and %history's raw history Source; with Value, Out[Count] is the
// value of the global _N, when it is bound.
type HistoryEntry struct {
	Count  int    `json:"count"`
	Code   string `json:"code"`
	Source string `json:"source"`
	Value  bool   `json:"value,omitempty"`
}

// Reply is how a cell ended in the driver.
type Reply struct {
	OK    bool     // no exception
	Value *Value   // the trailing expression's value, nil if none
	Error *PyError // the exception, when !OK
	// Files the cell created, changed or deleted under the roots.
	Files []contract.FileChange
}

// Display is a display output of a cell (display(), update_display(),
// clear_output()).
type Display struct {
	Data     map[string]string
	Metadata json.RawMessage // a JSON object, or empty
	ID       string
	Update   bool // replaces the data of the outputs with ID
	Clear    bool // drops the outputs so far (Data is empty)
	// Shown after the cell's value (figures flushed at its end).
	AfterResult bool
}

// InputError is returned by Exec for inputs that cannot cross; nothing was
// sent.
type InputError struct{ Err error }

func (e *InputError) Error() string { return "input " + e.Err.Error() }

func (e *InputError) Unwrap() error { return e.Err }

// ErrEnded is wrapped by errors of a session whose container has stopped or
// whose engine went away; Exit says which.
var ErrEnded = errors.New("the kernel container has stopped")

// Exec runs one cell. onOutput (may be nil) gets the cell's output in order
// as it arrives, on the calling goroutine. It returns when the driver
// reports the end of the cell; an error wrapping ErrEnded when the
// container stops first (see Exit), or ctx's error when ctx ends first (the
// session is then in an unknown state: Kill it).
func (s *Session) Exec(ctx context.Context, req ExecRequest, onOutput func(stream, text string)) (Reply, error) {
	if req.MaxOutput <= 0 {
		req.MaxOutput = 1 << 20
	}
	id := s.nextID.Add(1)
	for _, m := range s.stash {
		deliver(m, onOutput)
	}
	s.stash = nil
	inputs, err := encodeInputs(req.Inputs)
	if err != nil {
		return Reply{}, &InputError{Err: err}
	}
	s.running.Store(id)
	if err := s.send(message{T: msgExec, ID: id, Code: req.Code, Silent: req.Silent, MaxOutput: req.MaxOutput, Stdin: req.Input != nil,
		Inputs: inputs, Functions: req.Functions, File: req.File, Count: req.Count, Source: req.Source, LastError: req.LastError, History: req.History}); err != nil {
		s.conn.Close() // the stream is broken: let the reader end
	} else if req.OnSent != nil {
		req.OnSent()
	}
	var answers chan message
	stopAsking := func() {}
	defer func() { stopAsking() }()
	for {
		select {
		case a := <-answers:
			if err := s.send(a); err != nil {
				s.conn.Close()
			}
		case m, ok := <-s.events:
			if !ok {
				return Reply{}, fmt.Errorf("%w: %s", ErrEnded, s.Exit(context.Background()).Describe())
			}
			switch {
			case m.T == msgOut:
				if m.Cut > 0 && req.OnCut != nil {
					req.OnCut(m.S, m.Cut)
				}
				deliver(m, onOutput)
			case m.T == msgDisplay && m.ID == id:
				if req.OnDisplay != nil {
					req.OnDisplay(Display{Data: m.MIME, Metadata: m.Meta, ID: m.DisplayID, Update: m.Update, Clear: m.Clear, AfterResult: m.AfterResult})
				}
			case m.T == msgInput && req.Input != nil:
				// Asked on another goroutine: the cell can still be
				// interrupted, and then its done frame ends the question.
				stopAsking()
				if answers == nil {
					answers = make(chan message, 1)
				}
				ictx, cancel := context.WithCancel(ctx)
				stopAsking = cancel
				go func(q message) {
					line, interrupt := req.Input(ictx, q.Prompt, q.Password)
					a := message{T: msgInput, ID: q.ID, Line: line}
					if line == nil && interrupt {
						a.Raise = "KeyboardInterrupt"
					}
					select {
					case answers <- a:
					case <-ictx.Done():
					}
				}(m)
			case m.T == msgCall && m.ID == id:
				// Answered on its own goroutine: output keeps flowing, and a
				// host function that does not return cannot stop the
				// container from being killed.
				go func() {
					if err := s.answer(ctx, m, req.OnCall); err != nil {
						s.conn.Close()
					}
				}()
			case m.T == msgDone && m.ID == id:
				r := Reply{OK: m.Status == "ok", Value: m.Value, Error: m.Error}
				for _, f := range m.Files {
					r.Files = append(r.Files, contract.FileChange{Path: f.Path, State: contract.FileState(f.State)})
				}
				return r, nil
			case m.T == msgError:
				return Reply{}, fmt.Errorf("kernel driver: %s", m.Message)
			default:
				s.log.Debug("unexpected driver frame", zap.String("t", m.T), zap.Uint64("id", m.ID))
			}
		case <-ctx.Done():
			return Reply{}, context.Cause(ctx)
		}
	}
}

func deliver(m message, onOutput func(string, string)) {
	if onOutput != nil && m.D != "" {
		onOutput(m.S, m.D)
	}
}

// Variables lists the names bound in the namespace, modules and dunder
// names left out, reprs cut to about maxRepr characters.
func (s *Session) Variables(ctx context.Context, maxRepr int) ([]Variable, error) {
	m, err := s.request(ctx, message{T: msgVars, MaxRepr: maxRepr}, msgVars)
	if err != nil {
		return nil, err
	}
	return m.Vars, nil
}

// Interrupt sends SIGINT to the driver: the running cell gets a
// KeyboardInterrupt and the namespace stays. Between cells it does nothing.
func (s *Session) Interrupt(ctx context.Context) error {
	if err := s.e.cli.ContainerKill(ctx, s.id, "SIGINT"); err != nil {
		return fmt.Errorf("interrupt kernel: %w", s.e.wrap(err))
	}
	return nil
}

// Kill stops the container at once (SIGKILL) and closes the attach stream,
// so a pending Exec returns. The container stays until Close.
func (s *Session) Kill() {
	s.killed.Store(true)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.e.cli.ContainerKill(ctx, s.id, "SIGKILL"); err != nil && !cerrdefs.IsNotFound(err) && !cerrdefs.IsConflict(err) {
		s.log.Debug("kill kernel container", zap.Error(err))
	}
	if s.conn.Conn != nil {
		s.conn.Close()
	}
}

// Close kills the container and removes it. It returns an error when the
// engine could not remove it (it is then left for ReapOrphans).
func (s *Session) Close() error {
	var err error
	s.closeOnce.Do(func() {
		s.killed.Store(true)
		t0 := time.Now()
		defer func() { s.log.Debug("kernel container removed", zap.Duration("took", time.Since(t0))) }()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		// Remove first: closing the stream first makes the driver exit, and
		// Podman then fails a forced removal racing with that exit.
		err = s.e.Remove(ctx, s.id)
		if err != nil && cerrdefs.IsConflict(err) {
			time.Sleep(200 * time.Millisecond)
			err = s.e.Remove(ctx, s.id)
		}
		if s.conn.Conn != nil {
			s.conn.Close()
		}
		if s.oomReady != nil {
			<-s.oomReady
			s.oom.Close()
		}
		if err != nil {
			err = fmt.Errorf("remove kernel container %s: %w", shortID(s.id), err)
			s.log.Warn("kernel container left behind", zap.Error(err))
		}
	})
	return err
}

func isNotFound(err error) bool {
	return err != nil && (cerrdefs.IsNotFound(err) || cerrdefs.IsConflict(err) && strings.Contains(err.Error(), "already in progress"))
}

// tail keeps the last tailBytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 4096

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
