-- :checkhealth backyard: the server, the Monty worker, the container
-- engine and the settings in effect. The facts come from
-- `backyard-ls doctor --json`, run with the plugin's settings.
local config = require("backyard.config")

local M = {}

---@class backyard.HealthApi
---@field start fun(name: string)
---@field ok fun(msg: string)
---@field info fun(msg: string)
---@field warn fun(msg: string, advice?: string[])
---@field error fun(msg: string, advice?: string[])

-- The health API by feature: vim.health.start/ok/… (0.9+; the only one
-- from 0.11), vim.health.report_* (0.8), health#report_* (0.7).
---@return backyard.HealthApi
local function api()
  local h = vim.health
  if h and h.start then
    return h
  end
  if h and h.report_start then
    return {
      start = h.report_start, ok = h.report_ok, info = h.report_info, warn = h.report_warn, error = h.report_error,
    }
  end
  local function fn(name)
    return function(msg, advice)
      -- health#report_* refuse a null advice: pass it only when given.
      if advice then
        vim.fn["health#report_" .. name](msg, advice)
      else
        vim.fn["health#report_" .. name](msg)
      end
    end
  end
  return { start = fn("start"), ok = fn("ok"), info = fn("info"), warn = fn("warn"), error = fn("error") }
end

-- How long doctor may take: it starts a worker and asks the engine, each
-- within 10 s.
local doctor_timeout_ms = 30000

-- flatten turns nested settings into dotted keys, as the server reads them.
local function flatten(prefix, t, out)
  for k, v in pairs(t) do
    local key = (prefix .. tostring(k)):gsub("^backyard%.", "")
    if type(v) == "table" and v[1] == nil then
      flatten(key .. ".", v, out)
    else
      out[key] = v
    end
  end
  return out
end

--- The backyard.* settings the plugin sends, as dotted keys
--- ("container.image").
---@return table<string, any>
function M.sent_settings()
  return flatten("", config.server_settings().backyard, {})
end

--- The argv of `backyard-ls doctor --json` for the server binary exe,
--- checking the worker, image and runtime the settings choose.
---@param exe string the server executable
---@param settings table<string, any> dotted settings (see sent_settings)
---@return string[]
function M.doctor_argv(exe, settings)
  local argv = { exe, "doctor", "--json" }
  for flag, key in pairs({ monty = "montyPath", image = "container.image", runtime = "container.runtime" }) do
    local v = settings[key]
    if type(v) == "string" and v ~= "" then
      vim.list_extend(argv, { "--" .. flag, v })
    end
  end
  return argv
end

--- Runs argv and decodes the JSON object it prints.
---@param argv string[]
---@return table? report the decoded object, nil on failure
---@return string? err why it failed
function M.doctor(argv)
  local out, errout = {}, {}
  local id = vim.fn.jobstart(argv, {
    stdout_buffered = true,
    stderr_buffered = true,
    on_stdout = function(_, data)
      out = data
    end,
    on_stderr = function(_, data)
      errout = data
    end,
  })
  if id <= 0 then
    return nil, "cannot run " .. argv[1]
  end
  local code = vim.fn.jobwait({ id }, doctor_timeout_ms)[1]
  if code == -1 then
    vim.fn.jobstop(id)
    return nil, ("%s did not finish in %d s"):format(table.concat(argv, " "), doctor_timeout_ms / 1000)
  end
  local text = table.concat(out, "\n")
  local ok, rep = pcall(vim.json.decode, text)
  if not ok or type(rep) ~= "table" then
    local why = vim.trim(table.concat(errout, "\n"))
    return nil, ("%s exited with %d: %s"):format(table.concat(argv, " "), code, why ~= "" and why or text)
  end
  return rep
end

local function str(v)
  if v == nil or v == vim.NIL then
    return ""
  end
  return tostring(v)
end

local function server(h, exe, rep)
  h.ok(("backyard-ls %s: %s"):format(str(rep.version), exe))
  local client = package.loaded["backyard.client"]
  local c = client and client.get()
  if c then
    local n = #vim.tbl_keys(c.attached_buffers or {})
    h.info(("running: client %d, %d buffer(s) attached"):format(c.id, n))
  else
    h.info("not running: it starts when a Python buffer opens")
  end
end

