package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var binary string

// TestMain builds the real binary once; the tests run it as a user would.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "backyard-cli")
	if err != nil {
		panic(err)
	}
	binary = filepath.Join(dir, "backyard-ls")
	if out, err := exec.Command("go", "build", "-o", binary, ".").CombinedOutput(); err != nil {
		os.Stderr.Write(out)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func backyard(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return backyardAs(t, "", nil, "", args...)
}

// backyardAs runs the binary in dir with env and stdin; it fails the test
// when the run takes more than a few minutes (a probe that blocked).
func backyardAs(t *testing.T, dir string, env []string, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(3*time.Minute, func() { cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Wait()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), code
}

func notebookFile(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "nb.py")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const sample = "# %%\nx = 20\nprint('hi')\n# %% second\nx + 22\n# %%\ndef f(n):\n    return 10 / n\nf(0)\n# %%\nx\n"

func TestRunJSON(t *testing.T) {
	out, stderr, code := backyard(t, "run", "--backend", "monty", "--json", notebookFile(t, sample))
	if code != 1 {
		t.Fatalf("exit %d (a failed cell means 1); stderr %s", code, stderr)
	}
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatalf("not JSON Lines: %q", line)
		}
		recs = append(recs, r)
	}
	if len(recs) != 4 {
		t.Fatalf("%d records: a failing cell must not stop the rest", len(recs))
	}
	if recs[0]["stdout"] != "hi\n" || recs[0]["status"] != "ok" || recs[0]["backend"] != "monty" {
		t.Errorf("cell 1: %v", recs[0])
	}
	if r := recs[1]["result"].(map[string]any); r["text"] != "42" {
		t.Errorf("cell 2: %v", recs[1])
	}
	e := recs[2]["error"].(map[string]any)
	tb := e["traceback"].([]any)
	inner := tb[len(tb)-1].(map[string]any)
	// Document lines are 0-based: `return 10 / n` is line 7 of the file.
	if recs[2]["status"] != "error" || e["ename"] != "ZeroDivisionError" || inner["line"] != 7.0 || inner["text"] != "return 10 / n" {
		t.Errorf("cell 3: %v", recs[2])
	}
	rng := recs[1]["range"].(map[string]any)["start"].(map[string]any)
	if rng["line"] != 4.0 {
		t.Errorf("range of cell 2: %v", recs[1]["range"])
	}
	for _, k := range []string{"id", "executionCount", "stderr", "runtime", "durationMs"} {
		if _, ok := recs[3][k]; !ok {
			t.Errorf("field %s missing: %v", k, recs[3])
		}
	}
}

func TestRunNotebookOutput(t *testing.T) {
	out, _, code := backyard(t, "run", "--backend", "monty", notebookFile(t, sample))
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"In [1]", "hi\n", "In [2] second", "Out[2]: 42", "ZeroDivisionError: division by zero", "line 8, in f", "Out[4]: 20"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, _, code := backyard(t, "run", "--backend", "monty", notebookFile(t, "# %%\n1 + 1\n")); code != 0 {
		t.Errorf("a clean notebook exits %d", code)
	}
}

func TestRunBadInput(t *testing.T) {
	if _, stderr, code := backyard(t, "run", "/no/such/file.py"); code != 2 || !strings.Contains(stderr, "no such file") {
		t.Errorf("missing file: %d %s", code, stderr)
	}
	if _, stderr, code := backyard(t, "run", "--backend", "docker", notebookFile(t, "1")); code != 2 || !strings.Contains(stderr, `--backend: must be "auto", "monty" or "container"`) {
		t.Errorf("bad backend: %d %s", code, stderr)
	}
	if _, stderr, code := backyard(t, "run", "--backend", "monty", "--monty", "/no/monty", notebookFile(t, "1")); code != 2 || !strings.Contains(stderr, "monty") {
		t.Errorf("bad worker path: %d %s", code, stderr)
	}
	if _, _, code := backyard(t, "frobnicate"); code != 2 {
		t.Errorf("unknown command: %d", code)
	}
}

func TestDoctorAndVersion(t *testing.T) {
	out, _, code := backyard(t, "doctor")
	if code != 0 || !strings.Contains(out, "test cell 1 + 1 = 2") || !strings.Contains(out, "Container engine") {
		t.Errorf("doctor %d:\n%s", code, out)
	}
	out, _, code = backyard(t, "doctor", "--monty", "/no/such/monty")
	if code != 1 || !strings.Contains(out, "make setup") {
		t.Errorf("doctor without a worker %d:\n%s", code, out)
	}
	out, _, _ = backyard(t, "version")
	if !strings.Contains(out, "monty protocol 5") || !strings.Contains(out, "1.4.0") {
		t.Errorf("version:\n%s", out)
	}
}

// Logs never go to stdout, which carries the notebook (or LSP frames).
func TestLogsStayOffStdout(t *testing.T) {
	out, stderr, _ := backyard(t, "run", "--backend", "monty", "--log-level", "debug", "--json", notebookFile(t, "# %%\n1\n"))
	if strings.Count(out, "\n") != 1 || !strings.HasPrefix(out, "{") {
		t.Fatalf("stdout %q (stderr %q)", out, stderr)
	}
}

func TestHelpExitsZero(t *testing.T) {
	for _, cmd := range []string{"run", "doctor", "serve", "api"} {
		if _, stderr, code := backyard(t, cmd, "-h"); code != 0 || !strings.Contains(stderr, "-") {
			t.Errorf("%s -h: exit %d, %q", cmd, code, stderr)
		}
	}
}

// Without a Monty worker anywhere, run says so once, before any cell's
// header, and exits 2 (it could not run), not 1 (a cell failed).
func TestRunWithoutWorker(t *testing.T) {
	home := t.TempDir()
	nb := notebookFile(t, "# %%\nx = 1\nx\n")
	env := []string{"PATH=" + filepath.Join(home, "bin"), "HOME=" + home, "XDG_DATA_HOME=" + filepath.Join(home, "data")}
	for _, args := range [][]string{{"run", "--workspace", filepath.Dir(nb), nb}, {"run", "--json", "--workspace", filepath.Dir(nb), nb}} {
		out, stderr, code := backyardAs(t, home, env, "", args...)
		if code != 2 || out != "" {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", args, code, out, stderr)
		}
		want := "backyard-ls run: cannot create an auto kernel for nb.py: monty worker binary not found"
		if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, want) {
			t.Fatalf("%v: stderr %q, want one line starting %q", args, stderr, want)
		}
	}
}

// Offline (an image no registry can give), the cells Monty raised in are
// shown as Monty ran them; that no container could confirm them is said
// once, under the first.
func TestRunOfflineSaysNoContainerOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine")
	}
	nb := notebookFile(t, "# %%\nx = {}\n# %%\nx['a']\n# %%\n1 / 0\n# %%\nint('z')\n")
	out, stderr, code := backyard(t, "run", "--image", "registry.invalid/backyard-ls/missing:1", "--workspace", filepath.Dir(nb), nb)
	if code != 1 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"KeyError: 'a'", "ZeroDivisionError: division by zero", "ValueError: invalid literal"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if n := strings.Count(out, "[auto: "); n != 1 || !strings.Contains(out, "could not be compared with CPython's") || !strings.Contains(out, "pull registry.invalid") {
		t.Fatalf("%d notes, want one saying why:\n%s", n, out)
	}
}
