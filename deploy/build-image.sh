#!/usr/bin/env bash
# Builds the server image of deploy/Dockerfile: backyard-ls built static
# from this checkout, the pinned Monty worker (make setup installs it).
#
# Env: TAG (default backyard-ls-server:dev), BASE (the base image, default
# debian:trixie-slim; the tests use the local backyard-python:test, as no
# registry is reachable there), MONTY_BIN (default: the installed worker).
set -euo pipefail
cd "$(dirname "$0")/.."
tag="${TAG:-backyard-ls-server:dev}"
ctx="$(mktemp -d)"
trap 'rm -rf "$ctx"' EXIT
CGO_ENABLED=0 go build -trimpath -o "$ctx/backyard-ls" ./cmd/backyard-ls
monty="${MONTY_BIN:-${XDG_DATA_HOME:-$HOME/.local/share}/backyard-ls/monty/bin/monty}"
[ -x "$monty" ] || { echo "no Monty worker at $monty: run make setup" >&2; exit 1; }
cp "$monty" "$ctx/monty"
cp deploy/Dockerfile "$ctx/"
docker build --quiet --build-arg "BASE=${BASE:-debian:trixie-slim}" -t "$tag" "$ctx" >/dev/null
echo "$tag"
