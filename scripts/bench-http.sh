#!/usr/bin/env bash
# Measures the HTTP service and the numpy batches without --preload in one
# run (bench/http.py says what and against which peer) and prints medians
# and ratios with the machine's load. Needs the worker (make setup), the
# engine with runc and the test image (scripts/docker-setup.sh,
# scripts/build-test-image.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
go build -o bin/backyard-ls ./cmd/backyard-ls
go build -o bin/httpload ./bench/httpload
exec python3 bench/http.py bin/backyard-ls bin/httpload
