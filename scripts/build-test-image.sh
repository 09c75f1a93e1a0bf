#!/usr/bin/env bash
# Builds the local image the container tests use (no registry is needed):
# a Debian root filesystem with python3, numpy and matplotlib made by
# mmdebstrap, imported with `docker import`. The image has no CMD, USER or
# ENV on purpose: backyard-ls passes its own, as it must for any image.
#
# Idempotent: an existing image is kept (FORCE=1 rebuilds). Downloaded .debs
# are kept in $BACKYARD_DEB_CACHE so a rebuild does not download again.
#
# Env: BACKYARD_TEST_IMAGE (default backyard-python:test), SUITE (default the
# host's Debian codename, else bookworm), MIRROR (default deb.debian.org),
# FORCE=1.
set -euo pipefail

image="${BACKYARD_TEST_IMAGE:-backyard-python:test}"
# The image is current when it has every module the tests import.
check='import numpy, matplotlib, pip'
if [ "${FORCE:-0}" != 1 ] && docker image inspect "$image" >/dev/null 2>&1; then
  if docker run --rm --network none "$image" python3 -c "$check" >/dev/null 2>&1; then
    echo "image $image already exists (FORCE=1 rebuilds)"
    exit 0
  fi
  echo "image $image lacks a package the tests need; rebuilding"
fi
command -v mmdebstrap >/dev/null || { echo "mmdebstrap is missing: run scripts/docker-setup.sh" >&2; exit 1; }

codename="$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")"
suite="${SUITE:-${codename:-bookworm}}"
mirror="${MIRROR:-http://deb.debian.org/debian}"
cache="${BACKYARD_DEB_CACHE:-/var/cache/backyard-ls/debs}"
mkdir -p "$cache"

old="$(docker image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# essential + python3 with numpy, matplotlib and pip (package installs are
# tested from a local wheel directory) and their dependencies; no apt, docs, man
# pages, locales or C headers. Recommends are skipped to keep the image
# small, and python3-munkres satisfies fonttools' "scipy | munkres" (scipy
# would bring a C++ toolchain).
mmdebstrap --variant=essential --mode=root \
  --include=python3,python3-numpy,python3-matplotlib,python3-munkres,python3-pip \
  --aptopt='APT::Install-Recommends "false"' \
  --aptopt='Acquire::Retries "3"' \
  --dpkgopt='path-exclude=/usr/share/doc/*' \
  --dpkgopt='path-include=/usr/share/doc/*/copyright' \
  --dpkgopt='path-exclude=/usr/share/man/*' \
  --dpkgopt='path-exclude=/usr/share/locale/*' \
  --dpkgopt='path-exclude=/usr/share/info/*' \
  --dpkgopt='path-exclude=/usr/include/*' \
  --setup-hook='mkdir -p "$1"/var/cache/apt/archives/' \
  --setup-hook="sync-in $cache /var/cache/apt/archives/" \
  --customize-hook="sync-out /var/cache/apt/archives $cache" \
  "$suite" "$tmp/rootfs.tar" "$mirror" </dev/null

docker import \
  --message "backyard-ls test image: Debian $suite python3 numpy matplotlib pip" \
  "$tmp/rootfs.tar" "$image" >/dev/null
if [ -n "$old" ] && [ "$old" != "$(docker image inspect --format '{{.Id}}' "$image")" ]; then
  docker rmi "$old" >/dev/null 2>&1 || true # replaced by FORCE=1
fi
docker run --rm --network none "$image" python3 -c \
  'import sys, numpy, matplotlib, pip; print("built", sys.argv[1], "python", sys.version.split()[0], "numpy", numpy.__version__, "matplotlib", matplotlib.__version__)' "$image"
