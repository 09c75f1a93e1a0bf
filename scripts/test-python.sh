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
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
venv=$tmp/venv
scripts/wheel-venv.sh "$venv" backyard-ls -r packaging/python/tests/requirements.txt
for platform in linux darwin win32; do
  "$venv/bin/mypy" --strict --python-version 3.10 --platform "$platform" --no-incremental -p backyard_ls
done
"$venv/bin/mypy" --strict --python-version 3.10 --no-incremental examples/python
# From the tests' folder, with no override: the installed package finds
# the installed binary. test_ray.py needs a Ray cluster (scripts/test-ray.sh).
cd packaging/python/tests
env -u BACKYARD_LS_BIN -u PYTHONPATH BACKYARD_REPO="$repo" "$venv/bin/python" -m pytest -q -p no:cacheprovider --ignore=test_ray.py "$@"
