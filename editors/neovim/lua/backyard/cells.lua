-- Cell markers, found with the server's rules (package cells) so that
-- motions and "advance" land where the server thinks cells are:
--   # %%  /  #%%  [title]            code cell
--   # %% [markdown] / [md] [title]   markdown cell
--   # %% [raw] [title]               raw cell, never run
-- (a "# %%" line is read as Jupytext reads it: the type tag anywhere in the
-- title, before the metadata; a code cell inactive in notebooks,
-- active="py", is raw)
--   # In[ ]:  /  # In[12]:  /  # In[]   code cell (colon optional)
--   # <codecell>  /  # <markdowncell>
-- A marker is a whole line from column 0; trailing whitespace is ignored;
-- a line that starts inside a string literal is no marker.
local M = {}

M.CODE = "code"
M.MARKDOWN = "markdown"
M.RAW = "raw"

-- Python's intra-line whitespace, plus \r and \v (as the server).
local SPACE = "[ \t\f\v\r]"

local function rtrim(s)
  return (s:gsub(SPACE .. "+$", ""))
end

local function ltrim(s)
  return (s:gsub("^" .. SPACE .. "+", ""))
end

-- split splits s at every single space, as Python's str.split(" ").
local function split(s)
  local out, from = {}, 1
  while true do
    local at = s:find(" ", from, true)
    if not at then
      out[#out + 1] = s:sub(from)
      return out
    end
    out[#out + 1] = s:sub(from, at - 1)
    from = at + 1
  end
end

-- percent_kind is the kind of a "# %%" cell from the trimmed text after
-- "%%", as Jupytext reads it.
local function percent_kind(t)
  local title, meta
  local curly, eq = t:find("{", 1, true), t:find("=", 1, true)
  if curly and (not eq or curly < eq) then
    title, meta = ltrim(rtrim(t:sub(1, curly - 1))), t:sub(curly)
  else
    local words = split(eq and t:sub(1, eq - 1) or t)
    if eq then
      while #words > 0 and words[#words] == "" do
        words[#words] = nil
      end
      words[#words] = nil -- the key
    end
    while #words > 0 and (vim.trim(words[#words]) == "" or words[#words]:sub(1, 1) == ".") do
      words[#words] = nil
    end
    title = table.concat(words, " ")
    meta = t:sub(#title + 1)
  end
  for _, c in ipairs({ { "[markdown]", M.MARKDOWN }, { "[raw]", M.RAW }, { "[md]", M.MARKDOWN } }) do
    if title:find(c[1], 1, true) then
      return c[2]
    end
  end
  local active = meta:match('^"?active"?%s*[=:]%s*"([^"]*)"') or meta:match('[%s,{]"?active"?%s*[=:]%s*"([^"]*)"')
  if active then
    for ext in active:gmatch("[^.,]+") do
      if ext == "ipynb" then
        return M.CODE
      end
    end
    return M.RAW
  end
  return M.CODE
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
    return percent_kind(ltrim(rtrim(after)))
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

-- Python's strings, found as the server's tokenizer (pysrc.TokenizeLenient)
-- finds them: every prefix, f- and t-string fields (Python 3.12, nested
-- quotes allowed), comments, backslashes; a string left open ends at its
-- line break. Only where strings start and end matters here, so names,
-- numbers and operators are skipped, not classified. One difference: every
-- non-ASCII character counts as a letter, so `€f"{…}"` (a syntax error) is
-- read as no f-string.
local byte, find = string.byte, string.find
local BS, SQ, DQ, HASH, LF, CR = 92, 39, 34, 35, 10, 13
local LBRACE, RBRACE, COLON, DOT = 123, 125, 58, 46
local MAX_NEST = 200 -- as pysrc's maxNest
local IDENT = "^[A-Za-z_\128-\255][A-Za-z0-9_\128-\255]*"
local PREFIXES = { r = 1, u = 1, b = 1, f = 1, t = 1, br = 1, rb = 1, fr = 1, rf = 1, tr = 1, rt = 1 }
-- the next byte a string body stops at, by quote and templating
local STOP = {
  [SQ] = { [false] = "[\\'\n\r]", [true] = "[\\'\n\r{]" },
  [DQ] = { [false] = '[\\"\n\r]', [true] = '[\\"\n\r{]' },
}

local function nl_len(src, i)
  return (byte(src, i) == CR and byte(src, i + 1) == LF) and 2 or 1
end

local function is_digit(c)
  return c ~= nil and c >= 48 and c <= 57
end

local field

-- str scans the string whose quote is at i; returns the index after its
-- closing quote, or nil when it is not closed.
local function str(src, i, raw, tmpl, nest)
  local q = byte(src, i)
  local triple = byte(src, i + 1) == q and byte(src, i + 2) == q
  local j = triple and i + 3 or i + 1
  local stop = STOP[q][tmpl]
  while true do
    j = find(src, stop, j)
    if not j then
      return nil
    end
    local c = byte(src, j)
    if c == BS then
      j = j + 1
      local d = byte(src, j)
      if d == nil then
        return nil
      elseif tmpl and (d == LBRACE or d == RBRACE) then
        -- a backslash never escapes a field's brace
        if d == RBRACE then
          j = j + 1
        end
      elseif tmpl and not raw and d == 78 and byte(src, j + 1) == LBRACE then -- \N{NAME}
        local k = select(2, find(src, "^[A-Za-z0-9 %-]*", j + 2)) + 1
        j = byte(src, k) == RBRACE and k + 1 or j + 1
      elseif d == LF or d == CR then
        j = j + nl_len(src, j)
      else
        j = j + 1
      end
    elseif c == q then
      if not triple then
        return j + 1
      end
      if byte(src, j + 1) == q and byte(src, j + 2) == q then
        return j + 3
      end
      j = j + 1
    elseif c == LF or c == CR then
      if not triple then
        return nil
      end
      j = j + 1
    elseif byte(src, j + 1) == LBRACE then -- "{{"
      j = j + 2
    else
      j = field(src, j + 1, triple, nest + 1)
      if not j then
        return nil
      end
    end
  end
end

local function prefixed(src, j, e, nest)
  local p = src:sub(j, e - 1):lower()
  if not PREFIXES[p] then
    return false
  end
  return true, str(src, e, p:find("r", 1, true) ~= nil, p:find("[ft]") ~= nil, nest)
end

-- spec scans a format spec up to the "}" closing its field.
local function spec(src, j, triple, nest)
  while true do
    j = find(src, "[{}\n\r]", j)
    if not j then
      return nil
    end
    local c = byte(src, j)
    if c == RBRACE then
      return j + 1
    elseif c == LBRACE then
      j = field(src, j + 1, triple, nest + 1)
      if not j then
        return nil
      end
    elseif not triple then
      return nil
    else
      j = j + 1
    end
  end
end

-- field scans a replacement field's expression from j (after its "{").
function field(src, j, triple, nest)
  if nest > MAX_NEST then
    return nil
  end
  local depth, n = 0, #src
  while j <= n do
    local c = byte(src, j)
    if c == SQ or c == DQ then
      j = str(src, j, false, false, nest)
      if not j then
        return nil
      end
    elseif c == HASH then
      j = find(src, "[\n\r]", j) or n + 1
    elseif c == BS then
      j = j + 1
      if byte(src, j) == LF or byte(src, j) == CR then
        j = j + nl_len(src, j)
      end
    elseif c == 40 or c == 91 or c == LBRACE then -- ( [ {
      depth, j = depth + 1, j + 1
    elseif c == 41 or c == 93 then -- ) ]
      depth, j = math.max(depth - 1, 0), j + 1
    elseif c == RBRACE then
      if depth == 0 then
        return j + 1
      end
      depth, j = depth - 1, j + 1
    elseif c == COLON and depth == 0 then
      return spec(src, j + 1, triple, nest)
    else
      local _, e = find(src, IDENT, j)
      if not e then
        j = j + 1
      else
        local q = byte(src, e + 1)
        local ok, after = false, nil
        if q == SQ or q == DQ then
          ok, after = prefixed(src, j, e + 1, nest)
        end
        if ok and not after then
          return nil
        end
        j = ok and after or e + 1
      end
    end
  end
  return nil
end

-- number_end is the index after the number at i (lenient, as pysrc's).
local function number_end(src, i)
  local _, e = find(src, "^0[xXoObB][0-9a-fA-F_]*", i)
  if e then
    return e + 1
  end
  local j = select(2, find(src, "^[0-9_]*", i)) + 1
  if byte(src, j) == DOT then
    j = select(2, find(src, "^[0-9_]*", j + 1)) + 1
  end
  local c = byte(src, j)
  if c == 101 or c == 69 then -- e E
    local k = j + 1
    if byte(src, k) == 43 or byte(src, k) == 45 then
      k = k + 1
    end
    if is_digit(byte(src, k)) then
      j = select(2, find(src, "^[0-9_]*", k)) + 1
    end
  end
  c = byte(src, j)
  if c == 106 or c == 74 then -- j J
    j = j + 1
  end
  return j
end

-- strings returns the spans {start, stop} (stop exclusive) of the string
-- literals of src, and the index of its first code (not blank or comment),
-- or #src + 1.
local function strings(src)
  local spans, first_code = {}, nil
  local n = #src
  local i = src:sub(1, 3) == "\239\187\191" and 4 or 1
  local function literal(start, q, after)
    if not after then -- not closed: it ends at its line break
      after = find(src, "[\n\r]", q) or n + 1
    end
    spans[#spans + 1] = { start, after }
    return after
  end
  while i <= n do
    local c = byte(src, i)
    local _, ws = find(src, "^[ \t\f\v\n\r]+", i)
    if ws then
      i = ws + 1
    elseif c == HASH then
      i = find(src, "[\n\r]", i) or n + 1
    elseif c == BS and (byte(src, i + 1) == LF or byte(src, i + 1) == CR or i == n) then
      i = i + 2 -- a line continuation (a "\r\n" after it is skipped as blank)
    else
      first_code = first_code or i
      if c == SQ or c == DQ then
        i = literal(i, i, str(src, i, false, false, 0))
      elseif is_digit(c) or (c == DOT and is_digit(byte(src, i + 1))) then
        i = number_end(src, i)
      else
        local _, e = find(src, IDENT, i)
        local q = e and byte(src, e + 1)
        if q == SQ or q == DQ then
          local ok, after = prefixed(src, i, e + 1, 0)
          i = ok and literal(i, e + 1, after) or e + 1
        elseif e then
          i = e + 1
        elseif src:sub(i, i + 2) == "..." then
          i = i + 3
        else
          i = i + 1
        end
      end
    end
  end
  return spans, first_code or n + 1
end

-- parse splits lines into cells: {kind, header (0-based line or -1 for the
-- implicit first cell), start (first body line), stop (exclusive end)}.
-- A line starting inside a string literal is no marker. Text above the
-- first marker is a cell only if it holds code (not only comments and
-- blank lines); a file without markers is one cell.
function M.parse(lines)
  local spans, first_code = strings(table.concat(lines, "\n"))
  local headers = {}
  local at, s = 1, 1 -- index of line i in the text; the next span
  for i, l in ipairs(lines) do
    while spans[s] and spans[s][2] <= at do
      s = s + 1
    end
    local in_string = spans[s] ~= nil and spans[s][1] < at
    local kind = not in_string and M.marker(l)
    if kind then
      headers[#headers + 1] = { line = i - 1, kind = kind, at = at }
    end
    at = at + #l + 1
  end
  local cells = {}
  local first = headers[1] and headers[1].line or #lines
  local implicit = #headers == 0 or first_code < headers[1].at
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
