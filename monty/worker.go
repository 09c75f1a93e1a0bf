package monty

import (
	"bufio"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/backyard-ls/backyard-ls/files"
	"github.com/backyard-ls/backyard-ls/internal/proc"
	"github.com/backyard-ls/backyard-ls/monty/internal/pb"
)

// Limits bound one session. Zero fields mean the worker's defaults.
type Limits struct {
	// CellTime is the CPU budget of one feed (Monty counts only time spent
	// running bytecode, restarted at each feed).
	CellTime time.Duration
	// MemoryBytes caps the session's heap. Crossing it softly raises
	// MemoryError; crossing the allocator cap kills the worker (exit 65).
	MemoryBytes uint64
	// RecursionDepth caps Python call depth (RecursionError past it).
	RecursionDepth uint64
}

// Config starts a worker.
type Config struct {
	Binary     string // path of the monty executable
	ScriptName string // shown in type-check diagnostics; "main.py" if empty
	Limits     Limits
	// PrintFlushInterval batches Print events; 0 keeps the worker's default
	// (5 ms or about 8 KiB).
	PrintFlushInterval time.Duration
	// Cwd is the working directory of a new session (os.getcwd()); empty
	// is the worker's own, "/".
	Cwd string
	// FS serves the file-system OS calls; nil refuses them all (the
	// worker's PermissionError).
	FS *files.FS
	// Env is os.environ.
	Env map[string]string
	// BlockingReads: the worker's answers are read by a system call that
	// waits on its thread (proc.BlockingPipe), not parked on the runtime's
	// poller. For one cell at a time, whose answer comes in tens of
	// microseconds, that saves waking two threads per answer; a batch's
	// many pipelined workers leave it off, each would hold a thread.
	BlockingReads bool
	// TimeZone is the IANA name of the session's local time zone
	// (datetime's astimezone()); empty is UTC.
	TimeZone string
	// hostClock makes the worker ask the host for the time, the date,
	// random seeds and sleeps; typeCheck type-checks every feed; onOSCall
	// sees every OS call (tests of those calls); interruptGrace replaces
	// interruptGrace (negative: none).
	hostClock      bool
	typeCheck      bool
	onOSCall       func(*pb.OsCall)
	interruptGrace time.Duration
}

// Worker is one `monty subprocess` child holding one session. A Worker is
// not safe for concurrent use: callers serialize requests.
type Worker struct {
	cfg    Config
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	// stdoutPipe is closed by Close, once the process is reaped.
	stdoutPipe *os.File
	stderr     *tail
	wbuf       []byte
	rbuf       []byte
	exited     chan struct{} // closed once the process has been reaped
	crash      *CrashError   // set before exited is closed
	broken     error         // first transport or protocol failure; the worker is unusable after it

	// phase tells a cancelled feed's watcher whether the worker is running
	// code (it must be killed) or waiting on the host (the host loop
	// interrupts in-band). gen tells a late watcher that its feed is over.
	mu    sync.Mutex
	phase int
	gen   uint64

	// configured: Start's Configure was answered; a FatalError after it
	// breaks the worker (Start reads the one that refuses Configure).
	configured bool

	host    osHost
	cwdSent bool // the session's working directory was set
	// unknown counts events that carried fields this schema does not
	// declare (they are tolerated; tests check the pinned worker sends none).
	unknown int
}

const (
	phaseIdle = iota
	phaseRunning
	phaseHost
	// phaseHandled: the feed's cancellation was answered in-band with a
	// KeyboardInterrupt; the code runs on and is never killed for it.
	phaseHandled
)

func (w *Worker) setPhase(p int, newFeed bool) uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.phase = p
	if newFeed {
		w.gen++
	}
	return w.gen
}

// hostPhase sets the phase of a feed on the host's side, unless its
// cancellation was handled in-band already (the phase then stays
// phaseHandled: a late watcher must not kill the handler).
func (w *Worker) hostPhase(p int, handled bool) {
	if !handled {
		w.setPhase(p, false)
	}
}

// interruptGrace is how long code running when its feed is cancelled (an
// interrupt, a time limit) may take to reach the host, where the stop is a
// KeyboardInterrupt it can catch, before its worker is killed. A cell that
// sleeps in a loop spends a few bytecodes between sleeps; on a busy
// machine those may wait for a CPU well past the stop.
const interruptGrace = 250 * time.Millisecond

