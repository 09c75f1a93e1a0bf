-- The default cmd finds the server in the active virtualenv ($VIRTUAL_ENV)
-- with no settings and no backyard-ls on $PATH, and says what it tried when
-- there is none. $BACKYARD_TEST_VENV is a venv that `pip install
-- backyard-ls` filled (scripts/test-install.sh); without it, a venv layout
-- is made here with the server under test linked into its bin/.
local T = require("backyard_test")

local sep = vim.fn.has("win32") == 1 and ";" or ":"
local venv = vim.env.BACKYARD_TEST_VENV
if not venv or venv == "" then
  venv = vim.fn.tempname() .. "-venv"
  vim.fn.mkdir(venv .. "/bin", "p")
  local server = vim.fn.exepath("backyard-ls") -- run.sh put the server under test on $PATH
  assert(server ~= "", "no backyard-ls on $PATH to link into the venv")
  assert(vim.loop.fs_symlink(server, venv .. "/bin/backyard-ls"))
end
local keep = {}
for _, d in ipairs(vim.split(vim.env.PATH or "", sep, { plain = true })) do
  if vim.fn.executable(d .. "/backyard-ls") ~= 1 then
    keep[#keep + 1] = d
  end
end
vim.env.PATH = table.concat(keep, sep)

T.test("with no server anywhere, the message names every place tried", function()
  vim.env.VIRTUAL_ENV = venv .. "-gone"
  T.eq("", vim.fn.exepath("backyard-ls"), "backyard-ls on $PATH")
  local path = vim.fn.tempname() .. ".py"
  vim.fn.writefile({ "# %%", "1" }, path)
  local msg = T.notified(function()
    vim.cmd("edit " .. path) -- a Python buffer attaches on FileType
    vim.cmd("BackyardRunCell")
  end)[1] or ""
  local want = ("tried $VIRTUAL_ENV (%s-gone/bin/backyard-ls), $PATH (%s)"):format(venv, vim.env.PATH)
  T.ok(msg:find(want, 1, true), ("message %q lacks %q"):format(msg, want))
  T.matches("pip install backyard%-ls", msg, "how to get it")
  T.eq(nil, require("backyard.client").get(), "no server started")
end)

T.test("with no settings, the server in $VIRTUAL_ENV starts and runs a cell", function()
  vim.env.VIRTUAL_ENV = venv
  local want = venv .. "/bin/backyard-ls"
  local argv, tried = require("backyard.config").find_server()
  T.eq({ want, "serve" }, argv, "argv")
  T.eq({ "$VIRTUAL_ENV (" .. want .. ")" }, tried, "tried")
  local buf = T.open({ "# %%", "x = 20", "x + 22" }, "venv.py")
  T.eq(want, require("backyard.client").get().config.cmd[1], "the client's cmd")
  T.cursor(2)
  vim.cmd("BackyardRunCell")
  local lines = T.wait_output(buf, 2, T.done(1))
  T.eq("│ → 42", lines[#lines], "the value")
end)

T.test("a cmd with a path is taken as it is, not looked up", function()
  local config = require("backyard.config")
  local argv, tried = config.find_server({ cmd = { venv .. "/bin/backyard-ls", "serve", "--stdio" } })
  T.eq({ venv .. "/bin/backyard-ls", "serve", "--stdio" }, argv, "argv")
  T.eq(1, #tried, "one place tried")
  argv, tried = config.find_server({ cmd = { "/nonexistent/backyard-ls" } })
  T.eq(nil, argv, "a missing path")
  T.eq({ "cmd (/nonexistent/backyard-ls)" }, tried, "tried")
end)
