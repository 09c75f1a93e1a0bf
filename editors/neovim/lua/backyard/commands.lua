-- What the :Backyard* commands and the keys do.
local cells = require("backyard.cells")
local contract = require("backyard.contract")
local client = require("backyard.client")
local config = require("backyard.config")
local output = require("backyard.output")

local api = vim.api

--- The functions behind the :Backyard* commands and the keys.
---@class backyard.commands
local M = {}

local function notify(msg, level)
  vim.notify("backyard: " .. msg, level or vim.log.levels.INFO)
end

local function err_text(err)
  return type(err) == "table" and (err.message or vim.inspect(err)) or tostring(err)
end

-- buffer returns the current buffer if backyard handles it, else nil (and
-- says why).
local function buffer()
  local bufnr = api.nvim_get_current_buf()
  local fts = config.options.filetypes
  if not vim.tbl_contains(fts, vim.bo[bufnr].filetype) then
    notify("runs " .. table.concat(fts, ", ") .. " buffers only", vim.log.levels.WARN)
    return nil
  end
  if not client.attachable(bufnr) then
    notify("save the buffer to a file first: kernels belong to files", vim.log.levels.WARN)
    return nil
  end
  if not client.attach(bufnr) then
    return nil
  end
  return bufnr
end

local function cursor_line()
  return api.nvim_win_get_cursor(0)[1] - 1
end

-- run sends a run command without waiting for the result: output arrives
-- as notifications, which keeps the editor free while a cell runs.
local function run(command, arg)
  local bufnr = buffer()
  if not bufnr then
    return nil
  end
  arg.wait = false
  client.execute(bufnr, command, arg, function(err)
    if err then
      notify(err_text(err), vim.log.levels.ERROR)
    end
  end)
  return bufnr
end

--- Runs the cell under the cursor.
function M.run_cell()
  run(contract.commands.runCell, { line = cursor_line() })
end

--- Runs the cell under the cursor and moves to the next code cell.
function M.run_cell_advance()
  local line = cursor_line()
  local bufnr = run(contract.commands.runCell, { line = line })
  if bufnr then
    local target = cells.next_code_line(bufnr, line)
    if target then
      api.nvim_win_set_cursor(0, { target + 1, 0 })
    end
  end
end

--- Runs every code cell above the current one.
function M.run_above()
  run(contract.commands.runAbove, { line = cursor_line() })
end

--- Runs the current cell and every code cell below.
function M.run_below()
  run(contract.commands.runBelow, { line = cursor_line() })
end

--- Runs every code cell.
function M.run_all()
  run(contract.commands.runAll, {})
end

-- Byte length of the UTF-8 character starting at byte i (1-based).
local function char_len(s, i)
  local b = s:byte(i)
  if not b then
    return 0
  end
  return b >= 0xF0 and 4 or b >= 0xE0 and 3 or b >= 0xC0 and 2 or 1
end

