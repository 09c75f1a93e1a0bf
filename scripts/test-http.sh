#!/usr/bin/env bash
# The HTTP service through SandboxFusion's own client (PyPI sandbox-fusion,
# pinned in httpapi/testdata/requirements.txt) and verl's request JSON,
# against the built binary on Monty and in containers (runc, runsc). The
# client's venv is kept in .cache/http-client and rebuilt when the
# requirements change. Needs the worker (make setup), the engine with runc
# and runsc and the test image (make test-image).
set -euo pipefail
cd "$(dirname "$0")/.."
req=httpapi/testdata/requirements.txt
venv=.cache/http-client
want="$(sha256sum "$req" | cut -d' ' -f1)"
if [ "$(cat "$venv/.requirements-sha256" 2>/dev/null)" != "$want" ] || [ ! -x "$venv/bin/python" ]; then
  rm -rf "$venv"
  uv="$(scripts/get-uv.sh)"  # no venv module needed, as on a bare Debian
  "$uv" venv --quiet "$venv"
  "$uv" pip install --quiet --python "$venv/bin/python" -r "$req"
  echo "$want" > "$venv/.requirements-sha256"
fi
go build -o bin/backyard-ls ./cmd/backyard-ls
PYTHONDONTWRITEBYTECODE=1 BACKYARD_LS="$PWD/bin/backyard-ls" exec "$venv/bin/python" -m pytest -q -p no:cacheprovider httpapi/testdata/test_sandbox_fusion.py httpapi/testdata/test_deploy.py "$@"
