#!/usr/bin/env bash
# The MCP tool's round trip in one run against its peers: run_python of a
# trivial cell through the real Python MCP client (stdio and streamable
# HTTP, Monty backend), the same cell through pydantic-monty's own Python
# bindings (a pool of the same worker) and through a Jupyter kernel
# (bench/jupyter_peer.py). Medians and p90 in ms, ratios, and how loaded
# the machine was before and after. Env: BENCH_N (cells, default 500).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! /usr/bin/python3 -c 'import jupyter_client, ipykernel' 2>/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-ipykernel python3-jupyter-client >/dev/null
fi
n="${BENCH_N:-500}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
go build -o "$out/backyard-ls" ./cmd/backyard-ls
py="$(go run ./mcp/mcptest/venv)"
worker="$("$out/backyard-ls" doctor --json | "$py" -c 'import json,sys; print(json.load(sys.stdin)["monty"]["path"])')"
load_before="$(cut -d' ' -f1-3 /proc/loadavg)"
echo "MCP client and pydantic-monty..." >&2
"$py" bench/mcp_peer.py --server "$out/backyard-ls" --monty "$worker" --cells "$n" >"$out/mcp.jsonl"
echo "in-process and kernel-only..." >&2
go test -run '^$' -bench '^BenchmarkRunPythonInProcess$' -benchtime "${n}x" ./mcp >"$out/go.txt"
go test -run '^$' -bench '^BenchmarkTrivialCell$' -benchtime "${n}x" ./kernel/montykernel >>"$out/go.txt"
echo "Jupyter kernel..." >&2
/usr/bin/python3 bench/jupyter_peer.py --cells "$n" --starts 1 --prints 1 >>"$out/mcp.jsonl" 2>/dev/null
load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
"$py" - "$out/mcp.jsonl" "$load_before" "$load_after" "$(nproc)" "$out/go.txt" <<'PY'
import json, re, sys
rows = {r["peer"]: r for r in map(json.loads, open(sys.argv[1]))}
for line in open(sys.argv[5]):
    m = re.match(r"Benchmark(\w+)-\d+\s+(\d+)\s.*?([\d.]+) median-µs\s+([\d.]+) p90-µs", line)
    if m:
        rows[m[1]] = {"cell_ms": float(m[3]) / 1e3, "cell_p90_ms": float(m[4]) / 1e3, "n": int(m[2])}
ours = rows["mcp-stdio"]["cell_ms"]
print(f"trivial cell (x = x + 1), {rows['mcp-stdio']['n']} cells each; medians in ms")
print(f"{'path':<52} {'median':>9} {'p90':>9} {'vs MCP stdio':>13}")
names = {
    "mcp-stdio": "run_python, Python MCP client, stdio (" + rows["mcp-stdio"]["protocol"] + ")",
    "mcp-http": "run_python, Python MCP client, HTTP (" + rows["mcp-http"]["protocol"] + ")",
    "pydantic-monty": "pydantic-monty 1.4.0 feed_run (same worker)",
    "jupyter": "Jupyter kernel execute (ipykernel)",
    "RunPythonInProcess": "run_python, Go SDK client, in-process",
    "TrivialCell": "Monty kernel alone (no protocol)",
}
for k, label in names.items():
    r = rows[k]
    print(f"{label:<52} {r['cell_ms']:9.3f} {r['cell_p90_ms']:9.3f} {r['cell_ms'] / ours:12.2f}x")
print(f"load average (1/5/15 min) before {sys.argv[2]}, after {sys.argv[3]}; {sys.argv[4]} CPUs")
PY
