#!/usr/bin/env bash
# Tests the installs a user makes (README "Set up"), end to end:
#   1. `make wheels` builds a wheel for every platform in packaging/platforms.txt;
#   2. each is well-formed for its platform (packaging/checkwheel), and an
#      installer resolves it for that platform with the pinned worker, both
#      landing in one scripts folder;
#   3. this machine's wheel, installed into a fresh venv with pip, into
#      another with uv, and with `uv tool install`, runs `doctor` and `run`
#      on an example with nothing on PATH but that venv (and an empty HOME,
#      so no other worker is there to be found); uvx runs it too;
#   4. the Neovim plugin (no settings, $VIRTUAL_ENV) and the VS Code
#      extension's discovery find the server in that venv;
#   5. `go install …@latest` from a clone of this commit tagged with VERSION,
#      in a clean GOPATH, builds a server whose doctor says how to get the
#      worker, and the way it names works.
# Prints "ok" or "FAIL" per check and then "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
passed=0 failed=0
ok() { echo "ok $*"; passed=$((passed + 1)); }
fail() {
  echo "FAIL $1"
  [ -n "${2:-}" ] && [ -f "$2" ] && tail -20 "$2" | sed 's/^/     /'
  failed=$((failed + 1))
}
version=$(cat cmd/backyard-ls/VERSION)
pin="pydantic-monty-runtime==$(sed -n 's/^[[:space:]]*RuntimeVersion = "\(.*\)"/\1/p' monty/doc.go)"
uv=$(scripts/get-uv.sh) || { echo "FAIL uv"; echo "0 passed, 1 failed"; exit 1; }
export UV_NO_PROGRESS=1 UV_PYTHON_DOWNLOADS=never PIP_DISABLE_PIP_VERSION_CHECK=1
host="$(go env GOOS)/$(go env GOARCH)"

# 1. The wheels.
if scripts/build-wheels.sh >"$tmp/build.log" 2>&1; then
  ok "make wheels: $(grep -c '^build-wheels: dist/' "$tmp/build.log") wheels"
else
  echo "FAIL make wheels"
  grep -E '^build-(dist|wheels):|\.go:[0-9]+' "$tmp/build.log" | sed 's/^/     /'
  failed=$((failed + 1))
fi

