package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"reflect"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/internal/bounded"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/notebook"
	"github.com/backyard-ls/backyard-ls/sandbox"
)

// batchFlags are the settings batch takes as flags (they mean what the
// backyard.* settings of the same name mean; --memory and --timeout bound
// each snippet).
var batchFlags = []string{"backend", "timeout", "memory", "recursion-limit", "max-output-bytes", "monty", "image", "runtime"}

// batchWindow bounds the lines read whose records are not written yet:
// ahead of the oldest snippet still running when the output is in input
// order (the reorder window), in flight when it is not. What the batch
// holds is bounded by it whatever the input's length.
const batchWindow = 1 << 16

func runBatch(args []string) int {
	ppid := os.Getppid() // first: the parent may exit at any time
	fs := flag.NewFlagSet("batch", flag.ContinueOnError)
	parallel := fs.Int("parallel", 2, "snippets running at once: Monty workers, and containers for the snippets that need one")
	preload := fs.String("preload", "", "comma-separated modules each container imports once before any snippet, e.g. numpy,pandas (modules the snippets keep importing are imported without it)")
	unordered := fs.Bool("unordered", false, "write each record as its snippet ends instead of in input order")
	withParent := fs.Bool("stop-with-parent", false, "stop the batch as Ctrl+C does when the process that started it exits (for a batch a program drives through pipes it may not close, e.g. a killed Ray actor's)")
	hashSeed := fs.String("hash-seed", "0", "PYTHONHASHSEED of the snippets that run in a container (0 to 4294967295, or random): a fixed one gives a set the same order on every lane")
	settings := contract.BindFlags(fs, batchFlags...)
	logFile := fs.String("log-file", "", "write logs to this file instead of stderr")
	logLevel := fs.String("log-level", "warn", "log level: debug, info, warn, error")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), `usage: backyard-ls batch [flags] < in.jsonl > out.jsonl

Runs independent Python snippets, one JSON object per input line
({"id": …, "code": "…", "inputs": […], "timeout_s": …, "files": {…}}), each
from an empty namespace, and writes one execution record per line with the
snippet's id. A bad line gets an error record. Progress goes to stderr when
it is a terminal. Ctrl+C stops the batch: running snippets are recorded as
interrupted and nothing is left running.
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return parseStatus(err)
	}
	if fs.NArg() != 0 || *parallel < 1 {
		fs.Usage()
		return 2
	}
	if err := sandbox.CheckHashSeed(*hashSeed); err != nil {
		fmt.Fprintln(os.Stderr, "backyard-ls batch: --hash-seed:", err)
		return 2
	}
	flags, err := settings()
	if err != nil {
		fmt.Fprintln(os.Stderr, "backyard-ls batch:", err)
		return 2
	}
	log, err := newLogger(*logFile, *logLevel)
	if err != nil {
		fmt.Fprintln(os.Stderr, "backyard-ls batch:", err)
		return 2
	}
	defer log.Sync()
	set := flags.Apply(contract.DefaultSettings())
	// A batch makes garbage at a steady rate and keeps little: collect
	// less often.
	debug.SetGCPercent(400)
	sb, err := sandbox.New(sandbox.Options{
		Backend: set.Backend, Limits: kernel.LimitsOf(set), MontyBinary: set.MontyPath, Container: set.Container,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "backyard-ls batch:", err)
		return 2
	}
	defer sb.Close()
	defer removeOwnContainers(log)

	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	// Ctrl+C stops the batch cleanly; a second one leaves at once (the
	// containers are then removed by the next server start).
	var interrupted atomic.Bool
	// A reader that goes away (| head) makes writes fail instead of
	// killing the process, so the batch still stops cleanly.
	keepOnBrokenPipe()
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt)
	defer signal.Stop(sigs)
	go func() {
		if _, ok := <-sigs; ok {
			interrupted.Store(true)
			stop()
		}
		if _, ok := <-sigs; ok {
			fmt.Fprintln(os.Stderr, "backyard-ls batch: stopped without cleaning up")
			os.Exit(130)
		}
	}()

	if *withParent {
		go watchParent(ctx, ppid, func() { interrupted.Store(true); stop() }, log)
	}

	b := newBatchRun(os.Stdin, os.Stdout, !*unordered, stop)
	if progressOnTerminal() {
		b.progress = newProgress(os.Stderr, os.Stdin)
	}
	modules := splitList(*preload)
	go b.read(ctx)
	err = sb.Batch(ctx, b.snippets(ctx), sandbox.BatchOptions{
		Parallelism: *parallel, Preload: modules, HashSeed: *hashSeed, OnResult: b.result,
		OnWarning: func(w string) { fmt.Fprintln(os.Stderr, "backyard-ls batch:", w) },
	})
	stop()
	b.finish()
	switch {
	case interrupted.Load():
		fmt.Fprintf(os.Stderr, "backyard-ls batch: stopped after %d records\n", b.written.Load())
		return 130
	case err != nil:
		fmt.Fprintln(os.Stderr, "backyard-ls batch:", err)
		return 2
	case b.inputErr() != nil:
		fmt.Fprintln(os.Stderr, "backyard-ls batch: reading the input:", b.inputErr())
		return 2
	case b.writeErr != nil:
		return 1 // stdout went away (a closed pipe): nothing to tell it
	}
	return 0
}

// progressOnTerminal reports whether stderr is a terminal.
func progressOnTerminal() bool {
	st, err := os.Stderr.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// line is one input line: its place in the output order (seq), its id,
// and either a snippet or the record that says why it is not one.
type line struct {
	seq int
	id  jsontext.Value
	sn  kernel.Snippet
	bad *contract.Execution
}

// placed is where a running snippet's record goes, its range and its code
// (the record's spans are counted in it); the window bounds how many are
// kept.
type placed struct {
	seq  int
	id   jsontext.Value
	rng  contract.Range
	code string
}

// batchRun reads the input, hands its snippets to the batch and writes
// their records, in input order unless unordered.
type batchRun struct {
	in       io.Reader
	ordered  bool
	stop     func()
	lines    chan line // snippets read, for the batch
	window   chan struct{}
	progress *progress

	metaMu sync.Mutex
	meta   map[int]placed // by batch index, until the snippet's result
	next   int            // the next batch index

	out      chan numbered
	wrote    chan struct{}
	written  atomic.Int64
	writeErr error // set by the writer before wrote closes

	errMu   sync.Mutex
	readErr error
}

func (b *batchRun) inputErr() error {
	b.errMu.Lock()
	defer b.errMu.Unlock()
	return b.readErr
}

type numbered struct {
	seq  int
	data []byte
	ok   bool
}

func newBatchRun(in io.Reader, out io.Writer, ordered bool, stop func()) *batchRun {
	b := &batchRun{in: in, ordered: ordered, stop: stop, lines: make(chan line, 256), window: make(chan struct{}, batchWindow),
		meta: map[int]placed{}, out: make(chan numbered, 1024), wrote: make(chan struct{})}
	go b.write(out)
	return b
}

// read parses the input line by line. It may still be blocked reading
// when the batch ends (a terminal); everything it read goes through the
// batch's iterator, so nothing it does comes after the batch.
func (b *batchRun) read(ctx context.Context) {
	defer close(b.lines)
	r := bounded.NewLines(b.in, contract.MaxRequestBytes)
	seq := 0
	for n := 1; ; n++ {
		text, over, err := r.Next()
		if err != nil {
			if err != io.EOF {
				b.errMu.Lock()
				b.readErr = err
				b.errMu.Unlock()
				b.stop()
			}
			return
		}
		size := len(text) + 1
		if over != nil {
			size = int(over.Bytes) + 1
		}
		if b.progress != nil {
			b.progress.read(size)
		}
		var l line
		switch {
		case over != nil:
			l = overLine(over, n)
		case len(bytes.TrimSpace(text)) == 0:
			continue
		default:
			l = parseLine(text, n)
		}
		l.seq = seq
		seq++
		select {
		case b.window <- struct{}{}:
		case <-ctx.Done():
			return
		}
		select {
		case b.lines <- l:
		case <-ctx.Done():
			return
		}
	}
}

// snippets yields the snippets read, remembering where each one's record
// goes, and writes the records of bad lines; it ends with the input or
// ctx.
func (b *batchRun) snippets(ctx context.Context) func(func(kernel.Snippet) bool) {
	return func(yield func(kernel.Snippet) bool) {
		for {
			var l line
			var ok bool
			select {
			case l, ok = <-b.lines:
			case <-ctx.Done():
				return
			}
			if !ok {
				return
			}
			if l.bad != nil {
				b.put(l.seq, l.id, l.bad)
				continue
			}
			b.metaMu.Lock()
			b.meta[b.next] = placed{seq: l.seq, id: l.id, rng: notebook.CodeRange(l.sn.Code), code: l.sn.Code}
			b.next++
			b.metaMu.Unlock()
			if !yield(l.sn) {
				return
			}
		}
	}
}

// result writes the record of batch snippet i.
func (b *batchRun) result(i int, r kernel.Result) {
	b.metaMu.Lock()
	l := b.meta[i]
	delete(b.meta, i)
	b.metaMu.Unlock()
	rec := notebook.Record("", l.rng, notebook.Placement{Code: l.code}, r)
	rec.ExecutionCount = 1 // a fresh kernel's first cell
	b.put(l.seq, l.id, rec)
}

func (b *batchRun) put(seq int, id jsontext.Value, rec *contract.Execution) {
	data := appendRecord(make([]byte, 0, 512), id, rec) // a trivial record is about 250 bytes
	b.out <- numbered{seq: seq, data: data, ok: rec.Status == contract.StatusOK}
}

// appendRecord appends rec as one JSON line whose "id" is id: the
// record's generated encoding, with its own (empty) id replaced.
func appendRecord(dst []byte, id jsontext.Value, rec *contract.Execution) []byte {
	rec.ID = ""
	dst = append(dst, `{"id":`...)
	dst = append(dst, id...)
	at := len(dst)
	dst = rec.AppendJSON(dst)
	const own = `{"id":""` // what AppendJSON wrote first, dropped
	if !bytes.HasPrefix(dst[at:], []byte(own)) {
		panic("contract.Execution no longer starts with its id: " + string(dst[at:min(len(dst), at+40)]))
	}
	n := copy(dst[at:], dst[at+len(own):])
	return append(dst[:at+n], '\n')
}

// write writes the records, in input order when ordered: a record waits
// for those of the lines before it. It flushes whenever nothing more is
// waiting, so records appear as they are made.
func (b *batchRun) write(w io.Writer) {
	defer close(b.wrote)
	bw := bufio.NewWriterSize(w, 1<<16)
	pending := map[int]numbered{}
	next := 0
	emit := func(n numbered) {
		if b.writeErr == nil {
			if _, err := bw.Write(n.data); err != nil {
				b.writeErr = err
				b.stop()
			}
		}
		b.written.Add(1)
		if b.progress != nil {
			b.progress.done(n.ok)
		}
		<-b.window
	}
	flush := func() {
		if b.writeErr == nil {
			if err := bw.Flush(); err != nil {
				b.writeErr = err
				b.stop()
			}
		}
	}
	for {
		var n numbered
		var ok bool
		select {
		case n, ok = <-b.out:
		default:
			flush()
			n, ok = <-b.out
		}
		if !ok {
			break
		}
		if !b.ordered {
			emit(n)
			continue
		}
		pending[n.seq] = n
		for {
			m, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			emit(m)
		}
	}
	// Stopped: what is left goes out in order, around the lines that never
	// ran.
	rest := make([]int, 0, len(pending))
	for seq := range pending {
		rest = append(rest, seq)
	}
	slices.Sort(rest)
	for _, seq := range rest {
		emit(pending[seq])
	}
	flush()
}

// finish waits until every record is written.
func (b *batchRun) finish() {
	close(b.out)
	<-b.wrote
	if b.progress != nil {
		b.progress.end()
	}
}

// parseLine reads one input line; n is its line number, the default id.
func parseLine(text []byte, n int) line {
	l := line{id: jsontext.Value(strconv.Itoa(n))}
	var in contract.BatchSnippet
	err := json.Unmarshal(text, &in, json.RejectUnknownMembers(true))
	if in.ID != nil {
		l.id = in.ID
	}
	switch {
	case err != nil:
		l.bad = inputError(fmt.Sprintf("line %d is not a snippet: %s", n, describeInputError(err)))
		if l.id = idOf(text, l.id); l.id == nil {
			l.id = jsontext.Value(strconv.Itoa(n))
		}
	case in.Code == "" && !hasCode(text):
		l.bad = inputError(fmt.Sprintf(`line %d has no "code"`, n))
	case in.TimeoutS < 0 || in.TimeoutS > 86400:
		l.bad = inputError(fmt.Sprintf("line %d: timeout_s must be between 0 and 86400 seconds, got %v", n, float64(in.TimeoutS)))
	default:
		l.sn = kernel.Snippet{Code: in.Code, Inputs: in.Inputs, Files: in.Files, Timeout: in.TimeoutS.Duration()}
	}
	return l
}

// overLine is the record of a line over the limit, read past.
func overLine(h *bounded.Head, n int) line {
	l := line{id: jsontext.Value(strconv.Itoa(n)), bad: inputError(fmt.Sprintf("line %d is %d bytes, over the limit of %d bytes: it was not run", n, h.Bytes, contract.MaxRequestBytes))}
	if h.ID != nil {
		l.id = jsontext.Value(h.ID)
	}
	return l
}

// describeInputError says what is wrong with a line in a person's words.
func describeInputError(err error) string {
	var se *json.SemanticError
	if errors.As(err, &se) && errors.Is(se.Err, json.ErrUnknownName) {
		return fmt.Sprintf("unknown field %q (a snippet has %s)", se.JSONPointer.LastToken(), strings.Join(snippetFields(), ", "))
	}
	return err.Error()
}

// snippetFields are the JSON names of contract.BatchSnippet's fields.
func snippetFields() []string {
	t := reflect.TypeFor[contract.BatchSnippet]()
	names := make([]string, t.NumField())
	for i := range names {
		names[i], _, _ = strings.Cut(t.Field(i).Tag.Get("json"), ",")
	}
	return names
}

// idOf is the id of a line that is an object but not a valid snippet, so
// that its error record can still be matched up; nil when there is none.
func idOf(text []byte, fallback jsontext.Value) jsontext.Value {
	var probe struct {
		ID jsontext.Value `json:"id"`
	}
	if json.Unmarshal(text, &probe) != nil || probe.ID == nil {
		return fallback
	}
	return probe.ID
}

// hasCode tells an empty "code" (a snippet that does nothing) from none.
func hasCode(text []byte) bool {
	var probe struct {
		Code *string `json:"code"`
	}
	return json.Unmarshal(text, &probe) == nil && probe.Code != nil
}

func inputError(msg string) *contract.Execution {
	return &contract.Execution{Status: contract.StatusError, ExecutionCount: 1,
		Error: &contract.ExecutionError{EName: "BatchInputError", EValue: msg, Traceback: []contract.Frame{}}}
}

// progress draws a one-line progress bar: records written, rate, ETA
// (when the input is a file of known size), failures.
type progress struct {
	w          io.Writer
	total      int64 // input bytes, 0 when unknown
	readBytes  atomic.Int64
	count      atomic.Int64
	failed     atomic.Int64
	start      time.Time
	stopOnce   sync.Once
	stopTicker chan struct{}
	ended      chan struct{}
}

func newProgress(w io.Writer, in *os.File) *progress {
	p := &progress{w: w, start: time.Now(), stopTicker: make(chan struct{}), ended: make(chan struct{})}
	if st, err := in.Stat(); err == nil && st.Mode().IsRegular() {
		p.total = st.Size()
	}
	go func() {
		defer close(p.ended)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.draw(false)
			case <-p.stopTicker:
				p.draw(true)
				return
			}
		}
	}()
	return p
}

func (p *progress) read(n int) { p.readBytes.Add(int64(n)) }

func (p *progress) done(ok bool) {
	p.count.Add(1)
	if !ok {
		p.failed.Add(1)
	}
}

func (p *progress) end() {
	p.stopOnce.Do(func() { close(p.stopTicker) })
	<-p.ended
}

func (p *progress) draw(final bool) {
	n, failed := p.count.Load(), p.failed.Load()
	el := time.Since(p.start).Seconds()
	rate := 0.0
	if el > 0 {
		rate = float64(n) / el
	}
	bar := ""
	eta := ""
	if p.total > 0 {
		frac := min(float64(p.readBytes.Load())/float64(p.total), 1)
		width := 24
		filled := int(frac * float64(width))
		bar = "[" + strings.Repeat("=", filled) + strings.Repeat(" ", width-filled) + "] "
		if frac > 0 && !final {
			left := time.Duration(el*(1-frac)/frac) * time.Second
			eta = " · ETA " + left.Round(time.Second).String()
		}
	}
	end := "\r"
	if final {
		end = "\n"
	}
	fmt.Fprintf(p.w, "\r\x1b[K%s%d done · %.0f/s%s · %d failed%s", bar, n, rate, eta, failed, end)
}
