#!/usr/bin/env bash
# Measures backyard-ls against its peers in one run and prints medians and
# ratios: the Monty kernel and the language server against a Jupyter kernel
# (Debian's python3-ipykernel via jupyter_client), the container kernel
# against a bare `docker run`, and the cost of an auto-mode move. Needs the
# worker (make setup); the container rows need the engine and the test image
# (skipped when the engine is unreachable). Installs the Jupyter peer's
# Debian packages when missing. Env: BENCH_N (iterations, default 1000),
# LSP_RSS=1 to also measure the server's memory with 20 documents.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! /usr/bin/python3 -c 'import jupyter_client, ipykernel' 2>/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-ipykernel python3-jupyter-client >/dev/null
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
n="${BENCH_N:-1000}"
echo "Monty kernel..." >&2
go test -run '^$' -bench '^Benchmark(TrivialCell|ColdStart|Print1000)$' -benchtime "${n}x" ./kernel/montykernel >"$out/kernel.txt"
go test -run '^$' -bench '^BenchmarkInterruptRecovery$' -benchtime 100x ./kernel/montykernel >"$out/interrupt.txt"
go test -run '^$' -bench '^BenchmarkRunBatch$' -benchtime 5x ./sandbox >"$out/batch.txt"
go test -run '^$' -bench '^BenchmarkKernelRSS$' -benchtime 1x ./kernel/montykernel >"$out/rss.txt"
go test -run '^$' -bench '^BenchmarkDump' ./monty >"$out/monty.txt"
echo "language server over stdio..." >&2
go test -run '^$' -bench '^Benchmark(RunCell|Print1000Lines)Stdio$' -benchtime "${n}x" ./lsp >"$out/lsp.txt"
if docker info >/dev/null 2>&1; then
  echo "container kernel..." >&2
  go test -run '^$' -bench '^(BenchmarkContainerColdStart|BenchmarkDockerRun)$' -benchtime 10x ./kernel/containerkernel >"$out/container-cold.txt"
  go test -run '^$' -bench '^(BenchmarkContainerCell|BenchmarkContainerPrint1000)$' -benchtime 300x ./kernel/containerkernel >"$out/container-warm.txt"
  echo "auto-mode move..." >&2
  go test -run '^$' -bench '^BenchmarkAutoMove$' -benchtime 5x ./kernel/auto >"$out/auto.txt"
fi
echo "Jupyter peer..." >&2
/usr/bin/python3 bench/jupyter_peer.py >"$out/jupyter.json" 2>/dev/null
python3 bench/report.py "$out"
if [ "${LSP_RSS:-0}" = 1 ]; then
  go run ./scripts/lsp-rss -docs 20
fi
