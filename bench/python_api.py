"""The Python API against its peers, in one run (scripts/bench-python.sh).

Rows:
  run        a trivial run("x + 1") on a warm Monty Sandbox, against
             pydantic-monty 1.4.0's own REPL session on its worker pool
             (feed_run, the same worker binary) and against a Jupyter
             kernel's execute (bench/jupyter_peer.py, run by the script);
             rounds alternate the two in-process paths so load hits both.
             Also the CPU time per call of the Python process, the binary
             and the workers (for pydantic-monty: the process and its
             worker), which load hardly moves
  batch      run_batch of N trivial snippets (Monty), against
             `backyard-ls batch` on the same input (a file in, a file out)
             and against a Python program driving `backyard-ls batch`
             (writing the lines, parsing each result); rounds alternate
             who goes first. Also the CPU time per snippet of the Python
             process and of the binary (with its workers), which load
             hardly moves
  numpy      run_batch of numpy snippets in containers with numpy
             preloaded (runc, runsc) against `backyard-ls batch --preload
             numpy` on the same input

Prints one JSON object per row with medians (and every sample).

Usage: bench/python_api.py BINARY [ROW...]   (rows: run, batch, numpy)
Env: BENCH_REPEAT (runs per batch row, default 5), BENCH_RUNS (cells per
round, default 500), BENCH_ROUNDS (default 10), BENCH_BATCH_N (default
20000), BENCH_NUMPY_N (runc; runsc gets a third; default 600),
BACKYARD_TEST_IMAGE.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import pydantic_monty

from backyard_ls import Sandbox, run_batch
from backyard_ls._client import connection

BIN = os.path.abspath(sys.argv[1])
ROWS = sys.argv[2:] or ["run", "batch", "numpy"]
REPEAT = int(os.environ.get("BENCH_REPEAT", "5"))
RUNS = int(os.environ.get("BENCH_RUNS", "500"))
ROUNDS = int(os.environ.get("BENCH_ROUNDS", "10"))
BATCH_N = int(os.environ.get("BENCH_BATCH_N", "20000"))
NUMPY_N = int(os.environ.get("BENCH_NUMPY_N", "600"))
IMAGE = os.environ.get("BACKYARD_TEST_IMAGE", "backyard-python:test")
NUMPY = "import numpy as np; print(np.arange(10).sum())"


def emit(row: dict[str, object]) -> None:
    print(json.dumps(row), flush=True)


def worker() -> str:
    out = subprocess.run([BIN, "doctor", "--json"], capture_output=True, text=True)
    return str(json.loads(out.stdout)["monty"]["path"])


def time_calls(f, n: int) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        out.append((time.perf_counter() - t) * 1e3)
    return out


def descendants(pid: int) -> list[int]:
    """pid's child processes and theirs (Linux)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tasks:
            try:
                with open(f"/proc/{p}/task/{t}/children") as f:
                    kids = [int(c) for c in f.read().split()]
            except OSError:
                continue
            out += kids
            todo += kids
    return out


def cpu_clock(pid: int) -> float:
    """CPU seconds of a running process, all its threads, to the
    nanosecond (its clock_getcpuclockid clock; /proc counts 10 ms ticks);
    0 once it is gone."""
    try:
        return time.clock_gettime(((~pid) << 3) | 2)
    except OSError:
        return 0.0


