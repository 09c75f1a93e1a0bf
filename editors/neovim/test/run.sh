#!/usr/bin/env bash
# Runs the Neovim plugin's tests headless against the real server.
#   BACKYARD_LS  the server binary (default: built with go into a temp dir)
#   NVIM         the Neovim binary (default: nvim)
# Each test file runs in its own Neovim; every test prints "ok" or "FAIL",
# and the last line is "N passed, N failed". Exits 1 on any failure.
set -u
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../../.." && pwd)
NVIM=${NVIM:-nvim}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if ! command -v "$NVIM" >/dev/null 2>&1; then
  echo "run.sh: Neovim not found: $NVIM (set NVIM=/path/to/nvim)" >&2
  exit 2
fi
if [ -z "${BACKYARD_LS:-}" ]; then
  echo "run.sh: building backyard-ls"
  (cd "$repo" && go build -o "$tmp/build/backyard-ls" ./cmd/backyard-ls) || exit 2
  BACKYARD_LS=$tmp/build/backyard-ls
fi
if [ ! -x "$BACKYARD_LS" ]; then
  echo "run.sh: BACKYARD_LS=$BACKYARD_LS is not an executable" >&2
  exit 2
fi
# The plugin's default cmd is {"backyard-ls", "serve"}: put it on PATH.
mkdir -p "$tmp/bin"
ln -s "$(cd "$(dirname "$BACKYARD_LS")" && pwd)/$(basename "$BACKYARD_LS")" "$tmp/bin/backyard-ls"
export PATH="$tmp/bin:$PATH"
export BACKYARD_REPO=$repo
# The server finds the Monty worker in $XDG_DATA_HOME (make setup puts it
# there); pin it before that variable is pointed at the temp dir.
if [ -z "${MONTY_BIN:-}" ]; then
  m=${XDG_DATA_HOME:-$HOME/.local/share}/backyard-ls/monty/bin/monty
  if [ -x "$m" ]; then export MONTY_BIN=$m; fi
fi
# Keep Go's build cache (it lives under XDG_CACHE_HOME by default).
if command -v go >/dev/null 2>&1; then export GOCACHE=${GOCACHE:-$(go env GOCACHE)}; fi
# Nothing of the user's: config, data, state.
export XDG_CONFIG_HOME=$tmp/config XDG_DATA_HOME=$tmp/data XDG_STATE_HOME=$tmp/state XDG_CACHE_HOME=$tmp/cache

echo "run.sh: $("$NVIM" --version | head -1), server $BACKYARD_LS"
passed=0 failed=0
files=("$here"/test_*.lua)
if [ $# -gt 0 ]; then files=("$@"); fi
for f in "${files[@]}"; do
  log=$tmp/$(basename "$f").log
  timeout 120 "$NVIM" --headless -i NONE -u "$here/minimal_init.lua" \
    -c "lua require('backyard_test').main([[$f]])" </dev/null >"$log" 2>"$log.err"
  rc=$?
  grep -E '^(ok|FAIL|skip|     )' "$log"
  p=$(grep -c '^ok ' "$log")
  n=$(grep -c '^FAIL ' "$log")
  if [ "$rc" -ne 0 ] && [ "$n" -eq 0 ]; then
    echo "FAIL $(basename "$f" .lua): Neovim exited with $rc"
    cat "$log" "$log.err" | sed 's/^/     /' | tail -20
    n=1
  fi
  passed=$((passed + p)) failed=$((failed + n))
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
