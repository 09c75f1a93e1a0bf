// Package notebook is the notebook model of backyard-ls, shared by the
// language server, the MCP server and the command line: the open documents
// and their text (UTF-16 positions, cells), one kernel per document with a
// FIFO queue of runs and control steps, the record of each run
// (contract.Execution) and the results each cell shows, followed across
// edits. It knows nothing of the protocol that carries them: what happens is
// told to Events.
//
// Lock order: Notebook.mu, then session.mu, then Document.mu (pubMu before
// Document.mu). No lock is held while calling Events or a kernel, except
// that Events.Output is called under the output stream's own lock.
package notebook

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"

	"go.uber.org/zap"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
)

// Events is what a notebook tells its client, in the order things happen.
// Methods are called from the goroutines that run cells and must not block
// for long.
type Events interface {
	// Output carries a running execution's output, batched.
	Output(p *contract.OutputParams)
	// ExecutionState tells an execution's way (queued, running, done).
	ExecutionState(p *contract.ExecutionStateParams)
	// KernelState tells a document's kernel state.
	KernelState(p *contract.KernelStateParams)
	// Diagnostics says that a document's diagnostics may have changed;
	// called before the done state of the execution that changed them.
	Diagnostics(d *Document)
	// Refresh says that code lenses (and inlay hints, when hints) changed.
	Refresh(hints bool)
	// StartProgress begins work-done progress (a kernel start, an image
	// pull, an install); cancel runs when the person cancels it. It returns
	// nil when the client shows no progress.
	StartProgress(title string, cancel func()) Progress
	// Message is a fact for the person: info, a warning or an error.
	Message(level Level, text string)
	// ConfirmInstall asks whether to install packages a cell of uri needs.
	ConfirmInstall(ctx context.Context, uri string, packages []string) bool
}

// InputEvents are Events that can ask the person for a line when a cell
// calls input(). Without them, or when AnswersInput is false, the kernel
// is told its front end gives no stdin (IPython's kernel then raises
// StdinNotImplementedError).
type InputEvents interface {
	// AnswersInput says whether Input can ask anyone now.
	AnswersInput() bool
	// Input asks for one line and returns it; kernel.ErrInputDismissed when
	// the person dismissed the question, another error when the client
	// cannot answer. ctx ends when the cell stops waiting (an interrupt).
	Input(ctx context.Context, p *contract.InputParams) (string, error)
}

// DisplayEvents are Events that show display outputs as a cell shows them
// (backyard/display); without them the done record carries them alone.
type DisplayEvents interface {
	Display(p *contract.DisplayParams)
}

// EditEvents are Events that can edit a document in the editor: a cell
// whose run set its next input with replace (IPython's %load) gets that
// text in place of its code, as Jupyter's front end replaces the cell.
// Without them the record's display carries the text alone.
type EditEvents interface {
	// Edit applies edits (non-overlapping, each against the text of
	// version) to document uri; the editor refuses them when the document
	// has another version by then.
	Edit(uri string, version int32, edits []TextEdit)
}

// TextEdit replaces a range of a document's text.
type TextEdit struct {
	Range contract.Range
	Text  string
}

// ShowEvents are Events that can open a file in the editor: a run whose
// kernel sent an edit_magic payload (IPython's %edit; a kernel starts no
// editor) has the file it names opened, as Jupyter's front end opens it.
type ShowEvents interface {
	// Show opens file (absolute, within the folders the kernel of
	// document uri sees) at its 1-based line (0: none).
	Show(uri, file string, line int)
}

// FlushEvents are Events that hold what they are told for a while, to
// send it together: Flush sends what they hold now. An execution flushes
// once its code is on its way to the kernel, so that its queued and
// running states travel while it runs.
type FlushEvents interface {
	Flush()
}

// Progress is one work-done progress; a nil Progress does nothing.
type Progress interface {
	Report(message string, percent int)
	End(message string)
}

// Level of a message.
type Level int

const (
	Info Level = iota
	Warning
	Error
)

// Options configure a notebook.
type Options struct {
	// Config is the configuration of a new kernel of document uri (the
	// current settings, the workspace, the logger); the notebook sets the
	// backend a document chose and the callbacks. Called when a kernel is
	// created.
	Config func(uri string) kernel.Config
	// Settle, when set, is called before a kernel is created, off the
	// protocol's read loop; it may wait for settings still on their way.
	Settle func()
	// NewKernel creates a kernel (default kernels.New).
	NewKernel func(kernel.Config) (kernel.Kernel, error)
	// Warm has containers started ahead for kernels of a configuration
	// (the warm pool; default kernels.Warm with the default NewKernel,
	// none otherwise); called when a document opens.
	Warm func(kernel.Config)
	// SharedWarm: other notebooks of the process use the warm pool too, so
	// Close leaves it; the owner calls CloseWarm when they are all gone.
	SharedWarm bool
	Events     Events
	Logger     *zap.Logger
}

