#!/usr/bin/env python3
"""Turns Go benchmark output and peer JSON into one table of medians and ratios.

Usage: bench/report.py DIR   (DIR holds *.txt Go benchmark output and *.json peer results)
"""
import glob
import json
import os
import re
import sys

LINE = re.compile(r"^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$")


def go_metrics(path):
    out = {}
    for line in open(path):
        m = LINE.match(line.strip())
        if not m:
            continue
        name, rest = m.groups()
        vals = re.findall(r"([\d.]+) (\S+)", rest)
        out[name] = {unit: float(v) for v, unit in vals}
    return out


def median_ms(b):
    """The benchmark's per-operation median in ms, whatever unit it used."""
    if b is None:
        return None
    for unit, scale in (("median-µs", 1e-3), ("median-ms", 1.0), ("ms-median", 1.0)):
        if unit in b:
            return b[unit] * scale
    return None


def main():
    d = sys.argv[1]
    bench = {}
    for p in sorted(glob.glob(os.path.join(d, "*.txt"))):
        bench.update(go_metrics(p))
    peers = {}
    for p in sorted(glob.glob(os.path.join(d, "*.json"))):
        for line in open(p):
            line = line.strip()
            if line.startswith("{"):
                r = json.loads(line)
                peers[r["peer"]] = r
    jup = peers.get("jupyter", {})

    def row(name, key, peer=None, base=None):
        ours = median_ms(bench.get(key))
        if ours is None:
            return
        theirs = jup.get(peer) if peer else (median_ms(bench.get(base)) if base else None)
        t = f"{theirs:10.3f}" if theirs else f"{'-':>10}"
        r = f"{theirs / ours:7.1f}x" if theirs and ours else f"{'-':>8}"
        print(f"{name:<52} {ours:12.3f} {t} {r}")

    print(f"{'metric (medians, ms)':<52} {'backyard-ls':>12} {'peer':>10} {'peer/ours':>8}")
    print("-- Monty kernel (peer: Jupyter kernel, same run)")
    row("trivial cell through Kernel", "BenchmarkTrivialCell", "cell_ms")
    row("kernel cold start", "BenchmarkColdStart", "cold_start_ms")
    row("1000 printed lines", "BenchmarkPrint1000", "print1000_ms")
    row("interrupt a running loop + next result", "BenchmarkInterruptRecovery")
    print("-- language server over stdio (peer: Jupyter execute round trip)")
    for sub in sorted(k for k in bench if k.startswith("BenchmarkRunCellStdio/")):
        row("runCell round trip, trivial cell, " + sub.split("/", 1)[1], sub, "cell_ms")
    row("1000 printed lines end to end", "BenchmarkPrint1000LinesStdio", "print1000_ms")
    print("-- container kernel (peer: bare `docker run … python3 -c pass`)")
    for rt in ("runc", "runsc"):
        row(f"cold start, {rt}", f"BenchmarkContainerColdStart/{rt}", base=f"BenchmarkDockerRun/{rt}")
        row(f"warm trivial cell, {rt} (peer: Jupyter)", f"BenchmarkContainerCell/{rt}", "cell_ms")
        row(f"1000 printed lines, {rt} (peer: Jupyter)", f"BenchmarkContainerPrint1000/{rt}", "print1000_ms")
    print("-- auto mode: the cell that moves a document (examples/auto/measurements.py)")
    row("same cell on a running container (no move)", "BenchmarkAutoMove/baseline")
    row("move, cold (peer: no move)", "BenchmarkAutoMove/cold", base="BenchmarkAutoMove/baseline")
    row("move, pre-warmed (peer: no move)", "BenchmarkAutoMove/prewarmed", base="BenchmarkAutoMove/baseline")
    for sub in sorted(k for k in bench if k == "BenchmarkRunBatch" or k.startswith("BenchmarkRunBatch/")):
        label = "RunBatch throughput, 2 workers" + (", " + sub.split("/", 1)[1] if "/" in sub else "")
        print(f"{label + ' (snippets/s)':<52} {bench[sub].get('snippets/s', 0):12.0f}")
    if "BenchmarkKernelRSS" in bench:
        print(f"{'Monty worker peak RSS (MiB; peer: Jupyter kernel RSS)':<52} {bench['BenchmarkKernelRSS'].get('worker-peak-rss-MiB', 0):12.1f} {jup.get('kernel_rss_mib', 0):10.1f}")
    for name, b in sorted(bench.items()):
        if name.startswith("BenchmarkDump"):
            print(f"{'snapshot ' + name[len('BenchmarkDump/'):] + ' (ms; bytes)':<52} {b.get('ns/op', 0) / 1e6:12.3f} {b.get('bytes', 0):10.0f}")


if __name__ == "__main__":
    main()
