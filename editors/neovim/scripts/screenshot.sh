#!/usr/bin/env bash
# Captures a real Neovim session with inline output: Neovim in tmux on
# examples/sales.py, every cell run, the screen saved as
#   docs/neovim-session.txt   plain text (tmux capture-pane -p)
#   docs/neovim-session.png   the coloured capture (capture-pane -p -e)
#                             rendered with aha and headless Chromium, when
#                             both are installed (apt-get install aha chromium)
# Env: NVIM (default nvim), BACKYARD_LS (default: built with go).
set -eu
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
plugin=$(dirname "$here")
repo=$(cd "$plugin/../.." && pwd)
NVIM=${NVIM:-nvim}
tmp=$(mktemp -d)
sock=backyard-shot-$$
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT

if [ -z "${BACKYARD_LS:-}" ]; then
  (cd "$repo" && go build -o "$tmp/bin/backyard-ls" ./cmd/backyard-ls)
else
  mkdir -p "$tmp/bin"
  ln -s "$(cd "$(dirname "$BACKYARD_LS")" && pwd)/$(basename "$BACKYARD_LS")" "$tmp/bin/backyard-ls"
fi

cat >"$tmp/init.lua" <<LUA
vim.opt.runtimepath:prepend("$plugin")
vim.opt.swapfile = false
vim.opt.number = true
vim.opt.laststatus = 2
vim.opt.statusline = " %f %= %{v:lua.require'backyard'.status()} "
vim.cmd("filetype on | syntax on")
LUA

capture() { tmux -L "$sock" capture-pane -p -t shot "$@"; }
wait_for() { # wait_for TEXT: poll the screen (at most 20 s)
  for _ in $(seq 200); do
    if capture | grep -qF -- "$1"; then return 0; fi
    sleep 0.1
  done
  echo "screenshot.sh: timed out waiting for: $1" >&2
  capture >&2
  exit 1
}

tmux -L "$sock" -f /dev/null new-session -d -s shot -x 100 -y 35 -c "$repo" \
  "env PATH=$tmp/bin:\$PATH TERM=tmux-256color $NVIM -i NONE -u $tmp/init.lua examples/sales.py"
tmux -L "$sock" set -g status off
wait_for "Run Cell"
tmux -L "$sock" send-keys -t shot ":BackyardRunAll" Enter
wait_for "[1] ✓"
wait_for "monty · idle"
# Show the last three cells with their outputs, cursor in the last one.
tmux -L "$sock" send-keys -t shot ":26" Enter "zt" ":45" Enter ":echo" Enter
wait_for "\"top_region\": \"east\""
mkdir -p "$repo/docs"
capture >"$repo/docs/neovim-session.txt"
capture -e >"$tmp/session.ansi"

if command -v aha >/dev/null && command -v chromium >/dev/null; then
  aha --black --title "backyard.nvim" <"$tmp/session.ansi" |
    sed 's|<pre>|<pre style="font-family: DejaVu Sans Mono, monospace; font-size: 15px; line-height: 1.25; margin: 8px">|' \
      >"$tmp/session.html"
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=920,676 \
    --screenshot="$repo/docs/neovim-session.png" "file://$tmp/session.html" 2>/dev/null
  echo "wrote docs/neovim-session.txt and docs/neovim-session.png"
else
  echo "wrote docs/neovim-session.txt (install aha and chromium for the PNG)"
fi
