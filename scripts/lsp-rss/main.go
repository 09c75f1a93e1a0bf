// Command lsp-rss measures the memory of backyard-ls serving open documents:
// it starts the server over stdio, opens N documents and runs a cell in
// each (one live Monty kernel per document), then reports the server's RSS
// and the kernels' RSS from /proc (Pss too: RSS counts shared pages in
// every process).
//
//	go run ./scripts/lsp-rss [-docs 20] [-cell CODE] [-bin path/to/backyard-ls]
//
// Without -bin it builds ./cmd/backyard-ls into a temporary directory.
// -cell replaces the cell each document runs, e.g.
// "big = list(range(3_000_000))": what the server keeps of a kernel's
// values shows in its RSS.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/backyard-ls/backyard-ls/contract"
	"github.com/backyard-ls/backyard-ls/lsp/lsptest"
)

func main() {
	docs := flag.Int("docs", 20, "documents to open, each with a live kernel")
	bin := flag.String("bin", "", "backyard-ls binary (default: go build ./cmd/backyard-ls)")
	cell := flag.String("cell", "", "the cell each document runs (default: a list of 1000 small dicts)")
	flag.Parse()
	if err := run(*docs, *bin, *cell); err != nil {
		fmt.Fprintln(os.Stderr, "lsp-rss:", err)
		os.Exit(1)
	}
}

func run(docs int, bin, cell string) error {
	if bin == "" {
		dir, err := os.MkdirTemp("", "lsp-rss-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		bin = filepath.Join(dir, "backyard-ls")
		build := exec.Command("go", "build", "-o", bin, "./cmd/backyard-ls")
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			return fmt.Errorf("go build: %w", err)
		}
	}
	c, cmd, err := lsptest.Exec(bin, os.Stderr, "serve", "--stdio", "--log-level", "warn")
	if err != nil {
		return err
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := c.Initialize(ctx, lsptest.VSCode, nil); err != nil {
		return err
	}
	pid := cmd.Process.Pid
	time.Sleep(200 * time.Millisecond)
	idle := memOf(pid)

	for i := range docs {
		uri := fmt.Sprintf("file:///rss/doc%d.py", i)
		text := fmt.Sprintf("# %%%%\nrows = [{'id': i, 'name': str(i)} for i in range(1000)]\nlen(rows) + %d\n", i)
		if cell != "" {
			text = "# %%\n" + cell + "\n"
		}
		if err := c.Open(ctx, uri, text); err != nil {
			return err
		}
		res, err := c.Run(ctx, contract.CmdRunCell, lsptest.LineArg(uri, 0))
		if err != nil {
			return err
		}
		if len(res.Executions) != 1 || res.Executions[0].Status != contract.StatusOK {
			return fmt.Errorf("run in %s: %+v", uri, res)
		}
	}
	c.Forget()
	// Past the kernels' idle snapshot (taken 100 ms after a cell).
	time.Sleep(time.Second)
	server := memOf(pid)
	kids := lsptest.Children(pid)
	var kernels mem
	for _, k := range kids {
		m := memOf(k)
		kernels.rss += m.rss
		kernels.pss += m.pss
	}
	fmt.Printf("server idle (initialized, no document): RSS %.1f MiB, Pss %.1f MiB\n", mib(idle.rss), mib(idle.pss))
	fmt.Printf("server with %d documents:               RSS %.1f MiB, Pss %.1f MiB\n", docs, mib(server.rss), mib(server.pss))
	// A kernel whose namespace is worth a snapshot has a second worker that
	// keeps it.
	fmt.Printf("%d kernel processes:                    RSS %.1f MiB total, %.1f MiB each; Pss %.1f MiB each\n",
		len(kids), mib(kernels.rss), mib(kernels.rss)/float64(max(len(kids), 1)), mib(kernels.pss)/float64(max(len(kids), 1)))
	if len(kids) < docs {
		return fmt.Errorf("%d kernel processes for %d documents", len(kids), docs)
	}
	return c.Shutdown(ctx)
}

type mem struct{ rss, pss int64 } // bytes

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// memOf reads VmRSS from /proc/pid/status and Pss from smaps_rollup.
func memOf(pid int) mem {
	var m mem
	m.rss = field(fmt.Sprintf("/proc/%d/status", pid), "VmRSS:")
	m.pss = field(fmt.Sprintf("/proc/%d/smaps_rollup", pid), "Pss:")
	return m
}

// field returns the "Name: N kB" value of a /proc file in bytes.
func field(path, name string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), name); ok {
			kb, _ := strconv.ParseInt(strings.Fields(rest)[0], 10, 64)
			return kb << 10
		}
	}
	return 0
}
