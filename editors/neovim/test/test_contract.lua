-- Replays the server's contract cases (lsp/testdata/contract/*.json, format
-- in its README.md) through Neovim's own LSP client: the same client,
-- JSON codec and RPC the plugin uses, on whichever Neovim runs the tests.
-- Each case gets a fresh server; its document is opened by hand (no buffer)
-- so the messages are exactly the case's.
local T = require("backyard_test")
local call = require("backyard.client").call

local dir = (vim.env.BACKYARD_REPO or "") .. "/lsp/testdata/contract"
local files = vim.fn.glob(dir .. "/*.json", false, true)
table.sort(files)

local function is_list(t)
  return type(t) == "table" and (t[1] ~= nil or next(t) == nil and getmetatable(t) ~= vim._empty_dict_mt)
end

-- subst replaces the string "$uri" everywhere in v.
local function subst(v, uri)
  if v == "$uri" then
    return uri
  end
  if type(v) ~= "table" then
    return v
  end
  local out = setmetatable({}, getmetatable(v))
  for k, x in pairs(v) do
    out[k] = subst(x, uri)
  end
  return out
end

-- regex matches a case's pattern (the RE2/ECMAScript subset) with Vim's
-- very-magic regexes: characters special only to Vim are escaped.
local function regex_find(pattern, s)
  local out, i = {}, 1
  while i <= #pattern do
    local c = pattern:sub(i, i)
    if c == "\\" then
      local n = pattern:sub(i + 1, i + 1)
      out[#out + 1] = n:match("%w") and ("\\" .. n) or n == '"' and n or ("\\" .. n)
      i = i + 2
    else
      out[#out + 1] = c:match("[<>=@%%&~]") and ("\\" .. c) or c
      i = i + 1
    end
  end
  return vim.regex("\\v" .. table.concat(out)):match_str(s) ~= nil
end

-- match returns nil when got matches want (README "Matching"), else why not.
local function match(want, got, path)
  if want == "$any" then
    if got == nil then
      return path .. ": missing"
    end
    return nil
  end
  if want == vim.NIL then
    -- Neovim's RPC hands a null result over as nil.
    if got == nil or got == vim.NIL then
      return nil
    end
    return path .. ": want null, got " .. vim.inspect(got)
  end
  if type(want) == "string" and want:sub(1, 3) == "re:" then
    if type(got) ~= "string" or not regex_find(want:sub(4), got) then
      return ("%s: %s does not match %s"):format(path, vim.inspect(got), want)
    end
    return nil
  end
  if type(want) == "table" then
    if type(got) ~= "table" then
      return ("%s: want %s, got %s"):format(path, vim.inspect(want), vim.inspect(got))
    end
    if is_list(want) then
      if #want ~= #got then
        return ("%s: want %d elements, got %d: %s"):format(path, #want, #got, vim.inspect(got))
      end
      for i, w in ipairs(want) do
        local why = match(w, got[i], path .. "[" .. (i - 1) .. "]")
        if why then
          return why
        end
      end
      return nil
    end
    for k, w in pairs(want) do
      if w == "$absent" then
        if got[k] ~= nil then
          return ("%s.%s: want it absent, got %s"):format(path, k, vim.inspect(got[k]))
        end
      else
        local why = match(w, got[k], path .. "." .. k)
        if why then
          return why
        end
      end
    end
    return nil
  end
  if want ~= got then
    return ("%s: want %s, got %s"):format(path, vim.inspect(want), vim.inspect(got))
  end
end

local function check(want, got, what)
  local why = match(want, got, what)
  if why then
    error(why, 2)
  end
end

local capabilities = {
  vscode = {
    workspace = { codeLens = { refreshSupport = true }, inlayHint = { refreshSupport = true } },
    textDocument = { inlayHint = vim.empty_dict() },
    window = { workDoneProgress = true },
  },
  ["neovim-0.7"] = { window = { workDoneProgress = true } },
}

local function start(case, log)
  local kind = case.client or "vscode"
  local function note(_, params, ctx)
    log[#log + 1] = { method = ctx.method, params = params }
  end
  local function answer(_, params, ctx)
    note(nil, params, ctx)
    return vim.NIL
  end
  local handlers = {}
  for _, m in ipairs({ "backyard/output", "backyard/executionState", "backyard/kernelState",
    "textDocument/publishDiagnostics", "window/showMessage", "window/logMessage", "$/progress" }) do
    handlers[m] = note
  end
  local requests = { "window/workDoneProgress/create", "workspace/inlayHint/refresh", "workspace/codeLens/refresh" }
  for _, m in ipairs(requests) do
    handlers[m] = answer
  end
  if kind == "neovim-0.7" then
    -- As Neovim 0.7.2 answers it.
    handlers["workspace/codeLens/refresh"] = function(_, params, ctx)
      note(nil, params, ctx)
      return nil, vim.lsp.rpc.rpc_response_error(vim.lsp.protocol.ErrorCodes.MethodNotFound)
    end
  end
  local config = {
    name = "backyard-contract",
    cmd = { "backyard-ls", "serve" },
    root_dir = vim.fn.tempname(),
    capabilities = capabilities[kind],
    init_options = case.initializationOptions,
    handlers = handlers,
  }
  -- vim.lsp.start can skip attaching a buffer from 0.11 on, where
  -- start_client is deprecated.
  local id
  if vim.lsp.config then
    id = vim.lsp.start(config, { attach = false, reuse_client = function()
      return false
    end })
  else
    id = vim.lsp.start_client(config)
  end
  local client
  T.wait(function()
    client = vim.lsp.get_client_by_id(id)
    return client and client.initialized
  end, "the server to initialize")
  return client
end

local function run_case(file)
  local case = vim.json.decode(table.concat(vim.fn.readfile(file), "\n"))
  local uri = case.uri or ("file:///contract/" .. vim.fn.fnamemodify(file, ":t:r") .. ".py")
  local log = {}
  local client = start(case, log)
  local version = 1
  call(client, "notify", "textDocument/didOpen",
    { textDocument = { uri = uri, languageId = "python", version = version, text = case.document } })

  for i, raw in ipairs(case.steps) do
    local step = subst(raw, uri)
    local label = ("step %d%s"):format(i, step.comment and (" (" .. step.comment .. ")") or "")
    local mark = #log
    local resp
    local function send(method, params)
      call(client, "request", method, params, function(err, result)
        resp = { err = err, result = result, at = #log }
      end)
    end
    if step.command then
      local arg = step.argument
      if arg == nil then
        arg = vim.empty_dict()
      end
      if type(arg) == "table" and not is_list(arg) then
        if arg.uri == nil then
          arg.uri = uri
        elseif arg.uri == vim.NIL then
          arg.uri = nil
        end
      end
      send("workspace/executeCommand", { command = step.command, arguments = { arg } })
    elseif step.request then
      send(step.request, step.params or vim.empty_dict())
    else
      if step.notify then
        call(client, "notify", step.notify, step.params or vim.empty_dict())
      else
        version = version + 1
        call(client, "notify", "textDocument/didChange",
          { textDocument = { uri = uri, version = version }, contentChanges = step.change })
      end
      -- Answered only after the notification was handled.
      send("textDocument/codeLens", { textDocument = { uri = uri } })
    end

    local last = 0
    T.wait(function()
      return resp ~= nil
    end, label .. ": the response", 30000)
    last = resp.at
    if step["until"] then
      T.wait(function()
        for j = mark + 1, #log do
          if not match(step["until"], log[j], "") then
            last = math.max(last, j)
            return true
          end
        end
      end, label .. ": " .. vim.inspect(step["until"]), 30000)
    end

    if step.error then
      T.ok(resp.err, label .. ": want an error, got " .. vim.inspect(resp.result))
      check(step.error, resp.err, label .. " error")
    else
      T.ok(not resp.err, label .. ": " .. vim.inspect(resp.err))
      if step.result ~= nil then
        check(step.result, resp.result, label .. " result")
      end
    end
    if step.notifications then
      local j = mark + 1
      for n, want in ipairs(step.notifications) do
        while j <= last and match(want, log[j], "") do
          j = j + 1
        end
        if j > last then
          error(("%s: notification %d %s not received in order; got %s"):format(label, n, vim.inspect(want),
            vim.inspect(vim.list_slice(log, mark + 1, last))))
        end
        j = j + 1
      end
    end
    if step.diagnostics then
      local got = {}
      for _, m in ipairs(log) do
        if m.method == "textDocument/publishDiagnostics" and m.params.uri == uri then
          got = m.params.diagnostics
        end
      end
      check(step.diagnostics, got, label .. " diagnostics")
    end
  end
  -- Shut down without waiting: after "exit" the server takes a while to go
  -- while its stdin stays open (see the plugin's README, Known issues).
  call(client, "stop")
end

if #files == 0 then
  io.stdout:write("skip test_contract: no cases in " .. dir .. "\n")
end
for _, file in ipairs(files) do
  local case = vim.json.decode(table.concat(vim.fn.readfile(file), "\n"))
  T.test(vim.fn.fnamemodify(file, ":t:r") .. ": " .. (case.description or ""):sub(1, 60), function()
    run_case(file)
  end)
end
