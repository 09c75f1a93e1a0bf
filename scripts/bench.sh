#!/usr/bin/env bash
# Measures backyard-ls against a Jupyter kernel in the same run and prints
# medians and ratios. Needs the Monty worker (make setup); installs Debian's
# python3-ipykernel and python3-jupyter-client for the peer when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! /usr/bin/python3 -c 'import jupyter_client, ipykernel' 2>/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-ipykernel python3-jupyter-client >/dev/null
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
n="${BENCH_N:-1000}"
echo "Go benchmarks (kernel, monty)..." >&2
go test -run '^$' -bench 'TrivialCell$|ColdStart|Print1000$|RunBatch|KernelRSS|InterruptRecovery' -benchtime "${n}x" ./kernel >"$out/kernel.txt"
go test -run '^$' -bench 'Dump' ./monty >"$out/monty.txt"
if ls lsp/*_test.go >/dev/null 2>&1 && grep -q 'func BenchmarkRunCellStdio' lsp/*_test.go; then
  echo "Go benchmarks (lsp over stdio)..." >&2
  go test -run '^$' -bench 'Stdio' -benchtime "${n}x" ./lsp >"$out/lsp.txt"
fi
echo "Jupyter peer..." >&2
/usr/bin/python3 bench/jupyter_peer.py >"$out/jupyter.json" 2>/dev/null
cat "$out"/*.txt | grep -E '^Benchmark' >&2 || true
python3 bench/report.py "$out"
