"""backyard_ls.ray against `backyard-ls batch` alone, in one run
(scripts/bench-ray.sh starts the two-node local Ray cluster and runs this).

Rows, each the same N snippets (Monty) through:
  batch      `backyard-ls batch --backend monty --parallel 2` (a file in, a
             file out): the peer
  ray-pool   backyard_ls.ray.Pool(...).run_batch on a pool started once (one
             actor per node, each a lane with parallel 1: 2 in all), its
             lanes warm
  ray-cold   backyard_ls.ray.run_batch: the actors started and stopped in the
             call
  ray-read   ray-pool, each result's value read too (a result's status, and
             a plain value, are read off its record's line; anything else
             decodes the chunk's records)
for trivial snippets (`i + 1`) and for snippets that compute for about a
millisecond. Runs alternate the peers so load hits them alike.

Prints one JSON object per row with medians (and every sample), and the
CPU each snippet cost (medians, µs; read from /proc, so robust to the
machine's load): batch's own process and its Monty workers, and for
ray-pool and ray-read the driver, the actors' processes and their lanes
(the batch processes under them).

Usage: bench/ray_batch.py BINARY ADDRESS
Env: BENCH_REPEAT (runs per row, default 5), BENCH_TRIVIAL_N (default
50000), BENCH_WORK_N (default 5000).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable

import ray

from backyard_ls.ray import Pool, run_batch

BIN = os.path.abspath(sys.argv[1])
ADDRESS = sys.argv[2]
REPEAT = int(os.environ.get("BENCH_REPEAT", "5"))
KINDS: dict[str, tuple[int, Callable[[int], str]]] = {
    "trivial": (int(os.environ.get("BENCH_TRIVIAL_N", "50000")), lambda i: f"{i} + 1"),
    "work": (int(os.environ.get("BENCH_WORK_N", "5000")), lambda i: f"sum(k * k for k in range({i % 7} + 3000))"),
}


TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pids: list[int]) -> float:
    """CPU seconds the processes have used (their threads', and their
    children's that they waited for)."""
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += sum(int(x) for x in fields[11:15])
    return total / TICK


def tree(pid: int) -> list[int]:
    """pid's live descendants."""
    parents: dict[int, int] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    parents[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError):
                pass
    out: list[int] = []
    todo = [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parents.items() if pp == p]
        out += kids
        todo += kids
    return out


def batch_rate(path: str, n: int, cpu: dict[str, list[float]]) -> float:
    with open(path) as stdin, tempfile.TemporaryFile() as out:
        before = os.times()
        t = time.monotonic()
        subprocess.run([BIN, "batch", "--backend", "monty", "--parallel", "2"], stdin=stdin, stdout=out, check=True)
        wall = time.monotonic() - t
        after = os.times()
        out.seek(0)
        ok = sum(1 for line in out if json.loads(line)["status"] == "ok")
    if ok != n:
        sys.exit(f"batch: {ok} ok of {n}")
    cpu.setdefault("batch", []).append(1e6 * (after.children_user + after.children_system - before.children_user - before.children_system) / n)
    return n / wall


def ray_rate(run: Callable[[list[str]], object], codes: list[str], read: bool = False,
             actors: list[int] | None = None, cpu: dict[str, list[float]] | None = None) -> float:
    lanes = [p for a in actors or [] for p in tree(a)]
    before = (time.process_time(), cpu_of(actors or []), cpu_of(lanes))
    t = time.monotonic()
    if read:
        ok = sum(1 for r in run(codes) if r.status == "ok" and r.value is not None)  # type: ignore[attr-defined]
    else:
        ok = sum(1 for r in run(codes) if r.status == "ok")  # type: ignore[attr-defined]
    wall = time.monotonic() - t
    after = (time.process_time(), cpu_of(actors or []), cpu_of(lanes))
    if ok != len(codes):
        sys.exit(f"ray: {ok} ok of {len(codes)}")
    if cpu is not None:
        for k, b, a in zip(("driver", "actors", "lanes"), before, after):
            cpu.setdefault(k, []).append(1e6 * (a - b) / len(codes))
    return len(codes) / wall


def main() -> None:
    ray.init(address=ADDRESS, log_to_driver=False)
    nodes = [n for n in ray.nodes() if n["Alive"]]
    # num_cpus=0: the pool's actors and run_batch's hold no CPU of the
    # one-CPU nodes, so both can be up at once.
    with Pool(backend="monty", binary=BIN, num_cpus=0) as pool, tempfile.TemporaryDirectory() as d:
        pids = [pid for _, pid in ray.get([a.handle.ready.remote() for a in pool.actors])]
        for kind, (n, code) in KINDS.items():
            codes = [code(i) for i in range(n)]
            path = os.path.join(d, kind + ".jsonl")
            with open(path, "w") as f:
                for i, c in enumerate(codes):
                    f.write(json.dumps({"id": i, "code": c}) + "\n")
            samples: dict[str, list[float]] = {"batch": [], "ray-pool": [], "ray-read": [], "ray-cold": []}
            cpu: dict[str, dict[str, list[float]]] = {"batch": {}, "ray-pool": {}, "ray-read": {}}
            for _ in range(REPEAT):
                samples["batch"].append(batch_rate(path, n, cpu["batch"]))
                samples["ray-pool"].append(ray_rate(lambda c: pool.run_batch(c), codes, actors=pids, cpu=cpu["ray-pool"]))
                samples["ray-read"].append(ray_rate(lambda c: pool.run_batch(c), codes, read=True, actors=pids, cpu=cpu["ray-read"]))
                samples["ray-cold"].append(ray_rate(lambda c: run_batch(c, backend="monty", binary=BIN, num_cpus=0), codes))
            med = {k: statistics.median(v) for k, v in samples.items()}
            cpu_med = {row: {k: statistics.median(v) for k, v in parts.items()} for row, parts in cpu.items()}
            print(json.dumps({"kind": kind, "n": n, "nodes": len(nodes), "actors": len(pool.actors),
                              "per_s": med, "cpu_us": cpu_med, "samples": samples}), flush=True)


if __name__ == "__main__":
    main()
