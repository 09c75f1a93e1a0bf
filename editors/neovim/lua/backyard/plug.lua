-- The <Plug>(backyard-…) mappings: one per key option (see config's
-- keymaps), defined once at startup so that users can map them as they
-- like; the default keys map to them. Nothing is required until one is
-- used.
local M = {}

local function cmds()
  return require("backyard.commands")
end

-- motion moves between cells; in diff mode it is the built-in diff
-- motion (]c/[c: next/previous change) instead.
local function motion(dir, diff_key)
  return function()
    if vim.wo.diff then
      return diff_key
    end
    return ("<Cmd>lua require('backyard.commands').motion(%d)<CR>"):format(dir)
  end
end

---@class backyard.PlugMap
---@field name string key option in `keymaps`, e.g. "run_cell"
---@field modes string[] modes of the mapping
---@field rhs string|function
---@field expr? boolean

-- In the order of :help backyard-keys.
---@type backyard.PlugMap[]
M.maps = {
  { name = "run_cell", modes = { "n" }, rhs = function() cmds().run_cell() end },
  { name = "run_cell_advance", modes = { "n" }, rhs = function() cmds().run_cell_advance() end },
  { name = "run_selection", modes = { "x" }, rhs = ":BackyardRun<CR>" },
  { name = "run_above", modes = { "n" }, rhs = function() cmds().run_above() end },
  { name = "run_below", modes = { "n" }, rhs = function() cmds().run_below() end },
  { name = "run_all", modes = { "n" }, rhs = function() cmds().run_all() end },
  { name = "interrupt", modes = { "n" }, rhs = function() cmds().interrupt() end },
  { name = "restart", modes = { "n" }, rhs = function() cmds().restart(false) end },
  { name = "clear", modes = { "n" }, rhs = function() cmds().clear() end },
  { name = "output", modes = { "n" }, rhs = function() cmds().open_output("") end },
  { name = "variables", modes = { "n" }, rhs = function() cmds().variables() end },
  { name = "next_cell", modes = { "n", "x", "o" }, rhs = motion(1, "]c"), expr = true },
  { name = "prev_cell", modes = { "n", "x", "o" }, rhs = motion(-1, "[c"), expr = true },
}

--- The <Plug> key of a key option, e.g. "<Plug>(backyard-run-cell)".
---@param name string a key option, e.g. "run_cell"
---@return string
function M.lhs(name)
  return "<Plug>(backyard-" .. name:gsub("_", "-") .. ")"
end

--- What a mapping does, for its desc: "backyard: run cell".
---@param name string a key option
---@return string
function M.desc(name)
  return "backyard: " .. name:gsub("_", " ")
end

--- Defines every <Plug>(backyard-…) mapping (global, not remappable).
function M.define()
  for _, m in ipairs(M.maps) do
    vim.keymap.set(m.modes, M.lhs(m.name), m.rhs, { silent = true, expr = m.expr, desc = M.desc(m.name) })
  end
end

return M
