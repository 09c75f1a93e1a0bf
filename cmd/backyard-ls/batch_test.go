package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/backyard-ls/backyard-ls/container/containertest"
)

type batchRecord struct {
	ID             json.RawMessage `json:"id"`
	ExecutionCount int             `json:"executionCount"`
	Status         string          `json:"status"`
	Stdout         string          `json:"stdout"`
	Result         *struct {
		Text string `json:"text"`
	} `json:"result"`
	Error *struct {
		EName     string `json:"ename"`
		EValue    string `json:"evalue"`
		Traceback []struct {
			Line int `json:"line"`
		} `json:"traceback"`
	} `json:"error"`
	Backend string `json:"backend"`
	Runtime string `json:"runtime"`
	Range   struct {
		End struct {
			Line      int `json:"line"`
			Character int `json:"character"`
		} `json:"end"`
	} `json:"range"`
}

// batch runs `backyard-ls batch args...` on input and parses its output
// lines, failing on any line that is not a record.
func batch(t *testing.T, input string, args ...string) ([]batchRecord, string, int) {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"batch"}, args...)...)
	cmd.Stdin = strings.NewReader(input)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return parseRecords(t, o.String()), e.String(), code
}

func parseRecords(t *testing.T, out string) []batchRecord {
	t.Helper()
	var recs []batchRecord
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if l == "" {
			continue
		}
		var r batchRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("output line is not a record: %v: %s", err, l)
		}
		recs = append(recs, r)
	}
	return recs
}

