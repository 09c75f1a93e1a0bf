#!/usr/bin/env bash
# Records what CPython prints for each notebook of the auto-mode corpus
# (kernel/testdata/corpus/*.py): every cell run in the container backend,
# whose kernel is CPython. kernel's TestCorpusMatchesCPython runs the same
# notebooks in auto mode and compares. Needs the engine and the test image.
set -euo pipefail
cd "$(dirname "$0")/.."
image="${BACKYARD_TEST_IMAGE:-backyard-python:test}"
go build -o bin/backyard-ls ./cmd/backyard-ls
for nb in kernel/testdata/corpus/*.py; do
  bin/backyard-ls run --backend container --image "$image" --json "$nb" | python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line)
    e = r.get("error") or {}
    print(json.dumps({"status": r["status"], "stdout": r["stdout"], "stderr": r["stderr"],
                      "value": (r.get("result") or {}).get("text"),
                      "ename": e.get("ename"), "evalue": e.get("evalue")}, sort_keys=True))
' >"${nb%.py}.expected.jsonl" || true
  echo "$nb: $(wc -l <"${nb%.py}.expected.jsonl") cells"
done
