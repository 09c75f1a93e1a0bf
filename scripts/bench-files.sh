#!/usr/bin/env bash
# Measures reading a 1 MiB file beside the notebook on each backend against
# plain CPython in the same run (kernel/kernels BenchmarkRead1MiB) and
# prints the medians and the ratios. Needs the worker (make setup), the
# engine and the test image. Env: BENCH_N (cells per backend, default 200).
set -euo pipefail
cd "$(dirname "$0")/.."
n="${BENCH_N:-200}"
go test -run '^$' -bench '^BenchmarkRead1MiB$' -benchtime "${n}x" ./kernel/kernels | python3 -c '
import re, sys
rows = {}
for line in sys.stdin:
    m = re.match(r"BenchmarkRead1MiB/(\w+)-\d+\s+\d+\s+\d+ ns/op\s+(.*)", line)
    if m:
        rows[m.group(1)] = {k: float(v) for v, k in re.findall(r"([\d.]+) ([\w-]+)", m.group(2))}
base = rows.get("cpython", {}).get("net-ms")
print("read of a 1 MiB file, medians (%s cells each)" % sys.argv[1])
print("%-8s %10s %10s %10s %12s" % ("kernel", "cell ms", "empty ms", "read ms", "x CPython"))
for name in ("monty", "runc", "runsc", "cpython"):
    r = rows.get(name)
    if not r:
        continue
    ratio = "%.1f" % (r["net-ms"] / base) if base else "-"
    print("%-8s %10.3f %10s %10.3f %12s" % (name, r["read-ms"], "%.3f" % r["cell-ms"] if "cell-ms" in r else "-", r["net-ms"], ratio))
' "$n"
