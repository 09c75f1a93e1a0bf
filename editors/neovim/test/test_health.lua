-- :checkhealth backyard against the real server, worker and engine: what
-- it reports is compared with what their own tools say.
local T = require("backyard_test")

local image = os.getenv("BACKYARD_TEST_IMAGE") or "backyard-python:test"

-- run is a command's stdout (trimmed); it fails the test on an error.
local function run(argv)
  local out = vim.fn.system(argv)
  T.eq(0, vim.v.shell_error, table.concat(argv, " ") .. " exit status")
  return vim.trim(out)
end

-- checkhealth returns the report's lines and closes it.
local function checkhealth()
  vim.cmd("checkhealth backyard")
  local lines = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  vim.cmd("bwipe!")
  return lines
end

-- line finds the report line with status ("OK", "WARNING", "ERROR" or ""
-- for info) that contains text; it fails the test when there is none.
local function line(lines, status, text)
  for _, l in ipairs(lines) do
    if l:find(text, 1, true) and l:find("^%s*%- ") and (status == "" or l:find(status, 1, true)) then
      return l
    end
  end
  error(("no %s line with %q in:\n%s"):format(status, text, table.concat(lines, "\n")), 2)
end

local function count(lines, status)
  local n = 0
  for _, l in ipairs(lines) do
    if l:find("^%s*%- .*" .. status) then
      n = n + 1
    end
  end
  return n
end

T.test("the server, the worker, the engine, the image: each as its own tool reports it", function()
  require("backyard").setup({ limits = { timeout = 7 }, settings = { container = { image = image } } })
  local lines = checkhealth()
  local exe = vim.fn.exepath("backyard-ls")
  local version = run({ "backyard-ls", "version" }):match("^backyard%-ls (%S+)")
  line(lines, "OK", ("backyard-ls %s: %s"):format(version, exe))
  line(lines, "", "not running")

  local monty = T.ok(os.getenv("MONTY_BIN"), "run.sh sets MONTY_BIN")
  local mv = run({ monty, "--version" }):match("(%S+)$")
  line(lines, "OK", ("worker %s, version %s"):format(monty, mv))
  line(lines, "OK", "test cell 1 + 1 = 2 in")

  local engine = run({ "docker", "version", "--format", "{{.Server.Version}} (API {{.Server.APIVersion}}" })
  line(lines, "OK", engine)
  T.matches("runsc", run({ "docker", "info", "--format", "{{json .Runtimes}}" }), "docker has runsc")
  line(lines, "OK", "kernels run on runsc")
  local id = run({ "docker", "image", "inspect", "--format", "{{.Id}}", image }):gsub("^sha256:", ""):sub(1, 12)
  line(lines, "OK", ("image %s (%s)"):format(image, id))

  line(lines, "", ("container.image = %s (from the plugin)"):format(image))
  line(lines, "", "timeout = 7 (from the plugin)")
  local memory = run({ "backyard-ls", "serve", "-h" }):match("%-memory int\n[^\n]*%(default (%d+)%)")
  line(lines, "", ("memory = %s (server default)"):format(T.ok(memory, "serve -h has the memory default")))
  line(lines, "", "<Plug>(backyard-")
  line(lines, "", "images (output.images = auto): a placeholder line") -- headless: no TUI
  T.eq(0, count(lines, "WARNING") + count(lines, "ERROR"), "warnings and errors")
end)

T.test("a running server is reported with its buffers", function()
  T.open({ "# %%", "1" }, "health.py")
  local c = require("backyard.client").get()
  line(checkhealth(), "", ("running: client %d, 1 buffer(s) attached"):format(c.id))
end)

T.test("no worker: an error that says where it looked and how to get it", function()
  require("backyard").setup({ settings = { montyPath = "/no/such/monty" } })
  local lines = checkhealth()
  line(lines, "OK", "backyard-ls ")
  T.matches("/no/such/monty", line(lines, "ERROR", "no Monty worker"), "the path tried")
  T.matches("make setup", table.concat(lines, "\n"), "advice")
end)

T.test("no engine: a warning, since Monty keeps working", function()
  require("backyard").setup({})
  local old = vim.env.DOCKER_HOST
  vim.env.DOCKER_HOST = "unix:///no/such/docker.sock"
  local ok, lines = pcall(checkhealth)
  vim.env.DOCKER_HOST = old
  T.ok(ok, lines)
  line(lines, "WARNING", "no container engine at unix:///no/such/docker.sock")
  line(lines, "OK", "test cell 1 + 1 = 2")
  T.eq(0, count(lines, "ERROR"), "errors")
end)

T.test("a runtime the engine does not have is an error", function()
  require("backyard").setup({ settings = { container = { runtime = "kata" } } })
  T.matches('unknown container runtime "kata"', line(checkhealth(), "ERROR", "runtimes "), "the runtime error")
end)

T.test("no server: an error naming what was tried", function()
  require("backyard").setup({ cmd = { "/no/such/backyard-ls", "serve" } })
  local lines = checkhealth()
  line(lines, "ERROR", 'server not found: "/no/such/backyard-ls"')
  T.matches("make build", table.concat(lines, "\n"), "advice")
end)

T.test("a server without doctor --json: an error with what it said", function()
  local old = vim.fn.tempname()
  vim.fn.writefile({ "#!/bin/sh", "echo 'flag provided but not defined: -json' >&2", "exit 2" }, old)
  vim.fn.setfperm(old, "rwx------")
  require("backyard").setup({ cmd = { old, "serve" } })
  local l = line(checkhealth(), "ERROR", "backyard-ls doctor --json failed")
  T.matches("exited with 2: flag provided but not defined: %-json", l, "its stderr")
  require("backyard").setup({})
end)
