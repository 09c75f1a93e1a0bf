#!/usr/bin/env bash
# Cross-builds the server for the release platforms (packaging/platforms.txt)
# into dist/bin/GOOS-GOARCH/backyard-ls (.exe on Windows): static, stripped,
# without machine paths. Arguments GOOS/GOARCH build only those. Every
# platform asked for is tried; the exit status is 1 if any failed.
set -uo pipefail
cd "$(dirname "$0")/.."
table=packaging/platforms.txt
want=("$@")
if [ ${#want[@]} -eq 0 ]; then
  mapfile -t want < <(awk '!/^#/ && NF { print $1 }' "$table")
fi
failed=()
for p in "${want[@]}"; do
  if ! awk -v p="$p" '!/^#/ && $1 == p { ok = 1 } END { exit !ok }' "$table"; then
    echo "build-dist: $p is not in $table" >&2
    failed+=("$p")
    continue
  fi
  goos=${p%/*} goarch=${p#*/}
  out=dist/bin/$goos-$goarch/backyard-ls
  [ "$goos" = windows ] && out=$out.exe
  if CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch "${GO:-go}" build -trimpath -ldflags "-s -w" -o "$out" ./cmd/backyard-ls; then
    echo "build-dist: $out ($(du -k "$out" | cut -f1) KiB)"
  else
    echo "build-dist: $p failed" >&2
    failed+=("$p")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "build-dist: no binary for ${failed[*]}" >&2
  exit 1
fi
