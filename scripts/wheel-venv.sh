#!/usr/bin/env bash
# Builds this machine's wheel (scripts/build-wheels.sh) and installs it
# with pip into a fresh venv VENV, as a user gets it: REQUIREMENT is what
# pip is asked for (backyard-ls, or with extras: backyard-ls[ray]; this
# commit's version is added), the other arguments go to pip too
# (e.g. -r packaging/python/tests/requirements.txt).
# Usage: scripts/wheel-venv.sh VENV REQUIREMENT [PIP ARGS...]
set -euo pipefail
cd "$(dirname "$0")/.."
venv=$1 requirement=$2
shift 2
uv=$(scripts/get-uv.sh)
export UV_NO_PROGRESS=1 PIP_DISABLE_PIP_VERSION_CHECK=1
host="$(go env GOOS)/$(go env GOARCH)"
version=$(cat cmd/backyard-ls/VERSION)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! scripts/build-wheels.sh "$host" >"$log" 2>&1; then
  cat "$log" >&2
  exit 1
fi
"$uv" venv --quiet --seed "$venv"
"$venv/bin/python" -m pip install --quiet --find-links dist "$requirement==$version" "$@"
echo "$(basename "$0" .sh): backyard-ls $version installed into a fresh venv ($("$venv/bin/python" -V))" >&2
