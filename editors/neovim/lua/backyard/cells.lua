-- Cell markers, found with the server's rules (package cells) so that
-- motions and "advance" land where the server thinks cells are:
--   # %%  /  #%%  [title]            code cell
--   # %% [markdown] / [md] [title]   markdown cell (tag first or last)
--   # In[ ]:  /  # In[12]:  /  # In[]   code cell (colon optional)
--   # <codecell>  /  # <markdowncell>
-- A marker is a whole line from column 0; trailing whitespace is ignored.
local M = {}

M.CODE = "code"
M.MARKDOWN = "markdown"

-- Python's intra-line whitespace, plus \r and \v (as the server).
local SPACE = "[ \t\f\v\r]"

local function rtrim(s)
  return (s:gsub(SPACE .. "+$", ""))
end

local function ltrim(s)
  return (s:gsub("^" .. SPACE .. "+", ""))
end

local function has_tag(t)
  for _, tag in ipairs({ "[markdown]", "[md]" }) do
    local n = #tag
    if t:sub(1, n) == tag and (#t == n or t:sub(n + 1, n + 1):match(SPACE)) then
      return true
    end
    if #t >= n and t:sub(-n) == tag and (#t == n or t:sub(-n - 1, -n - 1):match(SPACE)) then
      return true
    end
  end
  return false
end

-- "]" or "]:" after an optional count with spaces: " ]", "12]:".
local function in_prompt(s)
  local close = s:find("]", 1, true)
  if not close then
    return false
  end
  local tail = s:sub(close + 1)
  if tail ~= "" and tail ~= ":" then
    return false
  end
  local count = s:sub(1, close - 1):gsub("^ +", ""):gsub(" +$", "")
  return count:match("^%d*$") ~= nil
end

-- marker returns the kind of cell a line starts, or nil.
function M.marker(line)
  local s = rtrim(line)
  if s:sub(1, 1) ~= "#" then
    return nil
  end
  local rest = ltrim(s:sub(2))
  if rest:sub(1, 2) == "%%" then
    local after = rest:sub(3)
    if after ~= "" and not after:sub(1, 1):match(SPACE) then
      return nil -- "# %%%" and "# %%x" are comments
    end
    return has_tag(ltrim(rtrim(after))) and M.MARKDOWN or M.CODE
  elseif rest:sub(1, 3) == "In[" then
    return in_prompt(rest:sub(4)) and M.CODE or nil
  elseif rest == "<codecell>" then
    return M.CODE
  elseif rest == "<markdowncell>" then
    return M.MARKDOWN
  end
  return nil
end

local function blank(line)
  return line:match("^" .. SPACE .. "*$") ~= nil
end

-- parse splits lines into cells: {kind, header (0-based line or -1 for the
-- implicit first cell), start (first body line), stop (exclusive end)}.
-- Text above the first marker is a cell only if it is not blank; a file
-- without markers is one cell.
function M.parse(lines)
  local headers = {}
  for i, l in ipairs(lines) do
    local kind = M.marker(l)
    if kind then
      headers[#headers + 1] = { line = i - 1, kind = kind }
    end
  end
  local cells = {}
  local first = headers[1] and headers[1].line or #lines
  local implicit = #headers == 0
  for i = 1, first do
    if not blank(lines[i]) then
      implicit = true
      break
    end
  end
  if implicit and #lines > 0 then
    cells[#cells + 1] = { kind = M.CODE, header = -1, start = 0, stop = first }
  end
  for i, h in ipairs(headers) do
    local stop = headers[i + 1] and headers[i + 1].line or #lines
    cells[#cells + 1] = { kind = h.kind, header = h.line, start = h.line + 1, stop = stop }
  end
  return cells
end

-- first line of a cell: its header, or line 0 for the implicit cell.
function M.first(c)
  return c.header >= 0 and c.header or c.start
end

-- at returns the index of the cell containing the 0-based line, or nil.
function M.at(cells, line)
  for i, c in ipairs(cells) do
    if line >= M.first(c) and line < c.stop then
      return i
    end
  end
  return nil
end

local function buf_cells(bufnr)
  return M.parse(vim.api.nvim_buf_get_lines(bufnr, 0, -1, false))
end

-- code_at returns the cell containing line and its code as the server
-- runs it: body lines from the first to the last non-blank one, and that
-- last line. all is parse(lines), when the caller has it.
function M.code_at(lines, line, all)
  all = all or M.parse(lines)
  local c = all[M.at(all, line) or 0]
  if not c then
    return nil
  end
  local last = c.stop - 1
  while last >= c.start and blank(lines[last + 1]) do
    last = last - 1
  end
  return c, table.concat(lines, "\n", c.start + 1, last + 1), last
end

-- next_start is the first cell start below line, count times; nil when
-- there is none.
function M.next_start(bufnr, line, count)
  local target
  for _, c in ipairs(buf_cells(bufnr)) do
    if M.first(c) > line then
      target = M.first(c)
      count = count - 1
      line = target
      if count == 0 then
        break
      end
    end
  end
  return target
end

-- prev_start is the last cell start above line, count times.
function M.prev_start(bufnr, line, count)
  local starts = {}
  for _, c in ipairs(buf_cells(bufnr)) do
    if M.first(c) < line then
      starts[#starts + 1] = M.first(c)
    end
  end
  return starts[math.max(#starts - count + 1, 1)]
end

-- next_code_line is where "run and advance" puts the cursor: the first
-- body line of the next code cell below line (its header if the body is
-- past the end of the buffer), or nil.
function M.next_code_line(bufnr, line)
  local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
  local cells = M.parse(lines)
  local here = M.at(cells, line)
  for i = (here or 0) + 1, #cells do
    local c = cells[i]
    if c.kind == M.CODE and M.first(c) > line then
      return c.start < #lines and c.start or M.first(c)
    end
  end
  return nil
end

-- utf16 is the number of UTF-16 code units in the first `bytes` bytes of
-- s: what an LSP character offset counts. Done by hand because
-- vim.str_utfindex changed its signature in 0.11.
function M.utf16(s, bytes)
  bytes = math.min(bytes or #s, #s)
  local n, i = 0, 1
  while i <= bytes do
    local b = s:byte(i)
    local size = b < 0x80 and 1 or b >= 0xF0 and 4 or b >= 0xE0 and 3 or b >= 0xC0 and 2 or 1
    n = n + (size == 4 and 2 or 1)
    i = i + size
  end
  return n
end

return M