// Records come back in input order with the snippet's id (any JSON value,
// the line number by default); a bad line is an error record in its place
// and the batch goes on; each snippet starts from nothing.
func TestBatchMontyLines(t *testing.T) {
	input := strings.Join([]string{
		`{"id": "a", "code": "x = 6\nx * 7"}`,
		`{"id": 2, "code": "x"}`,
		`not json`,
		``,
		`{"code": "print('no id')"}`,
		`{"id": {"k": [1, 2.50]}, "code": "def f(n):\n    return 1 / n\nf(0)"}`,
		`{"id": "typo", "cod": "1"}`,
		`{"id": "nocode"}`,
		`{"id": "slow", "code": "while True:\n    pass", "timeout_s": 0.2}`,
		`{"id": "empty", "code": ""}`,
	}, "\n") + "\n"
	recs, stderr, code := batch(t, input, "--backend", "monty")
	if code != 0 || stderr != "" {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	ids := make([]string, len(recs))
	for i, r := range recs {
		ids[i] = string(r.ID)
		if r.ExecutionCount != 1 {
			t.Fatalf("%s: count %d", r.ID, r.ExecutionCount)
		}
	}
	if got := strings.Join(ids, " "); got != `"a" 2 3 5 {"k": [1, 2.50]} "typo" "nocode" "slow" "empty"` {
		t.Fatalf("ids %s", got)
	}
	if r := recs[0]; r.Status != "ok" || r.Result.Text != "42" || r.Backend != "monty" || r.Range.End.Line != 1 || r.Range.End.Character != 5 {
		t.Fatalf("%+v", r)
	}
	if r := recs[1]; r.Status != "error" || r.Error.EName != "NameError" {
		t.Fatalf("snippets share nothing: %+v", r)
	}
	if r := recs[2]; r.Status != "error" || r.Error.EName != "BatchInputError" || !strings.Contains(r.Error.EValue, "line 3") {
		t.Fatalf("%+v", r.Error)
	}
	if r := recs[3]; r.Stdout != "no id\n" {
		t.Fatalf("%+v", r)
	}
	if r := recs[4]; r.Error.EName != "ZeroDivisionError" || len(r.Error.Traceback) != 2 || r.Error.Traceback[0].Line != 2 || r.Error.Traceback[1].Line != 1 {
		t.Fatalf("traceback lines are the snippet's, from 0: %+v", r.Error)
	}
	if r := recs[5]; r.Error.EName != "BatchInputError" || !strings.Contains(r.Error.EValue, `unknown field "cod"`) {
		t.Fatalf("%+v", r.Error)
	}
	if r := recs[6]; r.Error.EName != "BatchInputError" || !strings.Contains(r.Error.EValue, `no "code"`) {
		t.Fatalf("%+v", r.Error)
	}
	if r := recs[7]; r.Status != "timeout" {
		t.Fatalf("%+v", r)
	}
	if r := recs[8]; r.Status != "ok" || r.Result != nil {
		t.Fatalf("%+v", r)
	}
}

// --unordered writes each record as its snippet ends.
func TestBatchUnordered(t *testing.T) {
	input := `{"id": "slow", "code": "import time\ntime.sleep(1)"}` + "\n"
	for i := range 10 {
		input += fmt.Sprintf(`{"id": %d, "code": "%d"}`+"\n", i, i)
	}
	recs, _, code := batch(t, input, "--backend", "monty", "--unordered")
	if code != 0 || len(recs) != 11 || string(recs[10].ID) != `"slow"` {
		t.Fatalf("exit %d, %d records, last %s", code, len(recs), recs[len(recs)-1].ID)
	}
	recs, _, _ = batch(t, input, "--backend", "monty")
	if string(recs[0].ID) != `"slow"` {
		t.Fatalf("in input order, the slow one comes first: %s", recs[0].ID)
	}
}

func TestBatchUsageErrors(t *testing.T) {
	if _, stderr, code := batch(t, "", "--backend", "nope"); code != 2 || !strings.Contains(stderr, "--backend") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if _, stderr, code := batch(t, "", "extra-arg"); code != 2 || !strings.Contains(stderr, "usage: backyard-ls batch") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// A container batch that cannot start says why, before reading.
	_, stderr, code := batch(t, `{"code": "1"}`+"\n", "--backend", "container", "--image", "backyard-python:no-such-tag", "--preload", "numpy")
	if code != 2 || !strings.Contains(stderr, "no-such-tag") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

// The container backend with numpy preloaded, on runc and runsc; a
// snippet that crashes harms no other.
func TestBatchContainer(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine")
	}
	var input strings.Builder
	for i := range 20 {
		fmt.Fprintf(&input, `{"id": %d, "code": "import numpy as np; print(np.arange(%d).sum())"}`+"\n", i, i)
		if i == 5 {
			input.WriteString(`{"id": "crash", "code": "import os\nos._exit(4)"}` + "\n")
		}
	}
	for _, rt := range []string{"runc", "runsc"} {
		t.Run(rt, func(t *testing.T) {
			recs, stderr, code := batch(t, input.String(), "--backend", "container", "--image", containertest.Image(), "--runtime", rt, "--preload", "numpy", "--parallel", "2")
			if code != 0 || len(recs) != 21 {
				t.Fatalf("exit %d, %d records: %s", code, len(recs), stderr)
			}
			n := 0
			for _, r := range recs {
				if string(r.ID) == `"crash"` {
					if r.Status != "crashed" {
						t.Fatalf("%+v", r)
					}
					continue
				}
				if want := strconv.Itoa(n*(n-1)/2) + "\n"; r.Status != "ok" || r.Stdout != want || r.Runtime != rt || string(r.ID) != strconv.Itoa(n) {
					t.Fatalf("%s: %+v", r.ID, r)
				}
				n++
			}
		})
	}
}

// Ctrl+C stops the batch: the records written are whole, the snippets
// running are recorded as interrupted, the exit status is 130 and no
// container of the process is left.
func TestBatchInterrupt(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine")
	}
	input := snippetLines(500, func(i int) string {
		if i%2 == 1 {
			return "import numpy\nimport time\ntime.sleep(0.3)"
		}
		return "import time\ntime.sleep(0.3)"
	})
	in := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(in, []byte(input), 0o644)
	f, _ := os.Open(in)
	defer f.Close()
	cmd := exec.Command(binary, "batch", "--image", containertest.Image(), "--runtime", "runc")
	cmd.Stdin = f
	var o, e bytes.Buffer
	cmd.Stderr = &e
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Ctrl+C once the first record is out, so the batch is under way (a
	// fixed 3 s could end before a busy machine started it).
	lines := bufio.NewReader(stdout)
	first, _ := lines.ReadString('\n')
	o.WriteString(first)
	cmd.Process.Signal(syscall.SIGINT)
	io.Copy(&o, lines)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Fatalf("%v: %s", err, e.String())
	}
	recs := parseRecords(t, o.String())
	interrupted := 0
	for _, r := range recs {
		switch r.Status {
		case "ok":
		case "interrupted":
			interrupted++
		default:
			t.Fatalf("%+v", r)
		}
	}
	if len(recs) == 0 || len(recs) == 500 || interrupted == 0 {
		t.Fatalf("%d records, %d interrupted", len(recs), interrupted)
	}
	out, _ := exec.Command("docker", "ps", "-aq", "--filter", "label=dev.backyard-ls.pid="+strconv.Itoa(cmd.Process.Pid)).Output()
	if ids := strings.Fields(string(out)); len(ids) > 0 {
		t.Fatalf("containers left: %v", ids)
	}
}

