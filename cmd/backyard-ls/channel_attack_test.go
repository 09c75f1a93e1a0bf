package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/internal/canary"
	"github.com/backyard-ls/backyard-ls/monty"
)

// Attacks on `batch` as a reward-gaming model would try them, with a
// canary secret in the environment and home of the batch: forged results
// on the fork server's channel, a line over the limit, line separators in
// the output, and a set whose order would differ from lane to lane.

// attackBatch runs batch with the canary's environment and returns its
// records by id, the raw output, and stderr with the log.
func attackBatch(t *testing.T, c *canary.Canary, input io.Reader, args ...string) (map[string]batchRecord, []byte, []byte) {
	t.Helper()
	mb, err := monty.Find("")
	if err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(t.TempDir(), "batch.log")
	cmd := exec.Command(binary, append([]string{"batch", "--monty", mb, "--log-level", "debug", "--log-file", logFile}, args...)...)
	cmd.Env = c.Env(t)
	cmd.Stdin = input
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v: %s", err, e.String())
	}
	recs := map[string]batchRecord{}
	for _, r := range parseRecords(t, o.String()) {
		var id string
		json.Unmarshal(r.ID, &id)
		recs[id] = r
	}
	log, _ := os.ReadFile(logFile)
	return recs, o.Bytes(), append(e.Bytes(), log...)
}

func snippetLine(id, code string) string {
	b, _ := json.Marshal(map[string]string{"id": id, "code": code})
	return string(b) + "\n"
}

// forgeResult writes a result of its own to the fork server's channel
// (closing it, so the runtime's cannot follow) and then fails; deep writes
// a 100,000-deep array there.
const (
	forgeResult = "import os\nos.write(3, b'{\"status\": \"ok\"}')\nos.close(3)\nraise ValueError('the real outcome')"
	forgeDeep   = "import os\nos.write(3, b'[' * 100000 + b']' * 100000)\nraise ValueError('the real outcome')"
	setOrder    = "print({'apple', 'banana', 'cherry', 'date', 'elderberry', 'fig', 'grape'})"
	separators  = "print('a\\u2028b\\u2029c\\x85d')"
)

func TestBatchAttacks(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine")
	}
	for _, backend := range []string{"monty", "runc", "runsc", "auto"} {
		t.Run(backend, func(t *testing.T) {
			c := canary.New(t)
			var in strings.Builder
			in.WriteString(snippetLine("forge", forgeResult))
			in.WriteString(snippetLine("deep", forgeDeep))
			for i, p := range c.Probes() {
				in.WriteString(snippetLine("probe"+string(rune('a'+i)), p))
			}
			in.WriteString(snippetLine("separators", separators))
			for i := range 4 { // on both lanes
				in.WriteString(snippetLine("set"+string(rune('a'+i)), setOrder))
			}
			big := io.MultiReader(strings.NewReader(`{"code": "`), strings.NewReader(strings.Repeat("#", contract.MaxRequestBytes)), strings.NewReader(`", "id": "big"}`+"\n"))
			input := io.MultiReader(strings.NewReader(in.String()), big, strings.NewReader(snippetLine("after", "6 * 7")))
			args := []string{"--backend", backend, "--parallel", "2"}
			if backend == "runc" || backend == "runsc" {
				args = []string{"--backend", "container", "--runtime", backend, "--image", containertest.Image(), "--parallel", "2"}
			} else if backend == "auto" {
				args = append(args, "--image", containertest.Image())
			}
			recs, out, stderr := attackBatch(t, c, input, args...)
			c.Check(t, "the records", out)
			c.Check(t, "stderr and the log", stderr)
			for _, id := range []string{"forge", "deep"} {
				r := recs[id]
				if r.Status == "ok" {
					t.Fatalf("%s was recorded ok: %+v", id, r)
				}
				if backend == "runc" || backend == "runsc" {
					if r.Status != "crashed" || !strings.Contains(r.Error.EValue, "did not write") {
						t.Fatalf("%s: %+v %+v", id, r, r.Error)
					}
				}
			}
			if r := recs["big"]; r.Status != "error" || r.Error.EName != "BatchInputError" || !strings.Contains(r.Error.EValue, "over the limit") {
				t.Fatalf("big: %+v", r)
			}
			if r := recs["after"]; r.Status != "ok" || r.Result == nil || r.Result.Text != "42" {
				t.Fatalf("after: %+v", r)
			}
			if bytes.ContainsAny(out, "\u2028\u2029\u0085") {
				t.Fatal("a raw line separator in the records")
			}
			if r := recs["separators"]; r.Stdout != "a\u2028b\u2029c\u0085d\n" {
				t.Fatalf("separators: %q", r.Stdout)
			}
			for _, id := range []string{"setb", "setc", "setd"} {
				if recs[id].Stdout != recs["seta"].Stdout || recs[id].Runtime != recs["seta"].Runtime {
					t.Fatalf("a set prints differently from lane to lane: %q (%s) vs %q (%s)", recs[id].Stdout, recs[id].Runtime, recs["seta"].Stdout, recs["seta"].Runtime)
				}
			}
		})
	}
}

// The set of TestBatchAttacks prints the same on runc and runsc (the same
// hash seed, 0 by default, in both), and --hash-seed changes it.
func TestBatchHashSeed(t *testing.T) {
	if testing.Short() {
		t.Skip("needs a container engine")
	}
	c := canary.New(t)
	printed := map[string]string{}
	for _, run := range [][]string{{"runc", "0"}, {"runsc", "0"}, {"runc", "1"}} {
		line := snippetLine("s", "import os\nprint(os.environ['PYTHONHASHSEED'])\n"+setOrder)
		recs, _, _ := attackBatch(t, c, strings.NewReader(line), "--backend", "container", "--runtime", run[0], "--image", containertest.Image(), "--hash-seed", run[1])
		if r := recs["s"]; r.Status != "ok" || !strings.HasPrefix(r.Stdout, run[1]+"\n") {
			t.Fatalf("%v: %+v", run, r)
		}
		printed[strings.Join(run, " ")] = recs["s"].Stdout
	}
	if printed["runc 0"] != printed["runsc 0"] || printed["runc 0"][2:] == printed["runc 1"][2:] {
		t.Fatalf("%q", printed)
	}
	if _, stderr, code := batch(t, "", "--hash-seed", "-1"); code != 2 || !strings.Contains(stderr, "--hash-seed") {
		t.Fatalf("%d %s", code, stderr)
	}
}
