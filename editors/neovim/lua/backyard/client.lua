-- The one shared backyard-ls client: starting it, attaching buffers, and
-- sending commands through it alone (vim.lsp.buf.execute_command would
-- broadcast to every client attached to the buffer).
local config = require("backyard.config")
local contract = require("backyard.contract")

local M = {}

M.name = "backyard-ls"

local client_id -- the shared client, once started
local uris = {} -- bufnr -> uri of each attached buffer
local bufs = {} -- uri -> bufnr
local listeners = {} -- notification method -> fn(bufnr, params)
local exit_listeners = {}
local waiting = {} -- fns to run once the client is initialized
local warned = false

--- Runs a client method: client:m() where methods live on a class
--- (0.11+; the dot form is deprecated there), client.m() before.
---@param client table a vim.lsp client
---@param method string
---@return any
function M.call(client, method, ...)
  local mt = getmetatable(client)
  if mt and type(mt.__index) == "table" and mt.__index[method] then
    return client[method](client, ...)
  end
  return client[method](...)
end

--- The shared client, or nil when it is not running.
---@return table? client
function M.get()
  if not client_id then
    return nil
  end
  local c = vim.lsp.get_client_by_id(client_id)
  if not c or M.call(c, "is_stopped") then
    return nil
  end
  return c
end

--- Registers fn(bufnr, params) for a server notification that carries a
--- uri; only attached buffers are reported.
---@param method string
---@param fn fun(bufnr: integer, params: table)
function M.on(method, fn)
  listeners[method] = fn
end

--- Registers fn(bufnrs) for when the server exits, with the buffers that
--- were attached.
---@param fn fun(bufnrs: integer[])
function M.on_exit(fn)
  exit_listeners[#exit_listeners + 1] = fn
end

local function dispatch(err, params, ctx)
  if err or type(params) ~= "table" then
    return
  end
  local fn = listeners[ctx.method]
  local bufnr = bufs[params.uri]
  if fn and bufnr and vim.api.nvim_buf_is_valid(bufnr) then
    fn(bufnr, params)
  end
end

local function ready()
  local fns = waiting
  waiting = {}
  for _, fn in ipairs(fns) do
    fn()
  end
end

local function exited()
  client_id = nil
  waiting = {}
  local gone = vim.tbl_keys(uris)
  uris, bufs = {}, {}
  for _, fn in ipairs(exit_listeners) do
    fn(gone)
  end
end

-- input_wait bounds how long a question waits for its answer, in ms; the
-- server's time limit of the cell ends the cell much sooner.
local input_wait = 24 * 3600 * 1000

--- Answers backyard/input: a cell called input(). The person answers with
--- vim.ui.input (inputsecret for getpass); a dismissed question is null
--- (the cell gets KeyboardInterrupt). The handler must return the answer,
--- so an asynchronous vim.ui.input is waited for, with the UI live.
local function input(_, params)
  params = type(params) == "table" and params or {}
  local prompt = type(params.prompt) == "string" and params.prompt or ""
  if params.password == true then
    local ok, line = pcall(vim.fn.inputsecret, prompt)
    return { value = ok and line or vim.NIL }
  end
  local answer, done = nil, false
  local ok = pcall(vim.ui.input, { prompt = prompt }, function(line)
    answer, done = line, true
  end)
  if ok and not done then
    vim.wait(input_wait, function()
      return done
    end, 20)
  end
  if answer == nil then
    return { value = vim.NIL }
  end
  return { value = answer }
end

--- Answers window/showDocument where Neovim has no handler of its own
--- (0.7; 0.8+ has one): a cell's %edit opens its file, the cursor at the
--- payload's line.
local function show_document(_, params)
  if type(params) ~= "table" or type(params.uri) ~= "string" or params.external == true then
    return { success = false }
  end
  local at = { line = 0, character = 0 }
  local range = type(params.selection) == "table" and params.selection or { start = at, ["end"] = at }
  local ok = pcall(vim.lsp.util.jump_to_location, { uri = params.uri, range = range }, "utf-16")
  return { success = ok }
end

local function client_config(cmd)
  local o = config.options
  local settings = config.server_settings(o)
  local caps = vim.lsp.protocol.make_client_capabilities()
  -- What this client does beyond LSP (contract ClientCapabilities).
  caps.experimental = vim.tbl_deep_extend("force", caps.experimental or {}, { backyard = { input = true } })
  local handlers = {
    [contract.notifications.output] = dispatch,
    [contract.notifications.executionState] = dispatch,
    [contract.notifications.kernelState] = dispatch,
    [contract.notifications.display] = dispatch,
    [contract.requests.input] = input,
  }
  if not vim.lsp.handlers["window/showDocument"] then
    caps.window = vim.tbl_deep_extend("force", caps.window or {}, { showDocument = { support = true } })
    handlers["window/showDocument"] = show_document
  end
  return {
    name = M.name,
    cmd = cmd,
    capabilities = caps,
    root_dir = o.root_dir or (vim.uv or vim.loop).cwd(),
    init_options = settings,
    settings = settings,
    -- The status lens ("[3] ✓ …") has an empty command: picking it in
    -- vim.lsp.codelens.run() does nothing, instead of a warning.
    commands = {
      [""] = function() end,
    },
    handlers = handlers,
    -- Requests sent before initialize ends would reach the server before
    -- the buffer's didOpen; run them after it (scheduled: Neovim sends
    -- didOpen right after on_init returns).
    on_init = function()
      vim.schedule(ready)
    end,
    on_exit = function(_, _, id)
      -- Called from the event loop; state changes wait for the main loop.
      vim.schedule(function()
        if id == nil or id == client_id then
          exited()
        end
      end)
    end,
  }