# 2. Each platform's wheel.
wheels=()
while read -r plat tag _; do
  w=dist/backyard_ls-$version-py3-none-$tag.whl
  if [ ! -f "$w" ]; then
    fail "$plat: no wheel $w"
    continue
  fi
  wheels+=("$w")
  case $tag in
    manylinux_*_x86_64) triple=x86_64-${tag%_x86_64} ;;
    manylinux_*_aarch64) triple=aarch64-${tag%_aarch64} ;;
    macosx_*_x86_64) triple=x86_64-apple-darwin ;;
    macosx_*_arm64) triple=aarch64-apple-darwin ;;
    win_amd64) triple=x86_64-pc-windows-msvc ;;
    *) fail "$plat: no uv platform for the tag $tag"; continue ;;
  esac
  t=$tmp/target-${plat/\//-}
  exe=backyard-ls monty=monty
  [ "${plat%/*}" = windows ] && exe=backyard-ls.exe monty=monty.exe
  if "$uv" pip install --quiet --target "$t" --python-platform "$triple" --python-version 3.12 \
      --find-links dist "backyard-ls==$version" >"$tmp/target.log" 2>&1 &&
    [ -f "$t/bin/$exe" ] && [ -f "$t/bin/$monty" ]; then
    ok "$plat: uv installs $tag with $pin, bin/$exe beside bin/$monty"
  else
    ls -R "$t" >>"$tmp/target.log" 2>&1
    fail "$plat: uv install for $triple" "$tmp/target.log"
  fi
done < <(awk '!/^#/ && NF' packaging/platforms.txt)
if [ ${#wheels[@]} -gt 0 ]; then
  go run ./packaging/checkwheel "${wheels[@]}" >"$tmp/check.log" 2>&1
  grep -Ev '^[0-9]+ passed' "$tmp/check.log" | grep -Ev '^exit status'
  passed=$((passed + $(grep -c '^ok ' "$tmp/check.log")))
  failed=$((failed + $(grep -c '^FAIL ' "$tmp/check.log")))
  # The check can fail: a wheel named for the other architecture.
  if [ ${#wheels[@]} -ge 2 ]; then
    mkdir -p "$tmp/swapped"
    cp "${wheels[1]}" "$tmp/swapped/$(basename "${wheels[0]}")"
    if go run ./packaging/checkwheel "$tmp/swapped/"*.whl >"$tmp/swapped.log" 2>&1; then
      fail "checkwheel passes a wheel whose binary is for another platform" "$tmp/swapped.log"
    elif grep -q "built for" "$tmp/swapped.log"; then
      ok "checkwheel rejects $(basename "${wheels[1]}") renamed $(basename "${wheels[0]}")"
    else
      fail "checkwheel on a swapped wheel" "$tmp/swapped.log"
    fi
  fi
fi

# 3. This machine's wheel, installed and run with nothing else around.
hosttag=$(awk -v p="$host" '!/^#/ && $1 == p { print $2 }' packaging/platforms.txt)
wheel=dist/backyard_ls-$version-py3-none-$hosttag.whl
mkdir -p "$tmp/home"
# bare BIN ARGS...: run with PATH the venv's bin only and an empty HOME.
bare() {
  local bin=$1
  shift
  env -i PATH="$bin" HOME="$tmp/home" LANG=C.UTF-8 "$bin/backyard-ls" "$@"
}
# works NAME BIN MONTY: doctor finds MONTY, run prints the example's cells.
works() {
  local name=$1 bin=$2 want=$3 log=$tmp/$1.log
  if bare "$bin" doctor >"$log" 2>&1 && grep -qF "using $want" "$log" && grep -q "test cell 1 + 1 = 2" "$log"; then
    ok "$name: doctor uses $want"
  else
    fail "$name: doctor" "$log"
  fi
  if bare "$bin" version >"$log" 2>&1 && grep -qx "backyard-ls $version" "$log"; then
    ok "$name: version $version"
  else
    fail "$name: version" "$log"
  fi
  if bare "$bin" run "$repo/examples/sales.py" >"$log" 2>&1 &&
    grep -qx "Out\[1\]: 7" "$log" && grep -q '"top_region": "east"' "$log" && [ "$(grep -c '   ok · monty' "$log")" = 4 ]; then
    ok "$name: run examples/sales.py, 4 cells ok on monty"
  else
    fail "$name: run examples/sales.py" "$log"
  fi
}
if [ ! -f "$wheel" ]; then
  fail "no wheel for this machine ($host)"
else
  venv=$tmp/pip-venv
  # uv makes the venv (seeded with pip): Debian's python3 has no ensurepip.
  if "$uv" venv --quiet --seed "$venv" >"$tmp/pip.log" 2>&1 && "$venv/bin/python" -m pip install --quiet --find-links dist "backyard-ls==$version" >>"$tmp/pip.log" 2>&1; then
    ok "pip install backyard-ls==$version into a fresh venv"
    works pip "$venv/bin" "$venv/bin/monty"
  else
    fail "pip install" "$tmp/pip.log"
  fi

  uvenv=$tmp/uv-venv
  if "$uv" venv --quiet "$uvenv" >"$tmp/uv.log" 2>&1 &&
    "$uv" pip install --quiet --python "$uvenv/bin/python" --find-links dist "backyard-ls==$version" >>"$tmp/uv.log" 2>&1; then
    ok "uv pip install backyard-ls==$version into a fresh venv"
    works uv "$uvenv/bin" "$uvenv/bin/monty"
  else
    fail "uv pip install" "$tmp/uv.log"
  fi

  # uv tool install links only backyard-ls into its bin directory; the
  # worker stays in the tool's environment, beside the link's target.
  export UV_TOOL_DIR=$tmp/uv-tools UV_TOOL_BIN_DIR=$tmp/uv-bin
  if "$uv" tool install --quiet --find-links dist "backyard-ls==$version" >"$tmp/uvtool.log" 2>&1; then
    if [ -L "$UV_TOOL_BIN_DIR/backyard-ls" ] && [ ! -e "$UV_TOOL_BIN_DIR/monty" ]; then
      ok "uv tool install backyard-ls: a link on PATH, no monty there"
    else
      ls -l "$UV_TOOL_BIN_DIR" >>"$tmp/uvtool.log"
      fail "uv tool install: what it put on PATH" "$tmp/uvtool.log"
    fi
    works "uv tool" "$UV_TOOL_BIN_DIR" "$UV_TOOL_DIR/backyard-ls/bin/monty"
  else
    fail "uv tool install" "$tmp/uvtool.log"
  fi
  unset UV_TOOL_DIR UV_TOOL_BIN_DIR

  # uvx: an environment in uv's cache, run at once, nothing on PATH
  # (the rest of the environment kept: it holds how this machine reaches PyPI).
  python=$(python3 -c 'import sys; print(sys.executable)')
  uvx() {
    env PATH=/nonexistent HOME="$tmp/home" UV_CACHE_DIR="$("$uv" cache dir)" MONTY_BIN= XDG_DATA_HOME= \
      "$uv" tool run --quiet --isolated --python "$python" --find-links "$repo/dist" --from "backyard-ls==$version" backyard-ls "$@"
  }
  if uvx doctor >"$tmp/uvx.log" 2>&1; then
    beside=$(sed -n 's/^  ✓ next to backyard-ls *//p' "$tmp/uvx.log")
    if [ -n "$beside" ] && grep -qxF "  using $beside" "$tmp/uvx.log"; then
      ok "uvx backyard-ls doctor: uses $beside"
    else
      fail "uvx backyard-ls doctor: not the worker beside it" "$tmp/uvx.log"
    fi
  else
    fail "uvx backyard-ls doctor" "$tmp/uvx.log"
  fi
  if uvx run "$repo/examples/sales.py" >"$tmp/uvx.log" 2>&1 && grep -qx "Out\[1\]: 7" "$tmp/uvx.log"; then
    ok "uvx backyard-ls run examples/sales.py"
  else
    fail "uvx backyard-ls run" "$tmp/uvx.log"
  fi

  # 4. The editors find the server in the pip venv with no settings.
  if [ -x "$venv/bin/backyard-ls" ]; then
    if BACKYARD_TEST_VENV=$venv BACKYARD_LS=$venv/bin/backyard-ls \
      editors/neovim/test/run.sh editors/neovim/test/test_venv.lua >"$tmp/nvim.log" 2>&1; then
      ok "Neovim: the default cmd starts $venv/bin/backyard-ls from \$VIRTUAL_ENV and runs a cell"
    else
      fail "Neovim in the venv" "$tmp/nvim.log"
    fi
    if (cd editors/vscode && { [ -d node_modules ] || npm ci --no-audit --no-fund; } && npm run --silent bundle &&
      BACKYARD_TEST_VENV=$venv node --test --test-name-pattern=venv out/test/unit/paths.test.js) >"$tmp/vscode.log" 2>&1 &&
      grep -q '^# pass [1-9]' "$tmp/vscode.log"; then
      ok "VS Code: the extension's discovery finds $venv/bin/backyard-ls through the Python environment"
    else
      fail "VS Code in the venv" "$tmp/vscode.log"
    fi
  fi
fi

# 5. go install from a clone of this commit, tagged v$VERSION, as the
# module's own path (git is pointed at the clone), in a clean GOPATH.
gopath=$tmp/gopath
git clone --quiet --bare "$repo" "$tmp/module.git" && git -C "$tmp/module.git" tag "v$version" HEAD
cat >"$tmp/gitconfig" <<EOF
[url "file://$tmp/module.git"]
	insteadOf = https://github.com/backyard-ls/backyard-ls
[protocol "file"]
	allow = always
EOF
modcache=$(go env GOMODCACHE)
if env GIT_CONFIG_GLOBAL="$tmp/gitconfig" GOPATH="$gopath" GOMODCACHE="$gopath/pkg/mod" GOBIN= \
  GOPRIVATE=github.com/backyard-ls GOFLAGS=-modcacherw \
  GOPROXY="file://$modcache/cache/download,$(go env GOPROXY)" \
  go install github.com/backyard-ls/backyard-ls/cmd/backyard-ls@latest >"$tmp/goinstall.log" 2>&1 &&
  [ -x "$gopath/bin/backyard-ls" ]; then
  ok "go install github.com/backyard-ls/backyard-ls/cmd/backyard-ls@latest (v$version, $(git rev-parse --short HEAD))"
  if bare "$gopath/bin" version >"$tmp/gover.log" 2>&1 && grep -qx "backyard-ls $version" "$tmp/gover.log"; then
    ok "go install: version $version"
  else
    fail "go install: version" "$tmp/gover.log"
  fi
  bare "$gopath/bin" doctor >"$tmp/godoctor.log" 2>&1
  rc=$?
  hint=$(grep -o "python3 -m pip install --target .*" "$tmp/godoctor.log")
  if [ "$rc" = 1 ] && grep -q "pip install backyard-ls" "$tmp/godoctor.log" && [ -n "$hint" ]; then
    ok "go install: doctor without a worker exits 1 and says how to get it"
  else
    fail "go install: doctor without a worker (exit $rc)" "$tmp/godoctor.log"
  fi
  # The way doctor names that needs nothing but pip, taken as printed.
  if [ -n "$hint" ] && env HOME="$tmp/home" $hint --quiet >"$tmp/gohint.log" 2>&1 &&
    bare "$gopath/bin" doctor >"$tmp/godoctor2.log" 2>&1 && grep -q "test cell 1 + 1 = 2" "$tmp/godoctor2.log"; then
    ok "go install: after \`$hint\`, doctor runs a cell"
  else
    cat "$tmp/godoctor2.log" >>"$tmp/gohint.log" 2>/dev/null
    fail "go install: the hint" "$tmp/gohint.log"
  fi
else
  fail "go install @latest" "$tmp/goinstall.log"
fi

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