// Notebook is a set of open documents, each with its kernel.
type Notebook struct {
	opts    Options
	log     *zap.Logger
	ev      Events
	execSeq atomic.Int64
	warmed  atomic.Bool    // a document asked the warm pool for containers
	warming sync.WaitGroup // warm's goroutines; Close waits for them before closing the pool
	// life ends with CloseAll: runs and kernel control steps derive from it.
	life context.Context
	end  context.CancelFunc

	mu      sync.RWMutex
	docs    map[string]*Document
	closing sync.WaitGroup // documents whose kernels are closing
}

// ErrNotOpen is returned for a uri that is not open.
var ErrNotOpen = errors.New("no open document has that uri")

// New returns an empty notebook.
func New(opts Options) *Notebook {
	if opts.Logger == nil {
		opts.Logger = zap.NewNop()
	}
	if opts.NewKernel == nil {
		opts.NewKernel = newKernel
		if opts.Warm == nil {
			opts.Warm = warmKernels
		}
	}
	nb := &Notebook{opts: opts, log: opts.Logger, ev: opts.Events, docs: map[string]*Document{}}
	nb.life, nb.end = context.WithCancel(context.Background())
	return nb
}

// Open adds a document or, for a uri already open, replaces its text and
// keeps its kernel. It schedules a pre-warm when the document will need
// the container.
func (nb *Notebook) Open(uri string, version int32, text string) *Document {
	nb.mu.Lock()
	d := nb.docs[uri]
	if d == nil {
		d = &Document{uri: uri, nb: nb}
		d.sess = newSession(nb, d)
		nb.docs[uri] = d
	}
	nb.mu.Unlock()
	d.mu.Lock()
	d.version, d.text, d.snap = version, text, nil
	d.mu.Unlock()
	d.sess.schedulePrewarm()
	nb.warm(d.sess)
	return d
}

// warm has the warm pool hold a container for the document's kernels, so
// that its first move to the container takes a ready one. It waits for
// the settings off the caller's goroutine.
func (nb *Notebook) warm(s *session) {
	if nb.opts.Warm == nil {
		return
	}
	nb.warmed.Store(true)
	nb.warming.Go(func() {
		if nb.opts.Settle != nil {
			nb.opts.Settle()
		}
		if nb.life.Err() == nil {
			nb.opts.Warm(s.config())
		}
	})
}

// Change applies edits to an open document in order. When an edit alters
// the code of a cell with a result, its status turns stale and its
// diagnostic goes (Events.Diagnostics and Refresh are told).
func (nb *Notebook) Change(uri string, version int32, changes []Change) error {
	d := nb.Document(uri)
	if d == nil {
		return ErrNotOpen
	}
	d.mu.Lock()
	text, err := applyChanges(d.text, changes)
	if err != nil {
		d.mu.Unlock()
		return err
	}
	d.version, d.text, d.snap = version, text, nil
	changed := false
	if !d.results.empty() {
		changed = d.results.remap(d.snapshotLocked())
	}
	d.mu.Unlock()
	if changed {
		nb.ev.Diagnostics(d)
		nb.ev.Refresh(true)
	}
	d.sess.schedulePrewarm()
	return nil
}

// Close closes a document: its queued runs are dropped, its kernel is
// closed in the background (CloseAll waits for it).
func (nb *Notebook) Close(uri string) {
	nb.mu.Lock()
	d := nb.docs[uri]
	delete(nb.docs, uri)
	if d != nil {
		nb.closing.Add(1)
	}
	nb.mu.Unlock()
	if d == nil {
		return
	}
	hadDiags := d.markClosed()
	go func() {
		defer nb.closing.Done()
		d.sess.close()
		if hadDiags {
			nb.ev.Diagnostics(d) // now none
		}
	}()
}

// Document returns the open document uri, or nil.
func (nb *Notebook) Document(uri string) *Document {
	nb.mu.RLock()
	defer nb.mu.RUnlock()
	return nb.docs[uri]
}

// CloseAll closes every document's kernel, in parallel, and waits until
// no backend process of the notebook is left.
func (nb *Notebook) CloseAll() {
	nb.mu.Lock()
	all := make([]*Document, 0, len(nb.docs))
	for _, d := range nb.docs {
		all = append(all, d)
	}
	clear(nb.docs)
	nb.mu.Unlock()
	var wg sync.WaitGroup
	ownPool := nb.warmed.Load() && !nb.opts.SharedWarm
	if ownPool {
		// Beside the kernels: a start under way in the pool is cancelled
		// at once, not waited for after them.
		wg.Go(CloseWarm)
	}
	for _, d := range all {
		wg.Go(func() {
			d.markClosed()
			d.sess.close()
		})
	}
	wg.Wait()
	nb.closing.Wait()
	nb.end()
	nb.warming.Wait() // a late warm must not refill the pool closed below
	if nb.warmed.Load() && !nb.opts.SharedWarm {
		CloseWarm() // what a late warm or a closing kernel's take refilled
	}
}

func (nb *Notebook) nextExecutionID() string {
	return "e" + strconv.FormatInt(nb.execSeq.Add(1), 10)
}

// markClosed marks the document closed and reports whether it had
// diagnostics published.
func (d *Document) markClosed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	return d.diagKey != ""
}

// URI is the document's uri.
func (d *Document) URI() string { return d.uri }

// Version is the version of the document's text.
func (d *Document) Version() int32 {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.version
}