end

--- A buffer backed by a file (the server keys kernels by uri).
---@param bufnr integer
---@return boolean
function M.attachable(bufnr)
  return vim.api.nvim_buf_is_valid(bufnr) and vim.bo[bufnr].buftype == ""
    and vim.api.nvim_buf_get_name(bufnr) ~= ""
end

--- Connects bufnr to the shared client, starting it if needed.
---@param bufnr integer
---@return table? client nil (after one message) when it cannot start
function M.attach(bufnr)
  if uris[bufnr] and M.get() then
    return M.get()
  end
  if not M.attachable(bufnr) then
    return nil
  end
  local cmd, tried = config.find_server()
  if not cmd then
    if not warned then
      warned = true
      vim.notify(("backyard: cannot start the server: no executable %q; tried %s."
        .. " Install it (pip install backyard-ls) or set cmd in require(\"backyard\").setup()")
        :format(config.options.cmd[1], table.concat(tried, ", ")), vim.log.levels.ERROR)
    end
    return nil
  end
  local id
  if vim.lsp.start then
    -- 0.8+: start or reuse. Any running backyard-ls will do: kernels are
    -- per document, not per root.
    id = vim.lsp.start(client_config(cmd), {
      bufnr = bufnr,
      reuse_client = function(c)
        return c.name == M.name
      end,
    })
  else
    id = M.get() and client_id or vim.lsp.start_client(client_config(cmd))
    if id and not vim.lsp.buf_attach_client(bufnr, id) then
      id = nil
    end
  end
  if not id then
    return nil
  end
  client_id = id
  local uri = vim.uri_from_bufnr(bufnr)
  uris[bufnr], bufs[uri] = uri, bufnr
  return M.get()
end

--- Forgets bufnr (it was unloaded).
---@param bufnr integer
function M.detach(bufnr)
  local uri = uris[bufnr]
  if uri then
    uris[bufnr], bufs[uri] = nil, nil
  end
end

--- The uri bufnr is attached under, or nil.
---@param bufnr integer
---@return string?
function M.uri(bufnr)
  return uris[bufnr]
end

---@param bufnr integer
---@return boolean
function M.attached(bufnr)
  return uris[bufnr] ~= nil and M.get() ~= nil
end

--- Sends method to the shared client only, once it is initialized.
---@param bufnr integer
---@param method string
---@param params table
---@param handler? fun(err: table?, result: any) called on the main loop
function M.request(bufnr, method, params, handler)
  local c = M.attach(bufnr)
  if not c then
    if handler then
      handler({ message = "backyard-ls is not running for this buffer" }, nil)
    end
    return
  end
  local function send()
    M.call(c, "request", method, params, function(err, result)
      if handler then
        handler(err, result)
      end
    end, bufnr)
  end
  if c.initialized then
    send()
  else
    waiting[#waiting + 1] = send
  end
end

--- Sends workspace/executeCommand with one JSON object argument, as the
--- server's commands take; arg.uri is set to bufnr's.
---@param bufnr integer
---@param command string e.g. "backyard.runCell"
---@param arg table
---@param handler? fun(err: table?, result: any)
function M.execute(bufnr, command, arg, handler)
  if uris[bufnr] == nil then
    M.attach(bufnr) -- request reports a buffer that cannot attach
  end
  arg.uri = uris[bufnr]
  M.request(bufnr, "workspace/executeCommand", { command = command, arguments = { arg } }, handler)
end

--- Re-sends the settings (after setup() runs again).
function M.notify_settings()
  local c = M.get()
  if c then
    M.call(c, "notify", "workspace/didChangeConfiguration", { settings = config.server_settings() })
  end
end

--- Ends the shared client.
function M.stop()
  local c = M.get()
  if c then
    M.call(c, "stop")
  end
end

return M
