-- backyard.nvim: run # %% cells of Python files on backyard-ls, with the
-- output inline under each cell. This module stays small: everything else
-- is required when a buffer attaches.

--- require("backyard"): setup, attach, status, and (through the metatable
--- below) the functions behind the commands.
---@class backyard: backyard.commands
local M = {}

local wired = false

--- Sets options (see :help backyard-options). Optional: the defaults
--- apply without it. Calling it again re-sends the server settings.
---@param opts? backyard.Options
function M.setup(opts)
  require("backyard.config").set(opts)
  if package.loaded["backyard.client"] then
    require("backyard.client").notify_settings()
  end
end

-- wire connects server notifications to the output, status and lenses,
-- once.
local function wire()
  if wired then
    return
  end
  wired = true
  local client = require("backyard.client")
  local output = require("backyard.output")
  local status = require("backyard.status")
  local lens = require("backyard.lens")
  output.highlights()
  client.on(require("backyard.contract").notifications.executionState, function(bufnr, p)
    output.on_state(bufnr, p)
    local x = p.execution
    if p.state == "done" and type(x) == "table" and x.status == "crashed" then
      output.restarted(bufnr)
    end
    lens.refresh(bufnr)
  end)
  client.on(require("backyard.contract").notifications.output, output.on_output)
  client.on(require("backyard.contract").notifications.display, output.on_display)
  client.on(require("backyard.contract").notifications.kernelState, function(bufnr, p)
    status.set(bufnr, p)
    lens.refresh(bufnr)
  end)
  -- The server went away (crash, :LspStop): kernels and namespaces with it.
  client.on_exit(function(bufnrs)
    status.stopped(bufnrs)
    for _, b in ipairs(bufnrs) do
      if vim.api.nvim_buf_is_valid(b) then
        output.restarted(b)
      end
    end
  end)
  local group = vim.api.nvim_create_augroup("backyard", { clear = true })
  vim.api.nvim_create_autocmd("ColorScheme", { group = group, callback = output.highlights })
end

local function handles(bufnr)
  local ft = vim.bo[bufnr].filetype
  return vim.tbl_contains(require("backyard.config").options.filetypes, ft)
end

--- Connects a buffer (default: current) to the shared server and sets
--- its keys and autocommands. The FileType autocommand of
--- plugin/backyard.lua calls it.
---@param bufnr? integer
---@return boolean attached false for a buffer backyard does not handle or that cannot attach
function M.attach(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  if not handles(bufnr) then
    return false
  end
  local client = require("backyard.client")
  local already = client.attached(bufnr)
  if not client.attach(bufnr) then
    return false
  end
  if already then
    return true
  end
  wire()
  local output = require("backyard.output")
  local lens = require("backyard.lens")
  require("backyard.commands").keymaps(bufnr)

  local group = vim.api.nvim_create_augroup("backyard_buf_" .. bufnr, { clear = true })
  local au = vim.api.nvim_create_autocmd
  local stale_pending = false
  au({ "TextChanged", "TextChangedI" }, {
    group = group,
    buffer = bufnr,
    callback = function()
      if stale_pending then
        return
      end
      stale_pending = true
      vim.schedule(function()
        stale_pending = false
        if vim.api.nvim_buf_is_valid(bufnr) then
          output.check_stale(bufnr)
        end
      end)
    end,
  })
  au({ "BufEnter", "InsertLeave", "CursorHold" }, {
    group = group,
    buffer = bufnr,
    callback = function()
      lens.refresh(bufnr)
    end,
  })
  -- Unloading closes the document on the server (and its kernel).
  au("BufUnload", {
    group = group,
    buffer = bufnr,
    callback = function()
      client.detach(bufnr)
      output.forget(bufnr)
      require("backyard.status").forget(bufnr)
      pcall(vim.api.nvim_del_augroup_by_id, group)
    end,
  })
  lens.enable(bufnr)
  local o = require("backyard.config").options
  if o.inlay_hints and vim.lsp.inlay_hint then
    pcall(vim.lsp.inlay_hint.enable, true, { bufnr = bufnr })
  end
  return true
end

--- A short string for the statusline, e.g. "monty · idle"; "" in
--- buffers backyard does not handle.
---@param bufnr? integer default: the current buffer
---@return string
function M.status(bufnr)
  if not package.loaded["backyard.status"] then
    return ""
  end
  return require("backyard.status").text(bufnr)
end

-- Programmatic access to what the commands do.
setmetatable(M, {
  __index = function(_, key)
    local commands = require("backyard.commands")
    return commands[key]
  end,
})

return M
