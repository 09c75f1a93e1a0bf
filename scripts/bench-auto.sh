#!/usr/bin/env bash
# Measures auto mode on the standard-library corpus (corpus/stdlib) and the
# cost of its checks, in one run:
#   * cells identical to CPython and the share Monty served, for this
#     checkout and for BASE (a git revision, default main: the router before),
#     each built into a temporary directory and run by scripts/differential.py;
#   * the time a confirmed Monty error costs (BenchmarkConfirmedError: the
#     error cell on Monty alone, in auto mode with the container pre-warmed,
#     and cold) and a move (BenchmarkAutoMove), as medians.
# Needs the worker (make setup), the engine and the test image.
# Env: BENCH_N (benchmark iterations, default 10).
set -euo pipefail
cd "$(dirname "$0")/.."
base="${1:-main}"
n="${BENCH_N:-10}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

echo "building this checkout and $base..." >&2
go build -o "$out/after" ./cmd/backyard-ls
mkdir "$out/base"
git archive "$base" | tar -x -C "$out/base"
(cd "$out/base" && go build -o "$out/before" ./cmd/backyard-ls)

for which in before after; do
  echo "corpus/stdlib in auto mode ($which)..." >&2
  scripts/differential.py --backend auto --bin "$out/$which" --json "$out/$which.json" corpus/stdlib >"$out/$which.txt" || true
done

echo "benchmarks..." >&2
go test -run '^$' -bench '^(BenchmarkConfirmedError|BenchmarkAutoMove)$' -benchtime "${n}x" ./kernel/auto >"$out/bench.txt"

python3 - "$out" "$base" <<'EOF'
import json, os, re, sys
out, base = sys.argv[1], sys.argv[2]
print("corpus/stdlib in auto mode")
print("%-28s %6s %10s %16s %14s" % ("", "cells", "identical", "served by Monty", "with no check"))
for which, label in (("before", "before (%s)" % base), ("after", "after (this checkout)")):
    rows = json.load(open(os.path.join(out, which + ".json")))
    n = len(rows)
    same = sum(r["identical"] for r in rows)
    monty = sum(r["backend"] == "monty" for r in rows)
    alone = sum(r["backend"] == "monty" and not r["rule"] for r in rows)
    print("%-28s %6d %10d %9d (%4.1f%%) %14d" % (label, n, same, monty, 100 * monty / n, alone))
print()
med = {}
for line in open(os.path.join(out, "bench.txt")):
    m = re.match(r"Benchmark(\S+?)-\d+\s.*?([\d.]+) median-(ms|µs)", line)
    if m:
        v = float(m.group(2)) / (1000 if m.group(3) == "µs" else 1)
        med[m.group(1)] = v
print("the cell that raises (medians, ms)")
for kind in ("message", "same"):
    mo, pre, cold = (med.get("ConfirmedError/%s/%s" % (kind, w)) for w in ("monty", "prewarmed", "cold"))
    if None in (mo, pre, cold):
        continue
    what = {"message": "ZeroDivisionError, CPython's message shown", "same": "ValueError, confirmed"}[kind]
    print("  %-44s Monty alone %7.2f  pre-warmed %8.1f (+%.1f)  cold %8.1f (+%.1f)" % (what, mo, pre, pre - mo, cold, cold - mo))
print("a move (examples/auto/measurements.py, medians, ms)")
for w in ("baseline", "prewarmed", "cold"):
    v = med.get("AutoMove/" + w)
    if v is not None:
        print("  %-10s %8.1f" % (w, v))
EOF
