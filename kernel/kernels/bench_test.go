package kernels

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/backyard-ls/backyard-ls/container/containertest"
	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/kernel"
	"github.com/backyard-ls/backyard-ls/kernel/kerneltest"
)

// readCell reads the 1 MiB file the benchmark workspace holds.
const readCell = "len(open('big.bin', 'rb').read())"

func benchWorkspace(b *testing.B) string {
	b.Helper()
	ws, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "big.bin"), bytes.Repeat([]byte("0123456789abcdef"), 1<<16), 0o644); err != nil {
		b.Fatal(err)
	}
	return ws
}

// BenchmarkRead1MiB is the cost of a cell that reads a 1 MiB file beside
// the notebook, on Monty (the host serves the read) and in a container
// (runc, runsc), against plain CPython reading it in a loop in the same
// run. Metrics, medians: read-ms is the cell, cell-ms an empty cell on the
// same kernel, net-ms their difference (the read itself).
// scripts/bench-files.sh prints them with the ratios.
func BenchmarkRead1MiB(b *testing.B) {
	ws := benchWorkspace(b)
	kernels := []struct {
		name    string
		backend contract.Backend
		runtime contract.Runtime
	}{
		{"monty", contract.BackendMonty, ""},
		{"runc", contract.BackendContainer, contract.RuntimeRunc},
		{"runsc", contract.BackendContainer, contract.RuntimeRunsc},
	}
	for _, kc := range kernels {
		b.Run(kc.name, func(b *testing.B) {
			s := contract.DefaultSettings()
			s.Backend, s.Container.Image, s.Container.Runtime = kc.backend, containertest.Image(), kc.runtime
			k, err := New(kernel.Config{Settings: s, Roots: []string{ws}, Dir: ws})
			if err != nil {
				b.Fatal(err)
			}
			defer k.Close()
			if r := kerneltest.Run(b, k, readCell); r.Value == nil || r.Value.Text != "1048576" {
				b.Fatalf("%+v %+v", r, r.Error)
			}
			for range 10 { // warm up
				kerneltest.Run(b, k, readCell)
			}
			var read, empty kerneltest.Samples
			ctx := context.Background()
			b.ResetTimer()
			for range b.N {
				for _, c := range []struct {
					code string
					s    *kerneltest.Samples
				}{{readCell, &read}, {"0", &empty}} {
					start := time.Now()
					r, err := k.Execute(ctx, kernel.Request{Code: c.code})
					*c.s = append(*c.s, time.Since(start))
					if err != nil || r.Status != kernel.StatusOK {
						b.Fatal(err, r.Error)
					}
				}
			}
			b.StopTimer()
			read.ReportMillis(b, "read-ms")
			empty.ReportMillis(b, "cell-ms")
			b.ReportMetric(float64(read.Median()-empty.Median())/1e6, "net-ms")
		})
	}
	b.Run("cpython", func(b *testing.B) {
		// Plain CPython, one process: the same read, timed inside it.
		script := fmt.Sprintf(`import time
ts = []
for _ in range(%d):
    t = time.perf_counter()
    len(open('big.bin', 'rb').read())
    ts.append(time.perf_counter() - t)
ts.sort()
print(ts[len(ts) // 2])`, b.N+10)
		cmd := exec.Command("python3", "-c", script)
		cmd.Dir = ws
		out, err := cmd.Output()
		if err != nil {
			b.Skipf("python3: %v", err)
		}
		sec, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(sec*1e3, "read-ms")
		b.ReportMetric(sec*1e3, "net-ms")
	})
}
