package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/internal/canary"
)

// probeRecord is what the attack tests read of an execution record.
type probeRecord struct {
	Status  string `json:"status"`
	Stdout  string `json:"stdout"`
	Backend string `json:"backend"`
	Result  *struct {
		Text string `json:"text"`
	} `json:"result"`
}

// TestRunAttack: a notebook's cells try to read the server's environment,
// its stdin, the host's /proc, /dev and /sys, and the credentials of the
// home folder (a canary secret in each), on Monty and auto, with the
// default workspace (the notebook's project; none for a notebook in the
// home folder itself) and with / given explicitly. Every read gets
// CPython's answer for a missing file on Monty; the secret is in no
// output, record or log; a broad workspace is warned about on stderr.
func TestRunAttack(t *testing.T) {
	c := canary.New(t)
	env := c.Env(t)
	probe := "# %%\n" + c.Probe() + "# %%\nopen('data.csv').read()\n"
	inProject := filepath.Join(c.Project, "nb.py")
	inHome := filepath.Join(c.Home, "nb.py")
	for _, p := range []string{inProject, inHome} {
		if err := os.WriteFile(p, []byte(probe), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name, backend, nb string
		args              []string
		warn              string // on stderr
		seesData          bool   // the project's data.csv
	}{
		{"monty/project", "monty", inProject, nil, "", true},
		{"monty/home", "monty", inHome, nil, "its cells see none of the files there", false},
		{"monty/root", "monty", inProject, []string{"--workspace", "/"}, "kernels see all of /", true},
		{"auto/project", "auto", inProject, []string{"--image", containertest.Image()}, "", true},
		{"auto/home", "auto", inHome, []string{"--image", containertest.Image()}, "its cells see none of the files there", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			logFile := filepath.Join(t.TempDir(), "log")
			args := append([]string{"run", "--json", "--backend", tc.backend, "--log-file", logFile, "--log-level", "debug"}, tc.args...)
			out, stderr, code := backyardAs(t, filepath.Dir(tc.nb), env, "", append(args, tc.nb)...)
			var recs []probeRecord
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				var rec probeRecord
				if err := json.Unmarshal([]byte(line), &rec); err != nil {
					t.Fatalf("exit %d: not a record: %q\n%s", code, line, stderr)
				}
				recs = append(recs, rec)
			}
			if len(recs) != 2 || recs[0].Status != "ok" {
				t.Fatalf("exit %d, records %+v\n%s", code, recs, stderr)
			}
			c.CheckNoSecret(t, "run's output", out, stderr)
			c.CheckFileNoSecret(t, logFile)
			if recs[0].Backend == "monty" {
				c.CheckMonty(t, recs[0].Stdout)
			} else if tc.backend == "monty" {
				t.Fatalf("ran on %s", recs[0].Backend)
			}
			if tc.warn == "" && strings.Contains(stderr, "warning") || tc.warn != "" && !strings.Contains(stderr, tc.warn) {
				t.Errorf("stderr %q, want the warning %q", stderr, tc.warn)
			}
			if got := recs[1].Result != nil && recs[1].Result.Text == `'a,b\n1,2\n'`; got != tc.seesData {
				t.Errorf("reads the project's data.csv: %v, want %v (%+v)", got, tc.seesData, recs[1])
			}
		})
	}
}

// TestBatchAttack: the same probes as snippets of a batch, on Monty and
// auto: no secret in any record or log.
func TestBatchAttack(t *testing.T) {
	c := canary.New(t)
	snippet, _ := json.Marshal(map[string]string{"id": "probe", "code": c.Probe()})
	input := string(snippet) + "\n" + `{"id": "after", "code": "6 * 7"}` + "\n"
	for _, backend := range []string{"monty", "auto"} {
		t.Run(backend, func(t *testing.T) {
			logFile := filepath.Join(t.TempDir(), "log")
			out, stderr, code := backyardAs(t, c.Home, c.Env(t), input, "batch", "--backend", backend, "--image", containertest.Image(), "--log-file", logFile, "--log-level", "debug")
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if code != 0 || len(lines) != 2 || !strings.Contains(lines[1], `"text":"42"`) {
				t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
			}
			c.CheckNoSecret(t, "batch's records", out, stderr)
			c.CheckFileNoSecret(t, logFile)
			var rec probeRecord
			if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
				t.Fatal(err)
			}
			if rec.Backend == "monty" {
				c.CheckRefused(t, rec.Stdout) // a batch's Monty snippet has no files
			}
		})
	}
}

// TestRunClockAndRecursion: on Monty a sleep lasts as asked and
// process_time() advances with the work done; recursion stops at
// CPython's limit (and on auto sys.getrecursionlimit(), which Monty
// lacks, reads CPython's 1000 in the container).
func TestRunClockAndRecursion(t *testing.T) {
	nb := notebookFile(t, "# %%\nimport time\nt0 = time.process_time()\nx = sum(range(300000))\nt1 = time.process_time()\nm0 = time.monotonic()\ntime.sleep(0.3)\n"+
		"(t1 > t0, time.monotonic() - m0 >= 0.3)\n# %%\nn = 0\ndef f():\n    global n\n    n += 1\n    f()\ntry:\n    f()\nexcept RecursionError:\n    pass\n950 <= n <= 1000\n"+
		"# %%\nimport sys\nsys.getrecursionlimit()\n")
	for _, backend := range []string{"monty", "auto"} {
		out, stderr, code := backyard(t, "run", "--json", "--backend", backend, "--image", containertest.Image(), nb)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		var recs []probeRecord
		for _, l := range lines {
			var r probeRecord
			json.Unmarshal([]byte(l), &r)
			recs = append(recs, r)
		}
		if len(recs) != 3 || recs[0].Result == nil || recs[0].Result.Text != "(True, True)" || recs[1].Result == nil || recs[1].Result.Text != "True" {
			t.Fatalf("%s: exit %d\n%s\n%s", backend, code, out, stderr)
		}
		if backend == "auto" && (recs[2].Result == nil || recs[2].Result.Text != "1000") {
			t.Fatalf("auto: sys.getrecursionlimit() %+v", recs[2])
		}
	}
}
