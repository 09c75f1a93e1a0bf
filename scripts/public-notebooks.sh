#!/usr/bin/env bash
# Compares notebooks from elsewhere (real public .ipynb notebooks, which this
# repository does not keep: their licences vary) with what IPython shows for
# them, cell by cell, by the rules of the corpus/ipython tests.
#
#   scripts/public-notebooks.sh [--python PY] [--backend auto|container] OUT NOTEBOOK.ipynb|DIR ...
#
# Each notebook is converted to a percent-format .py in OUT with jupytext,
# magics kept as written (`comment_magics=false`), then recorded twice with
# IPython by scripts/record-ipython.py (NAME.expected.json, and
# NAME.again.json under another hash seed: a cell whose two recordings
# differ, such as unseeded random numbers, is counted apart and not
# compared). Then the corpus test of the backend runs them
# (BACKYARD_IPYTHON_CORPUS=OUT): auto is TestIPythonCorpusAuto, container
# TestIPythonCorpus on runc and runsc. The differing cells are written to
# OUT/diffs.txt; the summary is printed. Exit status 1 when a cell differs.
#
# PY (default python3) needs IPython 9.18.1, nbformat and jupytext, and the
# packages the notebooks import at the versions the test image has (for
# numpy and matplotlib: numpy 1.24.2, matplotlib 3.6.3 with
# matplotlib-inline 0.1.7 draw and print as the image's do). Needs `make
# build`'s prerequisites, a container engine and the test image.
set -euo pipefail
cd "$(dirname "$0")/.."
py=python3 backend=auto
while [ $# -gt 0 ]; do
  case "$1" in
    --python) py=$2; shift 2 ;;
    --backend) backend=$2; shift 2 ;;
    *) break ;;
  esac
done
if [ $# -lt 2 ]; then
  sed -n '6p' "$0" | sed 's/^# *//' >&2
  exit 2
fi
out=$1; shift
case $backend in
  auto) test=TestIPythonCorpusAuto pkg=./kernel/auto ;;
  container) test=TestIPythonCorpus pkg=./kernel/containerkernel ;;
  *) echo "public-notebooks: --backend is auto or container, not $backend" >&2; exit 2 ;;
esac
mkdir -p "$out"
out=$(cd "$out" && pwd)

n=0
for arg in "$@"; do
  if [ -d "$arg" ]; then set -- "$arg"/*.ipynb; else set -- "$arg"; fi
  for nb in "$@"; do
    # A module-safe name: the notebook's folder is on sys.path.
    name=$(basename "$nb" .ipynb | tr 'A-Z' 'a-z' | tr -c 'a-z0-9\n' '_')
    "$py" -m jupytext --quiet --to py:percent --opt comment_magics=false -o "$out/nb_$name.py" "$nb"
    n=$((n + 1))
  done
done
echo "converted $n notebooks into $out"

record() {
  PYTHONHASHSEED=$1 env -u LS_COLORS "$py" scripts/record-ipython.py "$out"/*.py > "$out/record-$1.log"
}
record 1
for f in "$out"/*.expected.json; do mv "$f" "${f%.expected.json}.again.json"; done
record 2
echo "recorded twice with IPython $("$py" -c 'import IPython; print(IPython.__version__)')"

set +e
BACKYARD_IPYTHON_CORPUS=$out go test -count=1 -timeout 90m -run "^$test\$" "$pkg" -v > "$out/test.log" 2>&1
rc=$?
set -e
grep -E '_test\.go:[0-9]+: .* cell [0-9]+ ' "$out/test.log" > "$out/diffs.txt" || true
grep -E 'cells as IPython shows them' "$out/test.log" | sed 's/^ *//'
echo "$(wc -l < "$out/diffs.txt") differing cells: $out/diffs.txt"
if [ $rc -ne 0 ] && [ ! -s "$out/diffs.txt" ]; then
  tail -20 "$out/test.log" >&2
fi
exit $((rc != 0))
