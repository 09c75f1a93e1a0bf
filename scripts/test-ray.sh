#!/usr/bin/env bash
# Tests backyard_ls.ray on a real Ray cluster of two nodes on this machine:
# this machine's wheel installed with its [ray] extra into a fresh venv
# (Ray pinned by packaging/python/tests/requirements-ray.txt), the package
# type-checked with Ray installed, then a head and a second node started
# with `ray start` (one CPU each, their own temp dirs and ports:
# packaging/python/tests/ray_cluster.py), test_ray.py run against them, and
# the cluster stopped whatever happens (its own processes only: `ray stop`
# would stop every Ray of the machine). Arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
tmp=$(mktemp -d)
venv=$tmp/venv
cluster=$tmp/c
stop() {
  [ -x "$venv/bin/python" ] && "$venv/bin/python" "$repo/packaging/python/tests/ray_cluster.py" down "$cluster" || true
  rm -rf "$tmp"
}
trap stop EXIT
scripts/wheel-venv.sh "$venv" "backyard-ls[ray]" -r packaging/python/tests/requirements-ray.txt
"$venv/bin/mypy" --strict --python-version 3.10 --no-incremental -p backyard_ls
mkdir -p "$cluster"
address=$("$venv/bin/python" packaging/python/tests/ray_cluster.py up "$cluster" 2)
echo "test-ray: a cluster of 2 nodes at $address (Ray $("$venv/bin/python" -c 'import ray; print(ray.__version__)'))"
cd packaging/python/tests
env -u BACKYARD_LS_BIN -u PYTHONPATH -u RAY_ADDRESS BACKYARD_REPO="$repo" BACKYARD_RAY_CLUSTER="$cluster" \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider test_ray.py "$@"
