-- Code lenses (▶ Run Cell | Run Above | Run Below | [3] ✓ …). Neovim
-- before 0.12 cannot take the server's workspace/codeLens/refresh, so the
-- plugin asks for lenses itself: after each notification and on
-- BufEnter/InsertLeave/CursorHold.
local client = require("backyard.client")
local config = require("backyard.config")

local M = {}

local pending = {} -- bufnr -> true while a refresh is scheduled

-- server_driven: 0.12+ keeps lenses fresh on its own once enabled.
local function server_driven()
  return vim.lsp.codelens and vim.lsp.codelens.enable ~= nil
end

--- Turns code lenses on for bufnr (as the codelens option says).
---@param bufnr integer
function M.enable(bufnr)
  if server_driven() then
    pcall(vim.lsp.codelens.enable, config.options.codelens, { bufnr = bufnr })
    return
  end
  if config.options.codelens then
    M.refresh(bufnr)
  end
end

local function request(bufnr)
  local c = client.get()
  if not c or not client.attached(bufnr) then
    return
  end
  local on_codelens = vim.lsp.codelens.on_codelens
  if not on_codelens then
    if bufnr == vim.api.nvim_get_current_buf() then
      vim.lsp.codelens.refresh()
    end
    return
  end
  -- Asked of our client only, for any buffer (refresh() before 0.10 only
  -- does the current one, through every client).
  client.request(bufnr, "textDocument/codeLens", { textDocument = { uri = client.uri(bufnr) } }, function(err, result)
    if vim.api.nvim_buf_is_valid(bufnr) then
      on_codelens(err, result, { bufnr = bufnr, client_id = c.id, method = "textDocument/codeLens" })
    end
  end)
end

--- Asks for bufnr's lenses soon; calls within the delay collapse.
---@param bufnr integer
function M.refresh(bufnr)
  if not config.options.codelens or server_driven() or pending[bufnr] then
    return
  end
  pending[bufnr] = true
  vim.defer_fn(function()
    pending[bufnr] = nil
    if vim.api.nvim_buf_is_valid(bufnr) then
      request(bufnr)
    end
  end, 30)
end

return M
