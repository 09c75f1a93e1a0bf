#!/usr/bin/env bash
# backyard_ls.ray.run_batch on a Ray cluster of two nodes on this machine
# (one CPU each, started as scripts/test-ray.sh does and always stopped)
# against `backyard-ls batch` alone on the same snippets, in one run
# (bench/ray_batch.py says what). Prints medians, the overhead of Ray
# against batch, and the machine's load. The wheel with its [ray] extra is
# installed into a fresh venv as for scripts/test-ray.sh. (-P:
# bench/http.py must not shadow the standard library's http.)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
tmp=$(mktemp -d)
venv=$tmp/venv
cluster=$tmp/c
trap '[ -x "$venv/bin/python" ] && "$venv/bin/python" "$repo/packaging/python/tests/ray_cluster.py" down "$cluster"; rm -rf "$tmp"' EXIT
scripts/wheel-venv.sh "$venv" "backyard-ls[ray]" -r packaging/python/tests/requirements-ray.txt
mkdir -p "$cluster"
address=$("$venv/bin/python" packaging/python/tests/ray_cluster.py up "$cluster" 2)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
"$venv/bin/python" -P bench/ray_batch.py "$venv/bin/backyard-ls" "$address" | tee "$tmp/rows.jsonl" >&2
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
"$venv/bin/python" - "$tmp/rows.jsonl" "$load_before" "$load_after" "$(nproc)" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    m = r["per_s"]
    print(f"{r['kind']} snippets, {r['n']} per run, {r['nodes']} Ray nodes ({r['actors']} actors), medians in snippets/s:")
    print(f"  backyard-ls batch --parallel 2     {m['batch']:.0f}")
    for k, what in (("ray-pool", "ray Pool.run_batch (warm lanes)"), ("ray-read", "  the same, values read"),
                    ("ray-cold", "ray run_batch (actors started)")):
        print(f"  {what:34} {m[k]:.0f}   {100 * m[k] / m['batch']:.0f}% of batch, overhead {100 * (m['batch'] / m[k] - 1):.0f}%")
    c = r["cpu_us"]
    print(f"  CPU per snippet (µs): batch {c['batch']['batch']:.1f}; " + "; ".join(
        f"{k} driver {c[k]['driver']:.1f} + actors {c[k]['actors']:.1f} + lanes {c[k]['lanes']:.1f}" for k in ("ray-pool", "ray-read")))
print(f"load average (1/5/15 min) before {sys.argv[2]}, after {sys.argv[3]}; {sys.argv[4]} CPUs")
PY
