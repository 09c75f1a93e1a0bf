package lsp_test

import (
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

// firstMoveDoc: a Monty cell, then one that needs the container (a
// module Monty lacks, cheap to import, so the cell does not hide what the
// move costs). backyard.prewarm is off, so nothing but the warm pool
// starts a container before the second cell asks for one.
const firstMoveDoc = "# %%\nx = 21\n# %%\nimport colorsys\nround(colorsys.rgb_to_hsv(0.2, 0.4, 0.4)[0] * x, 3)\n"

// BenchmarkFirstMove measures, over stdio against the built server, the
// time from running the first cell that needs the container to its
// result, with the warm pool (the default) and without it, and what the
// same cell costs on a container already up with the first cell replayed
// ("baseline": the cell, plus the first cell again as the replay's cost).
func BenchmarkFirstMove(b *testing.B) {
	for _, rt := range []string{"runc", "runsc"} {
		for _, mode := range []string{"pool", "no-pool", "baseline"} {
			b.Run(rt+"/"+mode, func(b *testing.B) {
				var cell, replay []time.Duration
				for b.Loop() {
					c, cmd := startBinary(b)
					ctx := testCtx(b)
					pool, backend := 1, "auto"
					if mode != "pool" {
						pool = 0
					}
					if mode == "baseline" {
						backend = "container"
					}
					settings := map[string]any{"backyard": map[string]any{"backend": backend, "prewarm": false,
						"container": map[string]any{"image": containertest.Image(), "runtime": rt, "warmPool": pool}}}
					if _, err := c.Initialize(ctx, lsptest.VSCode, settings); err != nil {
						b.Fatal(err)
					}
					uri := open(b, c, "move.py", firstMoveDoc)
					if mode == "pool" {
						waitOwnedContainers(b, cmd.Process.Pid, 1)
					}
					timed := func(line int) time.Duration {
						t0 := time.Now()
						ex := run(b, c, contract.CmdRunCell, map[string]any{"uri": uri, "line": line})
						d := time.Since(t0)
						if len(ex) != 1 || ex[0].Status != "ok" {
							b.Fatalf("%s", mustJSON(ex))
						}
						return d
					}
					timed(1) // on Monty; in the baseline, starts the container
					cell = append(cell, timed(3))
					if mode == "baseline" {
						replay = append(replay, timed(1))
					}
					c.Shutdown(ctx)
					c.Close()
				}
				b.ReportMetric(medianMs(cell), "cell-median-ms")
				if len(replay) > 0 {
					b.ReportMetric(medianMs(replay), "replay-median-ms")
				}
			})
		}
	}
}

// waitOwnedContainers waits until the server pid has n running
// containers and their drivers had time to start.
func waitOwnedContainers(b *testing.B, pid, n int) {
	b.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		out, _ := exec.Command("docker", "ps", "-q", "--filter", "status=running", "--filter", "label=dev.backyard-ls.pid="+strconv.Itoa(pid)).Output()
		if len(strings.Fields(string(out))) >= n {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("the warm pool did not fill")
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(2 * time.Second) // the driver starts inside (gVisor takes longest)
}

func medianMs(d []time.Duration) float64 {
	s := slices.Clone(d)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1000
}