class CallCpu:
    """CPU seconds the calls of a block cost this process, the server
    (when there is one) and the workers: the server's descendants, or
    without a server this process's children but the excluded server's
    tree. A worker that ends within the block is lost; one that starts in
    it counts from its start."""

    def __init__(self, server: int | None, exclude: int | None = None) -> None:
        self.server, self.exclude = server, exclude
        self.client = self.binary = self.workers = 0.0

    def workers_now(self) -> dict[int, float]:
        if self.server is not None:
            pids = descendants(self.server)
        else:
            skip = {self.exclude, *descendants(self.exclude)} if self.exclude else set()
            pids = [p for p in descendants(os.getpid()) if p not in skip]
        return {p: cpu_clock(p) for p in pids}

    def server_now(self) -> float:
        return cpu_clock(self.server) if self.server is not None else 0.0

    def measure(self, f, n: int) -> list[float]:  # type: ignore[no-untyped-def]
        w0, b0, c0 = self.workers_now(), self.server_now(), time.process_time()
        out = time_calls(f, n)
        c1, b1, w1 = time.process_time(), self.server_now(), self.workers_now()
        self.client += c1 - c0
        self.binary += b1 - b0
        self.workers += sum(v - w0.get(p, 0.0) for p, v in w1.items())
        return out

    def per_call_us(self, n: int) -> dict[str, float]:
        us = {"client": self.client, "binary": self.binary, "workers": self.workers}
        us["total"] = sum(us.values())
        return {k: v / n * 1e6 for k, v in us.items()}


