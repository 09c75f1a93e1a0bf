#!/usr/bin/env bash
# Measures batches and the warm pool in one run (bench/batch.py says what
# and against which peer) and prints medians and ratios with the machine's
# load. Needs the worker (make setup), the engine with runc and runsc and
# the test image (scripts/docker-setup.sh, scripts/build-test-image.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/backyard-ls ./cmd/backyard-ls
exec python3 bench/batch.py bin/backyard-ls
