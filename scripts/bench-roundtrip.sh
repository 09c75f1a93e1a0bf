#!/usr/bin/env bash
# The round trip of a trivial cell over LSP against its floor and Jupyter,
# in one run, idle and under load: bench/roundtrip.py drives bench/floor (a
# minimal Go responder; also with a run's notifications and with a real
# Monty round trip, which split the gap), `backyard-ls serve` and an
# ipykernel with the same client. Needs the worker (make setup) and
# Debian's python3-ipykernel and python3-jupyter-client (installed when
# missing). Env: BENCH_N.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! /usr/bin/python3 -c 'import jupyter_client, ipykernel' 2>/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-ipykernel python3-jupyter-client >/dev/null
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o bin/backyard-ls ./cmd/backyard-ls
go build -o "$tmp/floor" ./bench/floor
n="${BENCH_N:-2000}"
# The worker the server finds (doctor exits 1 without a container engine,
# which this benchmark does not need).
worker="$( (bin/backyard-ls doctor --json || true) | python3 -c 'import json, sys; print(json.load(sys.stdin)["monty"]["path"])')"
export PYDEVD_DISABLE_FILE_VALIDATION=1 # the ipykernel peer's debugger warnings
echo "idle:"
/usr/bin/python3 bench/roundtrip.py --server bin/backyard-ls --floor "$tmp/floor" --monty "$worker" -n "$n"
echo "loaded (one busy process per CPU):"
/usr/bin/python3 bench/roundtrip.py --server bin/backyard-ls --floor "$tmp/floor" --monty "$worker" -n "$n" --load
