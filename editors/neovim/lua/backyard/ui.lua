-- Scratch buffers shown in a float or a split: full output, variables,
-- kernel info.
local api = vim.api
local M = {}

M.ns = api.nvim_create_namespace("backyard_ui")

-- scratch makes a buffer holding lines ({text, hl} or strings).
local function scratch(lines, name)
  local buf = api.nvim_create_buf(false, true)
  local text = {}
  for i, l in ipairs(lines) do
    text[i] = type(l) == "table" and l[1] or l
  end
  api.nvim_buf_set_lines(buf, 0, -1, false, text)
  for i, l in ipairs(lines) do
    if type(l) == "table" and l[2] then
      api.nvim_buf_set_extmark(buf, M.ns, i - 1, 0, { end_col = #text[i], hl_group = l[2] })
    end
  end
  vim.bo[buf].modifiable = false
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].filetype = "backyard"
  pcall(api.nvim_buf_set_name, buf, name)
  vim.keymap.set("n", "q", "<Cmd>close<CR>", { buffer = buf, nowait = true, silent = true })
  return buf
end

--- Shows lines in a float near the cursor (how = "float") or in a split
--- below (how = "split").
---@param lines (string|{ [1]: string, [2]: string? })[] text, or {text, highlight group}
---@param title string
---@param how? "float"|"split" default: float
---@return integer bufnr
---@return integer winid
function M.open(lines, title, how)
  local buf = scratch(lines, title)
  if how == "split" then
    vim.cmd("belowright split")
    local win = api.nvim_get_current_win()
    api.nvim_win_set_buf(win, buf)
    api.nvim_win_set_height(win, math.max(3, math.min(#lines, math.floor(vim.o.lines / 3))))
    return buf, win
  end
  local width = #title + 4
  for _, l in ipairs(api.nvim_buf_get_lines(buf, 0, -1, false)) do
    width = math.max(width, vim.fn.strdisplaywidth(l))
  end
  width = math.min(width + 1, math.max(20, vim.o.columns - 6))
  local height = math.max(1, math.min(#lines, math.max(3, vim.o.lines - 8)))
  local cfg = {
    relative = "cursor",
    row = 1,
    col = 0,
    width = width,
    height = height,
    style = "minimal",
    border = "rounded",
    title = " " .. title .. " ",
  }
  -- Border titles came in 0.9; older versions reject the key.
  local ok, win = pcall(api.nvim_open_win, buf, true, cfg)
  if not ok then
    cfg.title = nil
    win = api.nvim_open_win(buf, true, cfg)
  end
  vim.wo[win].wrap = false
  vim.keymap.set("n", "<Esc>", "<Cmd>close<CR>", { buffer = buf, nowait = true, silent = true })
  return buf, win
end

return M