--- The LSP range (UTF-16 characters) of lines line1..line2 (1-based):
--- exactly the last characterwise visual selection when it spans those
--- lines (and the command had two line numbers, as '<,'> gives), else the
--- whole lines.
---@param bufnr integer
---@param line1 integer
---@param line2 integer
---@param count? integer how many line numbers the command got
---@return { start: { line: integer, character: integer }, ["end"]: { line: integer, character: integer } }
function M.selection_range(bufnr, line1, line2, count)
  local function text(l)
    return api.nvim_buf_get_lines(bufnr, l - 1, l, false)[1] or ""
  end
  local s = api.nvim_buf_get_mark(bufnr, "<")
  local e = api.nvim_buf_get_mark(bufnr, ">")
  if (count or 2) == 2 and vim.fn.visualmode() == "v" and s[1] == line1 and e[1] == line2 then
    local first, last = text(line1), text(line2)
    local stop = math.min(e[2] + char_len(last, e[2] + 1), #last)
    return {
      start = { line = line1 - 1, character = cells.utf16(first, s[2]) },
      ["end"] = { line = line2 - 1, character = cells.utf16(last, stop) },
    }
  end
  local last = text(line2)
  return {
    start = { line = line1 - 1, character = 0 },
    ["end"] = { line = line2 - 1, character = cells.utf16(last, #last) },
  }
end

--- Runs lines line1..line2 (the selection when it came from visual mode).
---@param line1 integer
---@param line2 integer
---@param count? integer how many line numbers the command got
function M.run_range(line1, line2, count)
  local bufnr = api.nvim_get_current_buf()
  run(contract.commands.runRange, { range = M.selection_range(bufnr, line1, line2, count) })
end

--- Interrupts the running cell; the kernel keeps its state.
function M.interrupt()
  local bufnr = buffer()
  if not bufnr then
    return
  end
  client.execute(bufnr, contract.commands.interrupt, {}, function(err, res)
    if err then
      notify(err_text(err), vim.log.levels.ERROR)
    elseif type(res) == "table" and res.interrupted == false then
      notify("nothing is running")
    end
  end)
end

--- Restarts the kernel: the namespace is emptied; outputs stay but are
--- marked stale (with bang they are cleared).
---@param bang? boolean
function M.restart(bang)
  local bufnr = buffer()
  if not bufnr then
    return
  end
  client.execute(bufnr, contract.commands.restart, {}, function(err)
    if err then
      notify(err_text(err), vim.log.levels.ERROR)
    elseif bang then
      M.clear(bufnr)
    else
      output.restarted(bufnr)
    end
  end)
end

---@type backyard.Backend[]
M.backends = contract.backend

--- Shows the backend of this buffer's kernel, or switches it.
---@param name? "auto"|"monty"|"container"|"" nil or "" shows it
function M.backend(name)
  local bufnr = buffer()
  if not bufnr then
    return
  end
  if not name or name == "" then
    client.execute(bufnr, contract.commands.kernelInfo, {}, function(err, info)
      if err then
        notify(err_text(err), vim.log.levels.ERROR)
      else
        notify("backend " .. tostring(info.backend) .. " (" .. tostring(info.state) .. ")")
      end
    end)
    return
  end
  if not vim.tbl_contains(M.backends, name) then
    notify("backend must be auto, monty or container, not " .. name, vim.log.levels.ERROR)
    return
  end
  client.execute(bufnr, contract.commands.setBackend, { backend = name }, function(err)
    if err then
      notify(err_text(err), vim.log.levels.ERROR)
      return
    end
    -- The old kernel is gone with its namespace.
    output.restarted(bufnr)
    notify("backend " .. name .. " for " .. vim.fn.fnamemodify(api.nvim_buf_get_name(bufnr), ":t"))
  end)
end

local function show(lines, title)
  return require("backyard.ui").open(lines, title, "float")
end

--- Shows the kernel in a float: backend, runtime, state, versions.
function M.info()
  local bufnr = buffer()
  if not bufnr then
    return
  end
  client.execute(bufnr, contract.commands.kernelInfo, {}, function(err, info)
    if err then
      notify(err_text(err), vim.log.levels.ERROR)
      return
    end
    local lines = {
      "file        " .. vim.fn.fnamemodify(api.nvim_buf_get_name(bufnr), ":~:."),
      "backend     " .. tostring(info.backend),
      "runtime     " .. tostring(info.runtime ~= "" and info.runtime or "-"),
      "state       " .. tostring(info.state),
      "executions  " .. tostring(info.executionCount or 0),
    }
    if info.write and info.write ~= vim.NIL then
      lines[#lines + 1] = "files       "
        .. (info.write == "workspace" and "cells write the workspace's files" or "kept in the kernel (:BackyardFiles, :BackyardSaveFiles)")
    end
    local versions = info.versions ~= vim.NIL and info.versions or {}
    local names = vim.tbl_keys(versions)
    table.sort(names)
    for _, k in ipairs(names) do
      lines[#lines + 1] = ("%-11s %s"):format(k, versions[k])
    end
    for _, n in ipairs(info.notes ~= vim.NIL and info.notes or {}) do
      lines[#lines + 1] = { "note        " .. n, "DiagnosticWarn" }
    end
    show(lines, "backyard kernel")
  end)
end

--- Shows the kernel's variables in a float.
function M.variables()
  local bufnr = buffer()
  if not bufnr then
    return
  end
  client.execute(bufnr, contract.commands.variables, {}, function(err, res)
    if err then
      notify(err_text(err), vim.log.levels.ERROR)
      return
    end
    local vars = type(res) == "table" and res.variables ~= vim.NIL and res.variables or {}
    if #vars == 0 then
      show({ "(no variables: run a cell first)" }, "backyard variables")
      return
    end
    local wn, wt = 4, 4
    for _, v in ipairs(vars) do
      wn = math.max(wn, vim.fn.strdisplaywidth(v.name))
      wt = math.max(wt, vim.fn.strdisplaywidth(v.type))
    end
    local fmt = "%-" .. wn .. "s  %-" .. wt .. "s  %s"
    local lines = { { fmt:format("name", "type", "value"), "Title" } }
    for _, v in ipairs(vars) do
      local repr = tostring(v.repr):gsub("\n", "\\n")
      lines[#lines + 1] = fmt:format(v.name, v.type, repr)
    end
    show(lines, "backyard variables")
  end)
end

-- overlay lists the files this buffer's kernel wrote that differ from the
-- workspace, then calls done(res) with backyard.files' answer.
local function overlay(bufnr, done)
  client.execute(bufnr, contract.commands.files, {}, function(err, res)
    if err then
      notify(err_text(err), vim.log.levels.ERROR)
    else
      done(res)
    end
  end)
end

local function file_line(f, dir)
  local size = f.state == "deleted" and "deleted" or (tostring(f.size) .. " B")
  return ("%s %s  (%s)"):format(output.file_mark(f.state), output.relative(dir, f.path), size)
end

--- Shows in a float the files the kernel wrote that differ from the
--- workspace (kept in the kernel until saved).
function M.files()
  local bufnr = buffer()
  if not bufnr then
    return
  end
  local dir = vim.fn.fnamemodify(api.nvim_buf_get_name(bufnr), ":p:h")
  overlay(bufnr, function(res)
    if res.write == "workspace" then
      show({ "(cells write the workspace's files directly: files.write is \"workspace\")" }, "backyard files")
      return
    end
    local list = res.files ~= vim.NIL and res.files or {}
    if #list == 0 then
      show({ "(no files differ from the workspace)" }, "backyard files")
      return
    end
    local lines = {}
    for _, f in ipairs(list) do
      lines[#lines + 1] = file_line(f, dir)
    end
    lines[#lines + 1] = { ":BackyardSaveFiles [file …] writes them to the workspace", "Comment" }
    show(lines, "backyard files")
  end)
end

--- Writes files the kernel kept apart to the workspace: the given paths
--- (relative to Neovim's directory or absolute), or all of them after a
--- confirmation.
---@param paths? string[]
function M.save_files(paths)
  local bufnr = buffer()
  if not bufnr then
    return
  end
  local function save(list)
    client.execute(bufnr, contract.commands.saveFiles, { paths = list }, function(err, res)
      if err then
        notify(err_text(err), vim.log.levels.ERROR)
        return
      end
      local n = #(res.saved ~= vim.NIL and res.saved or {})
      notify(("saved %d file%s to the workspace"):format(n, n == 1 and "" or "s"))
    end)
  end
  if paths and #paths > 0 then
    local abs = {}
    for _, p in ipairs(paths) do
      abs[#abs + 1] = vim.fn.fnamemodify(p, ":p")
    end
    save(abs)
    return
  end
  local dir = vim.fn.fnamemodify(api.nvim_buf_get_name(bufnr), ":p:h")
  overlay(bufnr, function(res)
    local list = res.files ~= vim.NIL and res.files or {}
    if res.write == "workspace" or #list == 0 then
      notify("no files to save: " .. (res.write == "workspace" and "the kernel writes the workspace directly" or "none differ from the workspace"))
      return
    end
    local names, all = {}, {}
    for _, f in ipairs(list) do
      names[#names + 1] = file_line(f, dir)
      all[#all + 1] = f.path
    end
    local choices = { ("Save all %d: %s"):format(#all, table.concat(names, ", ")), "Cancel" }
    vim.ui.select(choices, { prompt = "backyard: write the kernel's files to the workspace?" }, function(_, idx)
      if idx == 1 then
        save(all)
      end
    end)
  end)
end

--- Removes the outputs (and backyard's diagnostics) of a buffer.
---@param bufnr? integer default: the current buffer
function M.clear(bufnr)
  bufnr = bufnr or api.nvim_get_current_buf()
  output.clear(bufnr)
  local c = client.get()
  if c then
    local diag = vim.lsp.diagnostic
    local ok, ns = pcall(diag.get_namespace, c.id)
    if ok and ns then
      vim.diagnostic.reset(ns, bufnr)
    end
  end
end

--- Writes a rich output ({mime, data} of a display or value: an image,
--- HTML, …) to path: its bytes, base64-decoded where the bundle encodes
--- them.
---@param rich { mime: string, data: string }
---@param path string
---@return boolean ok, string? err
function M.save_rich(rich, path)
  local image = require("backyard.image")
  local bytes = image.bytes(rich.mime, rich.data)
  if not bytes then
    return false, "the " .. rich.mime .. " data is not base64"
  end
  return image.save_bytes(vim.fn.expand(path), bytes)
end

--- Opens a rich output with the system's viewer (an image viewer, the
--- browser for HTML), from a file under Neovim's cache folder.
---@param rich { mime: string, data: string }
---@return boolean ok, string? err
function M.open_rich(rich)
  local image = require("backyard.image")
  local path, err = image.cache_file(rich.mime, rich.data)
  if not path then
    return false, err
  end
  return image.open_file(path)
end

-- rich_outputs lists the rich outputs of o, images first.
local function rich_outputs(o)
  local images, rest = {}, {}
  for _, l in ipairs(output.full(o)) do
    if l.rich then
      local list = l.rich.mime:find("^image/") and images or rest
      list[#list + 1] = l.rich
    end
  end
  return vim.list_extend(images, rest)
end

--- Shows the full output of the cell under the cursor. On the line of an
--- image (or another rich form) <CR> opens it with the system's viewer
--- and s saves it to a file.
---@param how? "float"|"split"|"" "" or nil: the output.open option
---@return integer? bufnr, integer? winid nil when there is no output here
function M.open_output(how)
  local bufnr = api.nvim_get_current_buf()
  local o = output.at(bufnr, cursor_line())
  if not o then
    notify("no output here: run a cell first")
    return
  end
  how = how ~= "" and how or config.options.output.open
  local all = output.full(o)
  local buf, win = require("backyard.ui").open(all, "backyard output", how)
  local function here()
    local r = all[api.nvim_win_get_cursor(0)[1]]
    return r and r.rich
  end
  local map = { buffer = buf, nowait = true, silent = true }
  vim.keymap.set("n", "<CR>", function()
    local rich = here()
    if rich then
      local ok, err = M.open_rich(rich)
      if not ok then
        notify("cannot open the " .. rich.mime .. " output: " .. tostring(err), vim.log.levels.ERROR)
      end
    end
  end, vim.tbl_extend("force", map, { desc = "Open the output on this line" }))
  vim.keymap.set("n", "s", function()
    local rich = here()
    if not rich then
      return
    end
    local name = "output." .. require("backyard.image").ext(rich.mime)
    vim.ui.input({ prompt = "Save " .. rich.mime .. " to: ", default = name, completion = "file" }, function(path)
      if path and path ~= "" then
        local ok, err = M.save_rich(rich, path)
        notify(ok and ("saved " .. path) or ("cannot save " .. path .. ": " .. tostring(err)),
          ok and vim.log.levels.INFO or vim.log.levels.ERROR)
      end
    end)
  end, vim.tbl_extend("force", map, { desc = "Save the output on this line" }))
  return buf, win
end

--- Saves the n-th rich output (images first; default the first) of the
--- cell under the cursor to path.
---@param path string
---@param n? integer
---@return boolean ok
function M.save_output(path, n)
  local bufnr = api.nvim_get_current_buf()
  local o = output.at(bufnr, cursor_line())
  local all = o and rich_outputs(o) or {}
  local rich = all[n or 1]
  if not rich then
    notify(#all == 0 and "no image or rich output here: run a cell first"
      or ("this output has %d rich output%s"):format(#all, #all == 1 and "" or "s"), vim.log.levels.WARN)
    return false
  end
  if not path or path == "" then
    notify("give a file to save the " .. rich.mime .. " output to", vim.log.levels.WARN)
    return false
  end
  local ok, err = M.save_rich(rich, path)
  if not ok then
    notify("cannot save " .. path .. ": " .. tostring(err), vim.log.levels.ERROR)
    return false
  end
  notify(("saved the %s output to %s"):format(rich.mime, path))
  return true
end

--- Moves to the next (dir 1) or previous (-1) cell header, v:count1
--- times.
---@param dir 1|-1
function M.motion(dir)
  local bufnr = api.nvim_get_current_buf()
  local count = math.max(vim.v.count1, 1)
  local line = cursor_line()
  local target
  if dir > 0 then
    target = cells.next_start(bufnr, line, count)
  else
    target = cells.prev_start(bufnr, line, count)
  end
  if target then
    api.nvim_win_set_cursor(0, { target + 1, 0 })
  end
end

--- Maps the buffer-local keys the options ask for to the
--- <Plug>(backyard-…) mappings (plugin/backyard.lua defines those).
---@param bufnr integer
function M.keymaps(bufnr)
  local keys = config.options.keymaps
  if not keys then
    return
  end
  local plug = require("backyard.plug")
  for _, m in ipairs(plug.maps) do
    local lhs = keys[m.name]
    for _, k in ipairs(type(lhs) == "table" and lhs or { lhs or nil }) do
      local o = { buffer = bufnr, remap = true, silent = true, desc = plug.desc(m.name) }
      vim.keymap.set(m.modes, k, plug.lhs(m.name), o)
    end
  end
end

return M
