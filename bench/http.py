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
The trivial rows also give the CPU time each side spends on a snippet (the server and its
Monty workers, the client, batch with its workers, the floor), which the load of other work
moves less than a rate, and the most those times allow when the client and the server share
the machine's CPUs: "CPU bound" is the CPUs' µs per second over the client's and the
server's per request, over batch's rate; "any server" the same for a server that would cost
no more than the floor plus batch's own work. With wrk on PATH (Debian's wrk), a client in C
that costs less CPU per request, trivial is also measured with it, against the floor with it.
  learned    numpy snippets through `batch --backend container` with no --preload, against
             `--preload numpy` and one `docker run` per snippet (runc)

Usage: bench/http.py BINARY HTTPLOAD   (scripts/bench-http.sh builds both and runs this)
Env: BACKYARD_TEST_IMAGE, BENCH_REPEAT (runs per row, default 5), BENCH_TRIVIAL_N (default
50000), BENCH_NUMPY_N (default 1500), BENCH_DOCKER_N (default 20), BENCH_PARALLEL (lanes,
default 2), BENCH_CLIENTS (default 16), BENCH_ROWS (default "trivial,numpy,latency,learned"),
BENCH_WRK_SECONDS (each wrk run, default 3).
"""
import json
import os
import re
import resource
import shutil
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
WRK = shutil.which("wrk")
WRK_SECONDS = int(os.environ.get("BENCH_WRK_SECONDS", "3"))
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

    def cpu(self):
        """CPU seconds of the server and of its child processes (the Monty workers) so far."""
        return tree_cpu(self.proc.pid)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=120)


def http_run(url, snippet, n, clients, warmup=200):
    out = subprocess.run([LOAD, "-url", url + "/run_code", "-n", str(n), "-c", str(clients), "-code", snippet[0],
                          "-stdout", snippet[1], "-warmup", str(warmup)], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("httpload: %s %s" % (out.stdout, out.stderr))
    return json.loads(out.stdout)


def tree_cpu(pid):
    """CPU seconds of process pid and of its descendants, from /proc."""
    stats = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                f = open("/proc/%s/stat" % d).read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            stats[int(d)] = (int(f[1]), int(f[11]) + int(f[12]))
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += stats.get(p, (0, 0))[1]
        todo += [c for c, (ppid, _) in stats.items() if ppid == p]
    own = stats.get(pid, (0, 0))[1]
    tick = os.sysconf("SC_CLK_TCK")
    return own / tick, (total - own) / tick


def children_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def per_request(server, n, f):
    """(f's result, CPU µs per request of the server, of its workers, of the client) of f,
    which sends n requests to server from a child process."""
    own, workers, client = *server.cpu(), children_cpu()
    out = f()
    own2, workers2 = server.cpu()
    return out, (own2 - own) / n * 1e6, (workers2 - workers) / n * 1e6, (children_cpu() - client) / n * 1e6


def served(server, snippet, n):
    """(rate, CPU µs per request of the server, of its workers, of the client) of one httpload run."""
    r, *cpu = per_request(server, n, lambda: http_run(server.url, snippet, n, CLIENTS, warmup=0))
    return (r["rate"], *cpu)


def wrk_served(server, lua, seconds):
    """served, with wrk for seconds."""
    out = {}

    def run():
        p = subprocess.run([WRK, "-t2", "-c" + CLIENTS, "-d%ds" % seconds, "-s", lua, server.url + "/run_code"], capture_output=True, text=True)
        m, rate = re.search(r"(\d+) requests in", p.stdout), re.search(r"Requests/sec:\s+([\d.]+)", p.stdout)
        if p.returncode != 0 or not m or not rate or "Non-2xx" in p.stdout:
            sys.exit("wrk: %s %s" % (p.stdout, p.stderr))
        out["n"], out["rate"] = int(m.group(1)), float(rate.group(1))
    own, workers, client = *server.cpu(), children_cpu()
    run()
    n = out["n"]
    own2, workers2 = server.cpu()
    return out["rate"], (own2 - own) / n * 1e6, (workers2 - workers) / n * 1e6, (children_cpu() - client) / n * 1e6


def wrk_script(path, snippet):
    """A wrk script that posts snippet as httpload does."""
    body = json.dumps({"code": snippet[0], "language": "python", "run_timeout": 30})
    with open(path, "w") as f:
        f.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = %s\n' % json.dumps(body))


def batched(path, n, args, check):
    """(rate, CPU µs per snippet with its workers) of one batch run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    rate = batch_rate(path, n, args, check)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return rate, (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) / n * 1e6


def medians(runs):
    """Medians of each member of the tuples runs."""
    return tuple(statistics.median(x) for x in zip(*runs))


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
        lua = os.path.join(tmp, name + ".lua")
        wrk_script(lua, snippet)
        use_wrk = WRK and name == "trivial"
        s = Server([BIN, "http", "--listen", "127.0.0.1:0", "--backend", "auto", *server_flags])
        try:
            http_run(s.url, snippet, 1000, CLIENTS)  # workers and containers up
            http, http_cpu, http_workers, http_client = medians([served(s, snippet, n) for _ in range(REPEAT)])
            if use_wrk:
                whttp, whttp_cpu, _, whttp_client = medians([wrk_served(s, lua, WRK_SECONDS) for _ in range(REPEAT)])
        finally:
            s.stop()
        batch, batch_cpu = medians([batched(path, n, ["--backend", "auto", "--image", IMAGE, "--runtime", "runc", "--parallel", PARALLEL], same(snippet[1])) for _ in range(REPEAT)])
        floor = Server([LOAD, "-serve", "127.0.0.1:0", "-stdout", snippet[1]])
        try:
            bare, bare_cpu, _, _ = medians([served(floor, snippet, min(n, 50000)) for _ in range(REPEAT)])
            if use_wrk:
                wbare, wbare_cpu, _, _ = medians([wrk_served(floor, lua, WRK_SECONDS) for _ in range(REPEAT)])
        finally:
            floor.stop()
        docker = median(docker_run_rate, "runc", DOCKER_N, *snippet)
        rows.append(("%s: /run_code, %s clients" % (name, CLIENTS), "%.0f/s" % http,
                     "batch %.0f/s, HTTP floor %.0f/s, docker run %.2f/s" % (batch, bare, docker),
                     "%.2fx batch (floor %.2fx), %.0fx docker run" % (http / batch, bare / batch, http / docker), "goal >= 0.80x batch"))
        if use_wrk:
            rows.append(("%s: /run_code, %s clients, wrk" % (name, CLIENTS), "%.0f/s" % whttp, "HTTP floor with wrk %.0f/s" % wbare,
                         "%.2fx batch (floor %.2fx)" % (whttp / batch, wbare / batch), "goal >= 0.80x batch"))
        if name == "trivial":
            cpus = os.cpu_count() * 1e6  # CPU µs per second
            rows.append(("trivial: CPU per snippet", "server %.0f us (Monty workers %.0f)" % (http_cpu + http_workers, http_workers),
                         "batch %.0f us, HTTP floor %.0f us, client %.0f us%s" % (batch_cpu, bare_cpu, http_client, ", wrk %.0f us" % whttp_client if use_wrk else ""),
                         "CPU bound %.2fx batch, any server %.2fx" % (cpus / (http_cpu + http_workers + http_client) / batch, cpus / (bare_cpu + http_client + batch_cpu) / batch),
                         "%d CPUs for client and server" % os.cpu_count()))
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