// The progress bar is drawn on stderr only when it is a terminal.
func TestBatchProgressOnlyOnATerminal(t *testing.T) {
	input := strings.Repeat(`{"code": "1"}`+"\n", 50)
	if _, stderr, _ := batch(t, input, "--backend", "monty"); stderr != "" {
		t.Fatalf("stderr not a terminal: %q", stderr)
	}
	in := filepath.Join(t.TempDir(), "in.jsonl")
	os.WriteFile(in, []byte(input), 0o644)
	// Python's pty gives the command a terminal (the records go to it too);
	// the input is a file, so the bar knows how far it is.
	script := `import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.dup2(os.open(sys.argv[2], os.O_RDONLY), 0)
    os.execv(sys.argv[1], [sys.argv[1], "batch", "--backend", "monty"])
out = b""
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
sys.stdout.write(out.decode("utf-8", "replace"))
`
	term := exec.Command("python3", "-c", script, binary, in)
	got, err := term.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), "50 done") || !strings.Contains(string(got), "0 failed") || !strings.Contains(string(got), "[========================]") {
		t.Fatalf("%q", got)
	}
}

// snippetLines is n input lines, snippet i with id i and code(i).
func snippetLines(n int, code func(i int) string) string {
	var b strings.Builder
	for i := range n {
		line, _ := json.Marshal(map[string]any{"id": i, "code": code(i)})
		b.Write(append(line, '\n'))
	}
	return b.String()
}

// A reader that goes away (| head -1) stops the batch as Ctrl+C does:
// exit status 1, no container left.
func TestBatchReaderGoesAway(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine")
	}
	cmd := exec.Command(binary, "batch", "--image", containertest.Image(), "--runtime", "runc")
	cmd.Stdin = strings.NewReader(snippetLines(2000, func(i int) string { return fmt.Sprintf("import numpy\n%d", i) }))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var e bytes.Buffer
	cmd.Stderr = &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first := make([]byte, 1)
	if _, err := out.Read(first); err != nil {
		t.Fatal(err)
	}
	out.Close()
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("%v: %s", err, e.String())
	}
	left, _ := exec.Command("docker", "ps", "-aq", "--filter", "label=dev.backyard-ls.pid="+strconv.Itoa(cmd.Process.Pid)).Output()
	if ids := strings.Fields(string(left)); len(ids) > 0 {
		t.Fatalf("containers left: %v", ids)
	}
}

// Batch snippets see the server's time zone and a kernel's environment on
// every lane, as a notebook's cells do.
func TestBatchTimeZoneAndEnvironment(t *testing.T) {
	t.Setenv("TZ", "Asia/Kolkata")
	input := `{"id": "tz", "code": "import datetime, os\nstr(datetime.datetime(2024, 1, 15, 12, tzinfo=datetime.timezone.utc).astimezone().utcoffset()), os.environ.get('LANG')"}` + "\n"
	lanes := [][]string{{"--backend", "monty"}}
	if !testing.Short() {
		lanes = append(lanes, []string{"--backend", "container", "--image", containertest.Image(), "--runtime", "runc"})
	}
	for _, args := range lanes {
		recs, stderr, code := batch(t, input, args...)
		if code != 0 || len(recs) != 1 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
		if r := recs[0]; r.Status != "ok" || r.Result == nil || r.Result.Text != "('5:30:00', 'C.UTF-8')" {
			t.Fatalf("%v: %+v %+v %+v", args, r, r.Result, r.Error)
		}
	}
}
