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

    def med_ms(name):
        b = bench.get(name)
        return None if b is None or "median-µs" not in b else b["median-µs"] / 1000

    rows = [
        ("trivial cell through Kernel (ms)", med_ms("BenchmarkTrivialCell"), jup.get("cell_ms")),
        ("kernel cold start (ms)", med_ms("BenchmarkColdStart"), jup.get("cold_start_ms")),
        ("1000 printed lines (ms)", med_ms("BenchmarkPrint1000"), jup.get("print1000_ms")),
        ("interrupt + next result (ms)", med_ms("BenchmarkInterruptRecovery"), None),
        ("runCell over stdio, end to end (ms)", med_ms("BenchmarkRunCellStdio"), jup.get("cell_ms")),
        ("1000 lines over stdio, end to end (ms)", med_ms("BenchmarkPrint1000Stdio"), jup.get("print1000_ms")),
    ]
    print(f"{'metric (medians)':<42} {'backyard-ls':>12} {'jupyter':>10} {'ratio':>8}")
    for name, ours, theirs in rows:
        if ours is None:
            continue
        t = f"{theirs:10.3f}" if theirs else f"{'-':>10}"
        r = f"{theirs / ours:7.1f}x" if theirs and ours else f"{'-':>8}"
        print(f"{name:<42} {ours:12.3f} {t} {r}")
    if "BenchmarkRunBatch" in bench:
        print(f"{'RunBatch throughput, 2 workers (snippets/s)':<42} {bench['BenchmarkRunBatch'].get('snippets/s', 0):12.0f}")
    if "BenchmarkKernelRSS" in bench:
        print(f"{'Monty worker peak RSS (MiB)':<42} {bench['BenchmarkKernelRSS'].get('worker-peak-rss-MiB', 0):12.1f} {jup.get('kernel_rss_mib', 0):10.1f}")
    for name, b in sorted(bench.items()):
        if name.startswith("BenchmarkDump"):
            print(f"{'snapshot ' + name[len('BenchmarkDump/'):] + ' (ms, bytes)':<42} {b.get('ns/op', 0) / 1e6:12.3f} {b.get('bytes', 0):10.0f}")


if __name__ == "__main__":
    main()
