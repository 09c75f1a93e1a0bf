#!/usr/bin/env python3
"""Measures the HTTP service against its peers in one run; prints medians and ratios.

Rows:
  trivial    `print(6 * 7)` through POST /run_code from 16 clients (bench/httpload: Go,
             kept-alive connections) on `backyard-ls http --backend auto`, against
             `backyard-ls batch --backend auto` on the same snippets, the HTTP floor (a
             server that answers at once, same client) and one `docker run` per snippet
  numpy      `import numpy as np; print(np.arange(10).sum())` the same way (the auto
             router sends it to a fork-server container on runc; no --preload)
  latency    p50/p99 of /run_code for the trivial snippet on Monty, one client and 16
  learned    numpy snippets through `batch --backend container` with no --preload, against
             `--preload numpy` and one `docker run` per snippet (runc)

Usage: bench/http.py BINARY HTTPLOAD   (scripts/bench-http.sh builds both and runs this)
Env: BACKYARD_TEST_IMAGE, BENCH_REPEAT (runs per row, default 5), BENCH_TRIVIAL_N (default
50000), BENCH_NUMPY_N (default 1500), BENCH_DOCKER_N (default 20), BENCH_PARALLEL (lanes,
default 2), BENCH_CLIENTS (default 16), BENCH_ROWS (default "trivial,numpy,latency,learned").
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from batch import batch_rate, docker_run_rate, load, print_table, write_lines  # noqa: E402  (as make bench-batch measures)

BIN = os.path.abspath(sys.argv[1])
LOAD = os.path.abspath(sys.argv[2])
IMAGE = os.environ.get("BACKYARD_TEST_IMAGE", "backyard-python:test")
REPEAT = int(os.environ.get("BENCH_REPEAT", "5"))
TRIVIAL_N = int(os.environ.get("BENCH_TRIVIAL_N", "50000"))
NUMPY_N = int(os.environ.get("BENCH_NUMPY_N", "1500"))
DOCKER_N = int(os.environ.get("BENCH_DOCKER_N", "20"))
PARALLEL = os.environ.get("BENCH_PARALLEL", "2")
CLIENTS = os.environ.get("BENCH_CLIENTS", "16")
ROWS = os.environ.get("BENCH_ROWS", "trivial,numpy,latency,learned").split(",")
TRIVIAL = ("print(6 * 7)", "42\n")
NUMPY = ("import numpy as np; print(np.arange(10).sum())", "45\n")


class Server:
    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True)
        line = self.proc.stderr.readline()
        m = re.search(r"serving on (http://\S+)", line)
        if not m:
            self.proc.kill()
            sys.exit("did not start: %s %s" % (argv, line))
        self.url = m.group(1)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=120)


def http_run(url, snippet, n, clients, warmup=200):
    out = subprocess.run([LOAD, "-url", url + "/run_code", "-n", str(n), "-c", str(clients), "-code", snippet[0],
                          "-stdout", snippet[1], "-warmup", str(warmup)], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("httpload: %s %s" % (out.stdout, out.stderr))
    return json.loads(out.stdout)


def same(stdout):
    """A record check: the snippet printed stdout."""
    return lambda r: r["stdout"] == stdout


def median(f, *args):
    return statistics.median(f(*args) for _ in range(REPEAT))


def main():
    before = load()
    tmp = tempfile.mkdtemp()
    rows = []
    server_flags = ["--image", IMAGE, "--runtime", "runc", "--parallel", PARALLEL, "--max-running", "256"]
    for name, snippet, n in (("trivial", TRIVIAL, TRIVIAL_N), ("numpy", NUMPY, NUMPY_N)):
        if name not in ROWS:
            continue
        path = os.path.join(tmp, name + ".jsonl")
        write_lines(path, n, lambda i: snippet[0])
        s = Server([BIN, "http", "--listen", "127.0.0.1:0", "--backend", "auto", *server_flags])
        try:
            http = median(lambda: http_run(s.url, snippet, n, CLIENTS)["rate"])
        finally:
            s.stop()
        batch = median(batch_rate, path, n, ["--backend", "auto", "--image", IMAGE, "--runtime", "runc", "--parallel", PARALLEL], same(snippet[1]))
        floor = Server([LOAD, "-serve", "127.0.0.1:0", "-stdout", snippet[1]])
        try:
            bare = median(lambda: http_run(floor.url, snippet, min(n, 50000), CLIENTS)["rate"])
        finally:
            floor.stop()
        docker = median(docker_run_rate, "runc", DOCKER_N, *snippet)
        rows.append(("%s: /run_code, %s clients" % (name, CLIENTS), "%.0f/s" % http,
                     "batch %.0f/s, HTTP floor %.0f/s, docker run %.2f/s" % (batch, bare, docker),
                     "%.2fx batch, %.0fx docker run" % (http / batch, http / docker), "goal >= 0.80x batch"))
    if "latency" in ROWS:
        s = Server([BIN, "http", "--listen", "127.0.0.1:0", "--backend", "monty", "--parallel", PARALLEL])
        try:
            for clients in ("1", CLIENTS):
                runs = [http_run(s.url, TRIVIAL, 5000 if clients == "1" else 20000, clients) for _ in range(REPEAT)]
                p50 = statistics.median(r["p50_ms"] for r in runs)
                p99 = statistics.median(r["p99_ms"] for r in runs)
                rows.append(("latency: monty, %s client(s)" % clients, "p50 %.2f ms" % p50, "p99 %.2f ms" % p99, "", "goal p99 <= 5 ms"))
        finally:
            s.stop()
    if "learned" in ROWS:
        path = os.path.join(tmp, "learned.jsonl")
        write_lines(path, NUMPY_N, lambda i: NUMPY[0])
        base = ["--backend", "container", "--image", IMAGE, "--runtime", "runc", "--parallel", PARALLEL]
        learned = median(batch_rate, path, NUMPY_N, base, same(NUMPY[1]))
        preload = median(batch_rate, path, NUMPY_N, base + ["--preload", "numpy"], same(NUMPY[1]))
        docker = median(docker_run_rate, "runc", DOCKER_N, *NUMPY)
        rows.append(("numpy batch, no --preload (runc)", "%.1f/s" % learned, "--preload numpy %.1f/s, docker run %.2f/s" % (preload, docker),
                     "%.2fx preload, %.1fx docker run" % (learned / preload, learned / docker), "goal >= 0.80x and >= 15x"))
    print_table(rows, before)


if __name__ == "__main__":
    main()
