#!/usr/bin/env bash
# Installs what the editor tests need: Debian's Neovim (0.7.2 on Debian 12).
# Node.js and npm are expected on the machine; the VS Code extension's
# packages come from `npm ci`. Idempotent.
set -euo pipefail
if ! command -v nvim >/dev/null; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends neovim >/dev/null
fi
nvim --version | head -1
command -v node >/dev/null || { echo "Node.js is missing (the VS Code extension's tests need Node 20 and npm)" >&2; exit 1; }
node --version