// stopRunning ends the cancelled feed gen: running code is killed unless
// it reaches the host within interruptGrace (Config.interruptGrace).
func (w *Worker) stopRunning(gen uint64) {
	grace := cmp.Or(w.cfg.interruptGrace, interruptGrace)
	if grace < 0 {
		w.killIfRunning(gen)
		return
	}
	time.AfterFunc(grace, func() { w.killIfRunning(gen) })
}

func (w *Worker) killIfRunning(gen uint64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gen == gen && w.phase == phaseRunning {
		w.Kill()
	}
}

// Start spawns a worker and configures its session.
func Start(ctx context.Context, cfg Config) (*Worker, error) {
	if cfg.ScriptName == "" {
		cfg.ScriptName = "main.py"
	}
	cmd := exec.Command(cfg.Binary, "subprocess")
	cmd.Env = []string{} // the sandbox reaches no host environment anyway
	proc.Prepare(cmd)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	// Our own pipe, not StdoutPipe: Wait closes that one as soon as the
	// process exits, losing the last frame a worker writes before it exits
	// (the FatalError that refuses a protocol version).
	pipe := os.Pipe
	if cfg.BlockingReads {
		pipe = proc.BlockingPipe
	}
	stdout, stdoutW, err := pipe()
	if err != nil {
		_ = stdin.Close()
		return nil, err
	}
	cmd.Stdout = stdoutW
	w := &Worker{cfg: cfg, cmd: cmd, stdin: stdin, stdoutPipe: stdout, stdout: bufio.NewReaderSize(stdout, 64<<10), stderr: &tail{max: 4096}, exited: make(chan struct{}),
		host: osHost{fs: cfg.FS, cwd: cfg.Cwd, env: cfg.Env, start: time.Now()}}
	cmd.Stderr = w.stderr
	err = cmd.Start()
	_ = stdoutW.Close()
	if err != nil {
		_ = stdout.Close()
		return nil, fmt.Errorf("start monty worker: %w", err)
	}
	if err := proc.Started(cmd); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = stdout.Close()
		return nil, fmt.Errorf("start monty worker: %w", err)
	}
	go w.reap()
	defer func() { // every way out but success kills the worker
		if !w.configured {
			w.Kill()
			_ = stdout.Close()
		}
	}()
	stop := context.AfterFunc(ctx, w.Kill)
	defer stop()
	ev, err := w.roundTrip(configure(cfg))
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return nil, err
	}
	if fe := ev.GetFatalError(); fe != nil {
		if strings.Contains(fe.Message, "protocol version") {
			return nil, &VersionError{Binary: cfg.Binary, Detail: fe.Message}
		}
		return nil, &ProtocolError{Msg: "worker refused Configure: " + fe.Message}
	}
	if ev.GetOk() == nil {
		return nil, unexpected("Configure", ev)
	}
	w.configured = true
	return w, nil
}

func configure(cfg Config) *pb.ParentRequest {
	lim := &pb.ResourceLimits{}
	if cfg.Limits.CellTime > 0 {
		v := uint64(cfg.Limits.CellTime.Microseconds())
		lim.MaxFeedDurationMicros = &v
	}
	if cfg.Limits.MemoryBytes > 0 {
		v := cfg.Limits.MemoryBytes
		lim.MaxMemoryBytes = &v
	}
	if cfg.Limits.RecursionDepth > 0 {
		v := cfg.Limits.RecursionDepth
		lim.MaxRecursionDepth = &v
	}
	// Sleeps are the worker's own kind, waited out by the host (Feed), with
	// no cap of the worker's (10 s by default): the cell's time limit
	// bounds them. process_time() is the session's execution time, as
	// CPython's is the process's CPU time (the default stays 0.0).
	noCap := uint64(math.MaxUint64)
	policy := &pb.OsPolicy{
		Sleep:       &pb.SleepMode{Mode: &pb.SleepMode_System{System: &pb.SystemSleep{MaxMicros: &noCap}}},
		ProcessTime: &pb.OsPolicy_PtElapsed{PtElapsed: &pb.Unit{}},
	}
	if cfg.hostClock {
		policy.Datetime = &pb.OsPolicy_DtCallHost{DtCallHost: &pb.Unit{}}
		policy.Sleep = &pb.SleepMode{Mode: &pb.SleepMode_CallHost{CallHost: &pb.Unit{}}}
		policy.RandomStart = &pb.OsPolicy_RandomCallHost{RandomCallHost: &pb.Unit{}}
	}
	if cfg.TimeZone != "" {
		policy.Timezone = &pb.SandboxTimeZone{Zone: &pb.SandboxTimeZone_Named{Named: cfg.TimeZone}}
	}
	c := &pb.Configure{ScriptName: cfg.ScriptName, Limits: lim, MontyVersion: RuntimeVersion, ProtocolVersion: ProtocolVersion, TypeCheck: cfg.typeCheck, OsPolicy: policy}
	if cfg.PrintFlushInterval > 0 {
		v := uint32(cfg.PrintFlushInterval.Milliseconds())
		c.PrintFlushIntervalMs = &v
	}
	return &pb.ParentRequest{Kind: &pb.ParentRequest_Configure{Configure: c}}
}