local function worker(h, m)
  if str(m.path) == "" then
    local tried = {}
    for _, c in ipairs(m.candidates or {}) do
      tried[#tried + 1] = ("%s: %s"):format(str(c.source), str(c.path))
    end
    h.error("no Monty worker: " .. str(m.error), {
      "looked in: " .. table.concat(tried, "; "),
      "install it: `make setup` in the repository, or pip install pydantic-monty-runtime==" .. str(m.supported),
      "or point settings.montyPath (or $MONTY_BIN) at the monty binary",
    })
    return
  end
  local text = ("worker %s, version %s (pinned %s, protocol %s)"):format(str(m.path), str(m.version),
    str(m.supported), str(m.protocol))
  if str(m.error) ~= "" then
    h.warn(text .. ": " .. str(m.error))
  elseif m.version ~= m.supported then
    h.warn(text, { "not the pinned release: it works if it serves protocol " .. str(m.protocol) })
  else
    h.ok(text)
  end
  local t = m.testCell or {}
  if t.ok == true then
    h.ok(("test cell 1 + 1 = 2 in %.1f ms (cold start to result)"):format(tonumber(t.durationMs) or 0))
  else
    h.error("test cell failed: " .. str(t.error))
  end
end

local function engine(h, c)
  if c.reachable ~= true then
    h.warn("no container engine at " .. str(c.host) .. ": " .. str(c.error), {
      "cells that need full CPython cannot run; Monty keeps working",
      "install Docker (and gVisor's runsc), or point $DOCKER_HOST at Podman's socket or a remote engine",
    })
    return
  end
  local e = c.engine or {}
  h.ok(("%s %s (API %s, client API %s, %s) at %s"):format(str(e.name), str(e.version), str(e.apiVersion),
    str(e.clientApiVersion), str(e.os), str(c.host)))
  local runtimes = ("runtimes %s (default %s)"):format(table.concat(e.runtimes or {}, ", "), str(e.defaultRuntime))
  if str(c.runtimeError) ~= "" then
    h.error(runtimes .. ": " .. str(c.runtimeError), { "set settings.container.runtime to one the engine has" })
  elseif str(c.runtimeWarning) ~= "" then
    h.warn(runtimes .. "; kernels run on " .. str(c.runtime) .. ": " .. str(c.runtimeWarning))
  else
    h.ok(runtimes .. "; kernels run on " .. str(c.runtime))
  end
  local img = c.image or {}
  if img.present == true then
    h.ok(("image %s (%s)"):format(str(img.name), str(img.id):gsub("^sha256:", ""):sub(1, 12)))
  elseif str(c.error) ~= "" then
    h.warn(("image %s: %s"):format(str(img.name), str(c.error)))
  else
    h.warn(("image %s is not present: it is pulled from its registry on first use"):format(str(img.name)),
      { "without a registry, set settings.container.image to a local image with python3" })
  end
end

-- settings lists the server settings in effect: what the plugin sends,
-- over the server's defaults.
local function settings(h, sent, defaults)
  local merged = {}
  for k, v in pairs(flatten("", type(defaults) == "table" and defaults or {}, {})) do
    merged[k] = { v, "server default" }
  end
  for k, v in pairs(sent) do
    merged[k] = { v, "from the plugin" }
  end
  local names = vim.tbl_keys(merged)
  table.sort(names)
  for _, k in ipairs(names) do
    local v = merged[k][1]
    h.info(("%s = %s (%s)"):format(k, type(v) == "string" and v or vim.inspect(v), merged[k][2]))
  end
  local o = config.options
  h.info("filetypes: " .. table.concat(o.filetypes, ", "))
  if o.keymaps then
    h.info("keys: the defaults with your changes, and the <Plug>(backyard-…) mappings; see :help backyard-keys")
  else
    h.info("keys: none (keymaps = false); map the <Plug>(backyard-…) mappings yourself, see :help backyard-keys")
  end
  h.info(("code lenses %s, inline output %s, inlay hints %s"):format(o.codelens and "on" or "off",
    o.output.enabled and "on" or "off", o.inlay_hints and "on" or "off"))
  local why = {
    ["image.nvim"] = "image.nvim draws them",
    kitty = "kitty's graphics protocol (TERM=" .. (vim.env.TERM or "") .. ")",
    placeholder = "a placeholder line (no image.nvim; not a kitty or Ghostty terminal under Neovim's TUI, "
      .. "outside tmux); :BackyardOutput opens or saves them",
  }
  local mode = require("backyard.image").mode(o.output.images)
  h.info(("images (output.images = %s): %s"):format(o.output.images, why[mode]))
end

--- Entry point of :checkhealth backyard.
function M.check()
  local h = api()
  h.start("backyard-ls (the server)")
  local cmd = config.options.cmd
  local exe = vim.fn.exepath(cmd[1])
  if exe == "" then
    h.error(("server not found: %q is not an executable (cmd = %s)"):format(cmd[1], vim.inspect(cmd)), {
      "put backyard-ls on $PATH (`make build` writes bin/backyard-ls)",
      "or set cmd in require(\"backyard\").setup({ cmd = { \"/path/to/backyard-ls\", \"serve\" } })",
    })
    return
  end
  local sent = M.sent_settings()
  local rep, err = M.doctor(M.doctor_argv(exe, sent))
  if not rep then
    h.error("backyard-ls doctor --json failed: " .. err,
      { "a backyard-ls older than the plugin? Rebuild it: make build" })
    return
  end
  server(h, exe, rep)
  h.start("Monty worker (the default backend)")
  worker(h, rep.monty or {})
  h.start("Container engine (the container backend)")
  engine(h, rep.container or {})
  h.start("Settings in effect")
  settings(h, sent, rep.defaults)
end

return M
