#!/usr/bin/env bash
# The round trip of a trivial cell over LSP against its floor and Jupyter,
# in one run, idle and under load: bench/roundtrip.py drives bench/floor (a
# minimal Go responder), `backyard-ls serve` and an ipykernel with the same
# client. Needs the worker (make setup) and Debian's python3-ipykernel and
# python3-jupyter-client (installed when missing). Env: BENCH_N.
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
export PYDEVD_DISABLE_FILE_VALIDATION=1 # the ipykernel peer's debugger warnings
echo "idle:"
/usr/bin/python3 bench/roundtrip.py --server bin/backyard-ls --floor "$tmp/floor" -n "$n"
echo "loaded (one busy process per CPU):"
/usr/bin/python3 bench/roundtrip.py --server bin/backyard-ls --floor "$tmp/floor" -n "$n" --load
