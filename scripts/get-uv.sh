#!/usr/bin/env bash
# Prints the path of uv (from PyPI), the pinned release, installed under the
# cache dir when missing (pip --target: no venv module needed, as on a bare
# Debian). Reused when already there.
# Env: BACKYARD_CACHE (default ${XDG_CACHE_HOME:-~/.cache}/backyard-ls).
set -eu
version=0.13.9
dir=${BACKYARD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/backyard-ls}/uv-$version
if [ ! -x "$dir/bin/uv" ]; then
  python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$dir" "uv==$version" >&2
fi
"$dir/bin/uv" --version >/dev/null
echo "$dir/bin/uv"
