#!/usr/bin/env bash
# Builds the PyPI wheels of backyard-ls into dist/: the binaries first
# (scripts/build-dist.sh), then one wheel per platform, built by uv from
# packaging/python (hatchling with the build hook there). Arguments
# GOOS/GOARCH build only those. Every platform asked for is tried; the exit
# status is 1 if any has no wheel.
set -uo pipefail
cd "$(dirname "$0")/.."
uv=$(scripts/get-uv.sh) || exit 1
want=("$@")
if [ ${#want[@]} -eq 0 ]; then
  mapfile -t want < <(awk '!/^#/ && NF { print $1 }' packaging/platforms.txt)
fi
scripts/build-dist.sh "${want[@]}"
failed=()
for p in "${want[@]}"; do
  goos=${p%/*} goarch=${p#*/}
  if ! ls "dist/bin/$goos-$goarch"/backyard-ls* >/dev/null 2>&1; then
    failed+=("$p")
    continue
  fi
  if ! BACKYARD_LS_PLATFORM=$p "$uv" build --quiet --wheel --out-dir dist packaging/python; then
    failed+=("$p")
  fi
done
ls -l dist/*.whl 2>/dev/null | awk '{ printf "build-wheels: %s (%d KiB)\n", $NF, $5 / 1024 }'
if [ ${#failed[@]} -gt 0 ]; then
  echo "build-wheels: no wheel for ${failed[*]}" >&2
  exit 1
fi