def row_run() -> None:
    ours: list[float] = []
    peer: list[float] = []
    with Sandbox("monty", binary=BIN) as sb, pydantic_monty.Monty(binary_path=worker(), min_processes=1, max_processes=1) as pool:
        server = connection(BIN).pid
        cpu = {"ours": CallCpu(server), "peer": CallCpu(None, exclude=server)}
        with pool.checkout() as s:
            sb.run("x = 1")
            s.feed_run("x = 1")
            for _ in range(200):
                assert sb.run("x + 1").value == "2"
                assert s.feed_run("x + 1") == 2
            for i in range(ROUNDS):
                # Alternate who goes first, so a load spike hits both.
                pair = [("ours", lambda: sb.run("x + 1")), ("peer", lambda: s.feed_run("x + 1"))]
                for name, f in pair if i % 2 == 0 else pair[::-1]:
                    (ours if name == "ours" else peer).extend(cpu[name].measure(f, RUNS))
    emit({"row": "run", "ours_ms": statistics.median(ours), "ours_p90_ms": sorted(ours)[len(ours) * 9 // 10],
          "pydantic_monty_ms": statistics.median(peer), "pydantic_monty_p90_ms": sorted(peer)[len(peer) * 9 // 10], "n": len(ours),
          "cpu_per_call_us": {"ours": cpu["ours"].per_call_us(len(ours)), "pydantic_monty": cpu["peer"].per_call_us(len(peer))}})


def write_jsonl(path: str, n: int, code) -> None:  # type: ignore[no-untyped-def]
    with open(path, "w") as f:
        for i in range(n):
            f.write(json.dumps({"id": i, "code": code(i)}) + "\n")


TICK = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid: int) -> float:
    """CPU seconds of a process and of its children it waited for (its
    workers), from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / TICK


def children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


class Cpu:
    """CPU seconds of this process and of the binary over a block."""

    def __init__(self, binary_cpu) -> None:  # type: ignore[no-untyped-def]
        self.binary_cpu = binary_cpu

    def __enter__(self) -> "Cpu":
        self.c0, self.b0 = time.process_time(), self.binary_cpu()
        return self

    def __exit__(self, *exc: object) -> None:
        self.client, self.binary = time.process_time() - self.c0, self.binary_cpu() - self.b0


def cli_rate(path: str, n: int, args: list[str], cpu: list[tuple[float, float]] | None = None) -> float:
    with open(path) as stdin, tempfile.TemporaryFile() as out:
        with Cpu(children_cpu) as c:
            t = time.monotonic()
            subprocess.run([BIN, "batch", *args], stdin=stdin, stdout=out, check=True)
            wall = time.monotonic() - t
        out.seek(0)
        recs = [json.loads(line) for line in out]
    bad = [r for r in recs if r["status"] != "ok"]
    if len(recs) != n or bad:
        sys.exit(f"batch {args}: {len(recs)} records, first bad: {bad[:1]}")
    if cpu is not None:
        cpu.append((c.client, c.binary))
    return n / wall


def driven_rate(path: str, n: int, args: list[str], cpu: list[tuple[float, float]]) -> float:
    """A Python program driving `backyard-ls batch`: it writes the lines
    (from a thread) and parses every result line."""
    import threading

    with open(path, "rb") as f:
        data = f.read()
    c = Cpu(children_cpu).__enter__()
    t = time.monotonic()
    p = subprocess.Popen([BIN, "batch", *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert p.stdin is not None and p.stdout is not None

    def feed() -> None:
        assert p.stdin is not None
        p.stdin.write(data)
        p.stdin.close()

    th = threading.Thread(target=feed)
    th.start()
    ok = sum(1 for line in p.stdout if json.loads(line)["status"] == "ok")
    th.join()
    p.wait()
    wall = time.monotonic() - t
    c.__exit__()
    cpu.append((c.client, c.binary))
    if ok != n:
        sys.exit(f"driven batch: {ok} ok of {n}")
    return n / wall


def api_rate(n: int, code, cpu: list[tuple[float, float]] | None = None, **kw) -> float:  # type: ignore[no-untyped-def]
    pid = connection(BIN).pid
    with Cpu(lambda: proc_cpu(pid)) as c:
        t = time.monotonic()
        ok = sum(1 for r in run_batch(({"id": i, "code": code(i)} for i in range(n)), binary=BIN, **kw) if r.status == "ok")
        wall = time.monotonic() - t
    if cpu is not None:
        cpu.append((c.client, c.binary))
    if ok != n:
        sys.exit(f"run_batch {kw}: {ok} ok of {n}")
    return n / wall


def row_batch() -> None:
    code = lambda i: f"{i} + 1"  # noqa: E731
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "in.jsonl")
        write_jsonl(path, BATCH_N, code)
        ours, cli, driven = [], [], []
        cpu: dict[str, list[tuple[float, float]]] = {"ours": [], "cli": [], "driven": []}
        args = ["--backend", "monty", "--parallel", "2"]
        run_batch(["1"], backend="monty", binary=BIN)  # the server up
        for i in range(REPEAT):
            runs = [
                lambda: ours.append(api_rate(BATCH_N, code, cpu["ours"], backend="monty", parallel=2)),
                lambda: cli.append(cli_rate(path, BATCH_N, args, cpu["cli"])),
                lambda: driven.append(driven_rate(path, BATCH_N, args, cpu["driven"])),
            ]
            for run in runs[i % 3:] + runs[:i % 3]:
                run()
    us = {k: {"client_us": statistics.median(c for c, _ in v) / BATCH_N * 1e6, "binary_us": statistics.median(b for _, b in v) / BATCH_N * 1e6,
              "total_us": statistics.median(c + b for c, b in v) / BATCH_N * 1e6} for k, v in cpu.items()}
    emit({"row": "batch", "n": BATCH_N, "ours_per_s": statistics.median(ours), "cli_per_s": statistics.median(cli),
          "cli_driven_per_s": statistics.median(driven), "cpu_per_snippet": us, "samples": {"ours": ours, "cli": cli, "driven": driven}})


def row_numpy() -> None:
    code = lambda i: NUMPY  # noqa: E731
    for runtime, n in (("runc", NUMPY_N), ("runsc", max(NUMPY_N // 3, 50))):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "in.jsonl")
            write_jsonl(path, n, code)
            ours, cli = [], []
            for _ in range(REPEAT):
                ours.append(api_rate(n, code, backend="container", image=IMAGE, runtime=runtime, preload=["numpy"], parallel=2))
                cli.append(cli_rate(path, n, ["--backend", "container", "--image", IMAGE, "--runtime", runtime, "--preload", "numpy", "--parallel", "2"]))
        emit({"row": "numpy-" + runtime, "n": n, "ours_per_s": statistics.median(ours), "cli_per_s": statistics.median(cli),
              "samples": {"ours": ours, "cli": cli}})


if __name__ == "__main__":
    for r in ROWS:
        {"run": row_run, "batch": row_batch, "numpy": row_numpy}[r]()
