#!/usr/bin/env bash
# Tests the Python API (packaging/python) as a user gets it: this machine's
# wheel built (scripts/build-wheels.sh) and installed with pip into a fresh
# venv beside pytest and mypy (packaging/python/tests/requirements.txt);
# the installed package type-checked (mypy --strict, for Python 3.10 on
# Linux, macOS and Windows) with the examples that use it; then the tests,
# on the installed binary, the worker pip brought and the container engine
# (the image $BACKYARD_TEST_IMAGE, default backyard-python:test; runc and
# runsc). Arguments go to pytest (e.g. -k batch).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
uv=$(scripts/get-uv.sh)
export UV_NO_PROGRESS=1 PIP_DISABLE_PIP_VERSION_CHECK=1
host="$(go env GOOS)/$(go env GOARCH)"
version=$(cat cmd/backyard-ls/VERSION)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! scripts/build-wheels.sh "$host" >"$tmp/build.log" 2>&1; then
  cat "$tmp/build.log" >&2
  exit 1
fi
venv=$tmp/venv
"$uv" venv --quiet --seed "$venv"
"$venv/bin/python" -m pip install --quiet --find-links dist "backyard-ls==$version" -r packaging/python/tests/requirements.txt
echo "test-python: backyard-ls $version installed into a fresh venv ($("$venv/bin/python" -V))"
for platform in linux darwin win32; do
  "$venv/bin/mypy" --strict --python-version 3.10 --platform "$platform" --no-incremental -p backyard_ls
done
"$venv/bin/mypy" --strict --python-version 3.10 --no-incremental examples/python
# From the tests' folder, with no override: the installed package finds
# the installed binary.
cd packaging/python/tests
env -u BACKYARD_LS_BIN -u PYTHONPATH BACKYARD_REPO="$repo" "$venv/bin/python" -m pytest -q -p no:cacheprovider "$@"
