-- Kernel state per buffer, from backyard/kernelState, for the statusline.
local M = {}

local kernels = {} -- bufnr -> {backend, runtime, state}

local function changed()
  -- Statusline plugins can listen for this; plain statuslines redraw.
  pcall(vim.api.nvim_exec_autocmds, "User", { pattern = "BackyardStatus", modeline = false })
  vim.cmd("redrawstatus!")
end

--- Records a backyard/kernelState notification.
---@param bufnr integer
---@param p { backend?: string, runtime?: string, state?: string }
function M.set(bufnr, p)
  kernels[bufnr] = { backend = p.backend or "", runtime = p.runtime or "", state = p.state or "" }
  changed()
end

--- Marks buffers whose server went away.
---@param bufnrs integer[]
function M.stopped(bufnrs)
  for _, b in ipairs(bufnrs) do
    if kernels[b] then
      kernels[b].state = "stopped"
    else
      kernels[b] = { backend = "", runtime = "", state = "stopped" }
    end
  end
  changed()
end

---@param bufnr integer
function M.forget(bufnr)
  kernels[bufnr] = nil
end

-- label is "monty", "container/runsc" …; the configured backend when no
-- kernel has started yet.
local function label(k, fallback)
  local name = k and k.backend ~= "" and k.backend or fallback
  if k and k.runtime ~= "" and k.runtime ~= name then
    name = name .. "/" .. k.runtime
  end
  return name
end

--- The statusline string of bufnr: "monty · idle", "auto · no kernel",
--- or "" for a buffer backyard does not handle.
---@param bufnr? integer default: the current buffer
---@return string
function M.text(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  local k = kernels[bufnr]
  local client = package.loaded["backyard.client"]
  local attached = client and client.uri(bufnr) ~= nil
  if not k and not attached then
    return ""
  end
  local backend = require("backyard.config").options.backend
  if not k then
    return backend .. " · no kernel"
  end
  return label(k, backend) .. " · " .. (k.state ~= "" and k.state or "?")
end

return M
