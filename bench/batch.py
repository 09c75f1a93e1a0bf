#!/usr/bin/env python3
"""Measures batches and the editors' warm pool in one run; prints medians and ratios.

Rows:
  monty      trivial snippets/s through `backyard-ls batch --backend monty --parallel 2`,
             against Go's RunBatch (pipelined) and the round trip per snippet it used before
  runc/runsc `import numpy as np; print(np.arange(10).sum())` snippets/s through
             `backyard-ls batch --backend container --preload numpy`, against one
             `docker run` per snippet with the same image, limits and parallelism
  first move the editors' first cell that needs the container, with and without the
             warm pool, against the same cell on a container already up plus the replay

Usage: bench/batch.py BINARY   (scripts/bench-batch.sh builds it and runs this)
Env: BACKYARD_TEST_IMAGE, BENCH_REPEAT (runs per row, default 5), BENCH_MONTY_N
(default 200000), BENCH_CONTAINER_N (runc; runsc gets a third; default 1500),
BENCH_DOCKER_N (default 20), BENCH_PARALLEL (container rows, default 2),
BENCH_ROWS (default "monty,container,editor").
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

BIN = os.path.abspath(sys.argv[1])
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMAGE = os.environ.get("BACKYARD_TEST_IMAGE", "backyard-python:test")
REPEAT = int(os.environ.get("BENCH_REPEAT", "5"))
MONTY_N = int(os.environ.get("BENCH_MONTY_N", "200000"))
CONTAINER_N = int(os.environ.get("BENCH_CONTAINER_N", "1500"))
DOCKER_N = int(os.environ.get("BENCH_DOCKER_N", "20"))
PARALLEL = int(os.environ.get("BENCH_PARALLEL", "2"))
ROWS = os.environ.get("BENCH_ROWS", "monty,container,editor").split(",")
NUMPY = "import numpy as np; print(np.arange(10).sum())"


def load():
    return open("/proc/loadavg").read().split()[:3]


def write_lines(path, n, code):
    with open(path, "w") as f:
        for i in range(n):
            f.write(json.dumps({"id": i, "code": code(i)}) + "\n")


def batch_rate(path, n, args, check):
    """Snippets/s of one `backyard-ls batch` run over path (n lines)."""
    with open(path) as stdin, tempfile.TemporaryFile() as out:
        t = time.monotonic()
        subprocess.run([BIN, "batch", *args], stdin=stdin, stdout=out, check=True)
        wall = time.monotonic() - t
        if check:
            out.seek(0)
            recs = [json.loads(l) for l in out]
            bad = [r for r in recs if r["status"] != "ok" or not check(r)]
            if len(recs) != n or bad:
                sys.exit("batch %s: %d records, first bad: %s" % (args, len(recs), bad[:1]))
    return n / wall


def go_bench(pattern, pkg, benchtime, metrics):
    """Medians of the Go benchmark's metrics, by sub-benchmark."""
    out = subprocess.run(["go", "test", "-run", "^$", "-bench", pattern, "-benchtime", benchtime,
                          "-count", str(REPEAT), pkg], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(out.stdout + out.stderr)
    vals = {}
    for line in out.stdout.splitlines():
        m = re.match(r"^Benchmark(\S+?)(-\d+)?\s+\d+\s+(.*)$", line)
        if not m:
            continue
        for v, unit in re.findall(r"([\d.]+) (\S+)", m.group(3)):
            if unit in metrics:
                vals.setdefault((m.group(1), unit), []).append(float(v))
    return {k: statistics.median(v) for k, v in vals.items()}


def docker_run_rate(runtime, n, code=NUMPY, stdout="45\n"):
    """Snippets/s of one hardened `docker run` per snippet, PARALLEL at a time."""
    cmd = ["docker", "run", "--rm", "--runtime", runtime, "--network", "none", "--read-only",
           "--tmpfs", "/tmp:rw,nosuid,nodev,size=64m", "--cap-drop", "ALL", "--security-opt", "no-new-privileges",
           "--user", "65534:65534", "--memory", "256m", "--memory-swap", "256m", "--cpus", "1", "--pids-limit", "256",
           "-e", "OPENBLAS_NUM_THREADS=1", IMAGE, "python3", "-c", code]

    def one(_):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.stdout != stdout:
            sys.exit("docker run: %r %r" % (r.stdout, r.stderr))

    t = time.monotonic()
    with ThreadPoolExecutor(PARALLEL) as ex:
        list(ex.map(one, range(n)))
    return n / (time.monotonic() - t)


def median_of(f, *args):
    return statistics.median(f(*args) for _ in range(REPEAT))


def main():
    before = load()
    tmp = tempfile.mkdtemp()
    rows = []
    if "monty" in ROWS:
        path = os.path.join(tmp, "trivial.jsonl")
        write_lines(path, MONTY_N, lambda i: "%d * 2" % i)
        batch_rate(path, MONTY_N, ["--backend", "monty", "--parallel", "2"], lambda r: r["result"]["text"].isdigit())
        cli = median_of(batch_rate, path, MONTY_N, ["--backend", "monty", "--parallel", "2"], None)
        go = go_bench("^BenchmarkRunBatch$", "./sandbox", "10x", {"snippets/s"})
        pipelined, seq = go[("RunBatch/pipelined", "snippets/s")], go[("RunBatch/sequential", "snippets/s")]
        rows.append(("monty: batch --parallel 2", "%.0f/s" % cli, "Go RunBatch %.0f/s, round trip per snippet %.0f/s" % (pipelined, seq),
                     "%.2fx / %.2fx" % (cli / pipelined, cli / seq), "goal >= 40000/s"))
    if "container" in ROWS:
        for rt, n in (("runc", CONTAINER_N), ("runsc", max(CONTAINER_N // 3, 50))):
            path = os.path.join(tmp, "numpy-%s.jsonl" % rt)
            write_lines(path, n, lambda i: NUMPY)
            args = ["--backend", "container", "--image", IMAGE, "--runtime", rt, "--preload", "numpy", "--parallel", str(PARALLEL)]
            batch_rate(path, n, args, lambda r: r["stdout"] == "45\n" and r["runtime"] == rt)
            ours = median_of(batch_rate, path, n, args, None)
            peer = median_of(docker_run_rate, rt, DOCKER_N)
            goal = "goal >= 100/s and >= 15x" if rt == "runc" else "goal >= 15x"
            rows.append(("%s: batch --preload numpy" % rt, "%.1f/s" % ours, "docker run %.2f/s" % peer, "%.1fx" % (ours / peer), goal))
    if "editor" in ROWS:
        m = go_bench("^BenchmarkFirstMove$", "./lsp", "5x", {"cell-median-ms", "replay-median-ms"})
        for rt in ("runc", "runsc"):
            pool, cold = m[("FirstMove/%s/pool" % rt, "cell-median-ms")], m[("FirstMove/%s/no-pool" % rt, "cell-median-ms")]
            base = m[("FirstMove/%s/baseline" % rt, "cell-median-ms")] + m[("FirstMove/%s/baseline" % rt, "replay-median-ms")]
            rows.append(("%s: first move (ms)" % rt, "%.1f pool" % pool, "%.1f no pool, %.1f warm cell + replay" % (cold, base),
                         "%+.1f ms" % (pool - base), "goal <= +10 ms"))
    print_table(rows, before)


def print_table(rows, before):
    """Prints rows of five columns and the machine's load before and now."""
    after = load()
    width = [max(len(r[i]) for r in rows) for i in range(5)]
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, width)))
    print("load average (1, 5, 15 min) before %s, after %s; %d CPUs; medians of %d runs" % (" ".join(before), " ".join(after), os.cpu_count(), REPEAT))


if __name__ == "__main__":
    main()
