#!/usr/bin/env bash
# The Python API against its peers in one run (bench/python_api.py says
# what and against which peer): a trivial run on a warm Monty sandbox
# against pydantic-monty 1.4.0's own bindings and a Jupyter kernel, and
# run_batch against `backyard-ls batch` on the same input (Monty; numpy in
# containers on runc and runsc). Prints medians, ratios and the machine's
# load. The wheel is built and installed into a cached venv with
# pydantic-monty==1.4.0. Arguments: rows (run, batch, numpy; default all).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! /usr/bin/python3 -c 'import jupyter_client, ipykernel' 2>/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-ipykernel python3-jupyter-client >/dev/null
fi
uv=$(scripts/get-uv.sh)
export UV_NO_PROGRESS=1 PIP_DISABLE_PIP_VERSION_CHECK=1
version=$(cat cmd/backyard-ls/VERSION)
scripts/build-wheels.sh "$(go env GOOS)/$(go env GOARCH)" >/dev/null
venv=.cache/bench-python
[ -x "$venv/bin/python" ] || "$uv" venv --quiet --seed "$venv"
"$venv/bin/python" -m pip install --quiet --force-reinstall --no-deps --find-links dist "backyard-ls==$version"
"$venv/bin/python" -m pip install --quiet --find-links dist "backyard-ls==$version" pydantic-monty==1.4.0
bin=$venv/bin/backyard-ls
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
rows=("$@")
[ ${#rows[@]} -gt 0 ] || rows=(run batch numpy)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
"$venv/bin/python" bench/python_api.py "$bin" "${rows[@]}" | tee "$out/rows.jsonl" >&2
if [[ " ${rows[*]} " == *" run "* ]]; then
  /usr/bin/python3 bench/jupyter_peer.py --cells "${BENCH_RUNS:-500}" --starts 1 --prints 1 2>/dev/null >>"$out/rows.jsonl"
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
"$venv/bin/python" - "$out/rows.jsonl" "$load_before" "$load_after" "$(nproc)" <<'PY'
import json, sys
rows = {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    rows[r.get("row") or r.get("peer")] = r
if "run" in rows:
    r = rows["run"]
    print(f"trivial run('x + 1'), warm Monty session, {r['n']} runs each, medians (p90) in ms:")
    print(f"  backyard_ls Sandbox.run          {r['ours_ms']:.4f} ({r['ours_p90_ms']:.4f})")
    print(f"  pydantic-monty 1.4.0 feed_run    {r['pydantic_monty_ms']:.4f} ({r['pydantic_monty_p90_ms']:.4f})   ours / theirs = {r['ours_ms'] / r['pydantic_monty_ms']:.2f}x")
    if "jupyter" in rows:
        j = rows["jupyter"]
        print(f"  Jupyter kernel execute           {j['cell_ms']:.4f} ({j['cell_p90_ms']:.4f})   {j['cell_ms'] / r['ours_ms']:.1f}x slower than ours")
    if "cpu_per_call_us" in r:
        u = r["cpu_per_call_us"]
        print("  CPU per call over all rounds, µs: Python process + binary + workers = total")
        for k, name in (("ours", "backyard_ls Sandbox.run"), ("pydantic_monty", "pydantic-monty feed_run")):
            print(f"    {name:24s} {u[k]['client']:6.1f} + {u[k]['binary']:6.1f} + {u[k]['workers']:6.1f} = {u[k]['total']:6.1f}")
if "batch" in rows:
    r = rows["batch"]
    print(f"run_batch of {r['n']} trivial snippets (Monty, parallel 2), medians in snippets/s:")
    print(f"  run_batch                        {r['ours_per_s']:.0f}")
    print(f"  backyard-ls batch (file to file) {r['cli_per_s']:.0f}   ours = {100 * r['ours_per_s'] / r['cli_per_s']:.0f}% of it")
    print(f"  backyard-ls batch from Python    {r['cli_driven_per_s']:.0f}   ours = {100 * r['ours_per_s'] / r['cli_driven_per_s']:.0f}% of it")
    if "cpu_per_snippet" in r:
        u = r["cpu_per_snippet"]
        print("  CPU per snippet, medians in µs: Python process + binary (with its workers) = total")
        for k, name in (("ours", "run_batch"), ("cli", "batch (file to file)"), ("driven", "batch from Python")):
            print(f"    {name:22s} {u[k]['client_us']:6.2f} + {u[k]['binary_us']:6.2f} = {u[k]['total_us']:6.2f}")
        print(f"  batch's total / ours = {100 * u['cli']['total_us'] / u['ours']['total_us']:.0f}% (the rate ours would have, CPU-bound)")
for rt in ("runc", "runsc"):
    k = "numpy-" + rt
    if k in rows:
        r = rows[k]
        print(f"numpy snippets in containers ({rt}, preload numpy, parallel 2), {r['n']} each, medians in snippets/s:")
        print(f"  run_batch {r['ours_per_s']:.1f}, backyard-ls batch {r['cli_per_s']:.1f}   ours = {100 * r['ours_per_s'] / r['cli_per_s']:.0f}% of it")
print(f"load average (1/5/15 min) before {sys.argv[2]}, after {sys.argv[3]}; {sys.argv[4]} CPUs")
PY
