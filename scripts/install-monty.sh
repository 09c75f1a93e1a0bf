#!/usr/bin/env bash
# Installs the pinned Monty worker (PyPI pydantic-monty-runtime) into
# backyard-ls's install directory, where `backyard-ls` looks for it after
# --monty and MONTY_BIN. Idempotent.
set -euo pipefail
version="$(sed -n 's/^[[:space:]]*RuntimeVersion = "\(.*\)"/\1/p' "$(dirname "$0")/../monty/doc.go")"
dir="${XDG_DATA_HOME:-$HOME/.local/share}/backyard-ls/monty"
bin="$dir/bin/monty"
if [ -x "$bin" ] && [ "$("$bin" --version 2>/dev/null | awk '{print $NF}')" = "$version" ]; then
  echo "monty $version already installed at $bin"
  exit 0
fi
python3 -m pip install --quiet --disable-pip-version-check --no-deps --upgrade \
  --target "$dir" "pydantic-monty-runtime==$version"
"$bin" --version