// Pid is the worker's process id.
func (w *Worker) Pid() int { return w.cmd.Process.Pid }

// Alive reports whether the worker can still take requests.
func (w *Worker) Alive() bool {
	select {
	case <-w.exited:
		return false
	default:
		return w.broken == nil
	}
}

// Kill stops the worker at once (SIGKILL). Safe to call at any time and
// from any goroutine.
func (w *Worker) Kill() {
	_ = w.cmd.Process.Kill()
}

// Close ends the session politely (Shutdown) and reaps the process; a
// worker that does not exit within a second is killed.
func (w *Worker) Close() error {
	if w.Alive() {
		if buf, err := appendFrame(w.wbuf[:0], &pb.ParentRequest{Kind: &pb.ParentRequest_Shutdown{Shutdown: &pb.Shutdown{}}}); err == nil {
			_, _ = w.stdin.Write(buf)
		}
	}
	_ = w.stdin.Close()
	select {
	case <-w.exited:
	case <-time.After(time.Second):
		w.Kill()
		<-w.exited
	}
	_ = w.stdoutPipe.Close()
	return nil
}

// Exited is closed once the worker process has ended.
func (w *Worker) Exited() <-chan struct{} { return w.exited }

// ExitError says how the worker process ended; nil while it runs.
func (w *Worker) ExitError() *CrashError {
	select {
	case <-w.exited:
		return w.crash
	default:
		return nil
	}
}

func (w *Worker) reap() {
	err := w.cmd.Wait()
	c := &CrashError{Stderr: w.stderr.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			c.ExitCode, c.Signal = -1, proc.SignalName(ws.Signal())
		} else {
			c.ExitCode = ee.ExitCode()
		}
	} else if err != nil {
		c.ExitCode = -1
		c.Signal = err.Error()
	}
	w.crash = c
	close(w.exited)
}

// send writes requests in one write: pipelined requests cost one wake-up.
func (w *Worker) send(reqs ...*pb.ParentRequest) error {
	if w.broken != nil {
		return w.broken
	}
	buf := w.wbuf[:0]
	for _, r := range reqs {
		var err error
		if buf, err = appendFrame(buf, r); err != nil {
			return err
		}
	}
	w.wbuf = buf
	if _, err := w.stdin.Write(buf); err != nil {
		return w.fail(err)
	}
	return nil
}

// keptReadBuffer bounds the read buffer kept between events.
const keptReadBuffer = 1 << 20

// next reads one event.
func (w *Worker) next() (*pb.ChildEvent, error) {
	if w.broken != nil {
		return nil, w.broken
	}
	ev, rbuf, unknown, err := readFrame(w.stdout, w.rbuf)
	w.rbuf = rbuf
	if cap(rbuf) > keptReadBuffer {
		w.rbuf = nil // one large event (a snapshot) must not pin its size
	}
	if err != nil {
		return nil, w.fail(err)
	}
	if unknown {
		w.unknown++
	}
	if fe := ev.GetFatalError(); fe != nil && w.configured {
		return nil, w.fail(&ProtocolError{Msg: "worker fatal error: " + fe.Message})
	}
	return ev, nil
}

// fail marks the worker unusable. A dead process is reported as a
// CrashError; anything else kills the worker and is returned as is.
func (w *Worker) fail(err error) error {
	var pe *ProtocolError
	if !errors.As(err, &pe) {
		// Transport error: the process is gone or going; report its exit.
		select {
		case <-w.exited:
		case <-time.After(2 * time.Second):
			w.Kill()
			<-w.exited
		}
		err = w.crash
	} else {
		w.Kill()
	}
	w.broken = err
	return err
}

func (w *Worker) roundTrip(req *pb.ParentRequest) (*pb.ChildEvent, error) {
	if err := w.send(req); err != nil {
		return nil, err
	}
	return w.next()
}

func unexpected(what string, ev *pb.ChildEvent) error {
	return &ProtocolError{Msg: fmt.Sprintf("unexpected %T in reply to %s", ev.Kind, what)}
}

// tail keeps the last max bytes written to it.
type tail struct {
	mu  sync.Mutex
	max int
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
