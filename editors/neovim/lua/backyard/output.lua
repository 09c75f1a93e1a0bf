-- Inline output: each cell's output as extmark virtual lines under the
-- cell, driven by backyard/executionState and backyard/output.
--
-- An output covers a region of lines (two extmarks, so it follows edits).
-- A new execution whose range overlaps a region takes that region over:
-- rerunning a cell replaces its output.
local cells = require("backyard.cells")
local config = require("backyard.config")
local image = require("backyard.image")

local api = vim.api
local M = {}

M.ns = api.nvim_create_namespace("backyard_output")

local bufs = {} -- bufnr -> {list = {output…}, by_id = {executionId -> output}}

local function opts()
  return config.options.output
end

local function nilify(v)
  if v == vim.NIL then
    return nil
  end
  return v
end

--- Defines the default links of the Backyard* highlight groups.
function M.highlights()
  for group, link in pairs({
    BackyardHeader = "Comment",
    BackyardHeaderError = "DiagnosticError",
    BackyardRunning = "DiagnosticInfo",
    BackyardStdout = "Normal",
    BackyardStderr = "DiagnosticWarn",
    BackyardResult = "Special",
    BackyardError = "DiagnosticError",
    BackyardTraceback = "Comment",
    BackyardStale = "NonText",
    BackyardMore = "Comment",
    BackyardPrefix = "NonText",
    BackyardFiles = "DiagnosticHint",
  }) do
    vim.cmd(("highlight default link %s %s"):format(group, link))
  end
end

local function state(bufnr)
  local s = bufs[bufnr]
  if not s then
    s = { list = {}, by_id = {} }
    bufs[bufnr] = s
  end
  return s
end

-- rows is the output's current region (0-based, inclusive).
local function rows(bufnr, o)
  local s = api.nvim_buf_get_extmark_by_id(bufnr, M.ns, o.start_mark, {})
  local e = api.nvim_buf_get_extmark_by_id(bufnr, M.ns, o.end_mark, {})
  if not s[1] or not e[1] then
    return nil
  end
  return s[1], math.max(s[1], e[1])
end

local function region_text(bufnr, first, last)
  return table.concat(api.nvim_buf_get_lines(bufnr, first, last + 1, false), "\n")
end

-- buffer_cells reads bufnr's lines and cells once per check.
local function buffer_cells(bufnr)
  local lines = api.nvim_buf_get_lines(bufnr, 0, -1, false)
  return { lines = lines, all = cells.parse(lines) }
end

-- current_text is what o's staleness compares: the whole code of its cell
-- for a cell's output (so a line added at its end counts), else the lines
-- of its region (a selection).
local function current_text(bufnr, o, first, last, buf)
  if o.cell then
    local _, code = cells.code_at(buf.lines, first, buf.all)
    return code
  end
  return region_text(bufnr, first, last)
end

local function clamp_row(bufnr, row)
  return math.max(0, math.min(row, api.nvim_buf_line_count(bufnr) - 1))
end

-- place moves o's marks to the lines of an LSP range and remembers their
-- text, so an edit there marks the output stale.
local function place(bufnr, o, range)
  local first = clamp_row(bufnr, range.start.line)
  local last = clamp_row(bufnr, math.max(range["end"].line, range.start.line))
  o.start_mark = api.nvim_buf_set_extmark(bufnr, M.ns, first, 0, { id = o.start_mark })
  o.end_mark = api.nvim_buf_set_extmark(bufnr, M.ns, last, 0, { id = o.end_mark })
  -- A range that is exactly a cell's code is that cell's output.
  local buf = buffer_cells(bufnr)
  local c, _, code_last = cells.code_at(buf.lines, first, buf.all)
  o.cell = c ~= nil and c.start == first and code_last == last
  o.snapshot = current_text(bufnr, o, first, last, buf)
  o.stale = false
end

local function delete(bufnr, o)
  image.image_nvim_sweep(bufnr, tostring(o.start_mark), {})
  pcall(api.nvim_buf_del_extmark, bufnr, M.ns, o.start_mark)
  pcall(api.nvim_buf_del_extmark, bufnr, M.ns, o.end_mark)
  o.deleted = true
end

-- claim finds the output for an execution over range: the first existing
-- one overlapping it (others overlapping are dropped), else a new one.
local function claim(bufnr, range)
  local s = state(bufnr)
  local first, last = range.start.line, math.max(range["end"].line, range.start.line)
  local keep, rest = nil, {}
  for _, o in ipairs(s.list) do
    local a, b = rows(bufnr, o)
    if a and not (b < first or a > last) then
      if keep then
        delete(bufnr, o)
      else
        keep = o
        rest[#rest + 1] = o
      end
    elseif a then
      rest[#rest + 1] = o
    end
  end
  if not keep then
    keep = {}
    rest[#rest + 1] = keep
  end
  s.list = rest
  place(bufnr, keep, range)
  return keep
end

-- Text to display lines: no tabs, terminal colour codes or control
-- characters (virtual text shows them as ^I, ^[), no trailing newline.
local function split(text)
  local out = {}
  if not text or text == "" then
    return out
  end
  text = text:gsub("\r\n", "\n"):gsub("\n$", "")
  for line in (text .. "\n"):gmatch("(.-)\n") do
    line = line:gsub("\t", "    "):gsub("\27%[[%d;]*%a", ""):gsub("%c", "")
    out[#out + 1] = line
  end
  return out
end

-- fixed is x with the given decimals, rounded as Go's FormatFloat rounds
-- the server's lenses: LuaJIT rounds exact binary ties (0.625) up, Go to
-- even. A tie at d decimals is representable only if x * 2^(d+1) is whole.
local function fixed(x, decimals)
  local f = "%." .. decimals .. "f"
  local scale = 10 ^ decimals
  if (x * 2 ^ (decimals + 1)) % 1 == 0 and (x * scale) % 1 == 0.5 then
    local q = math.floor(x * scale)
    return f:format((q % 2 == 0 and q or q + 1) / scale)
  end
  return f:format(x)
end

--- Renders milliseconds as the server's lenses do: "0.12 ms", "3.4 s".
---@param ms number|string
---@return string
function M.format_duration(ms)
  ms = tonumber(ms) or 0
  if ms < 1 then
    return fixed(ms, 2) .. " ms"
  elseif ms < 10 then
    return fixed(ms, 1) .. " ms"
  elseif ms < 1000 then
    return fixed(ms, 0) .. " ms"
  elseif ms < 60000 then
    return fixed(ms / 1000, 1) .. " s"
  end
  local sec = math.floor(ms / 1000)
  return ("%d min %d s"):format(math.floor(sec / 60), sec % 60)
end

local icons = {
  ok = "✓",
  error = "✗",
  interrupted = "■ interrupted",
  timeout = "⏱ timed out",
  crashed = "✗ kernel crashed",
}

--- The header of an execution: "[3] ✓ 0.12 ms · monty".
---@param x table an Execution (server JSON)
---@return string
function M.header(x)
  local o = opts()
  local count = (tonumber(x.executionCount) or 0) > 0 and ("[" .. x.executionCount .. "]") or "[ ]"
  -- An error's name is on the next line, not repeated here.
  local text = count .. " " .. (icons[x.status] or x.status or "?")
  if o.show_duration and x.durationMs then
    text = text .. " " .. M.format_duration(x.durationMs)
  end
  if o.show_backend and x.backend and x.backend ~= "" then
    local b = x.backend
    if x.runtime and x.runtime ~= "" and x.runtime ~= b then
      b = b .. "/" .. x.runtime
    end
    text = text .. " · " .. b
  end
  return text
end

local marks = { created = "+", changed = "~", deleted = "-" }

--- The sign of a file change: + created, ~ changed, - deleted.
---@param state string
---@return string
function M.file_mark(state)
  return marks[state] or "~"
end

--- path relative to folder dir when it lies below it, else as given.
---@param dir? string
---@param path string
---@return string
function M.relative(dir, path)
  if dir and dir ~= "" then
    local base = dir:sub(-1) == "/" and dir or dir .. "/"
    if path:sub(1, #base) == base then
      return path:sub(#base + 1)
    end
  end
  return path
end

local CAUSE = "\nThe above exception was the direct cause of the following exception:\n\n"
local CONTEXT = "\nDuring handling of the above exception, another exception occurred:\n\n"
local MAX_GROUP_DEPTH = 10

-- exception_only is an exception's own lines: "ENAME: message" (the name
-- alone for no message), then its notes.
local function exception_only(e)
  local s = (e.evalue and e.evalue ~= "") and (e.ename .. ": " .. e.evalue) or (e.ename or "Error")
  s = s .. "\n"
  for _, n in ipairs(nilify(e.notes) or {}) do
    s = s .. n .. "\n"
  end
  return s
end

--- The lines of err as CPython's traceback module prints it (and IPython,
--- which prints exception groups through it): the chain first (each cause
--- or context, then the line that says which), each exception's frames
--- under "Traceback (most recent call last):", its "ENAME: message" line
--- and its notes; a group's members boxed as CPython boxes them. frame
--- gives a frame's text (lines each ending in "\n"). Each line is {text,
--- kind}: kind "error" for an exception's own lines, else "frame". (The
--- server's notebook.Traceback; both are tested against
--- notebook/testdata/tracebacks.json.)
---@param err table an ExecutionError
---@param frame fun(f: table): string
---@return table[]
function M.traceback_lines(err, frame)
  local out, depth, close = {}, 0, false
  local function indent()
    return string.rep(" ", 2 * depth)
  end
  local function emit(text, kind, margin)
    local prefix = indent() .. (depth > 0 and ((margin or "|") .. " ") or "")
    for l in text:gmatch("[^\n]*\n") do
      out[#out + 1] = { prefix .. l:sub(1, -2), kind }
    end
  end
  local function frames(e)
    local s = ""
    for _, f in ipairs(nilify(e.traceback) or {}) do
      s = s .. frame(f)
    end
    return s
  end
  local format
  local function group(x)
    local top = depth == 0
    if top then
      depth = depth + 1
    end
    if #(nilify(x.traceback) or {}) > 0 then
      emit("Exception Group Traceback (most recent call last):\n", "frame", top and "+" or "|")
      emit(frames(x), "frame")
    end
    emit(exception_only(x), "error")
    local members = nilify(x.exceptions) or {}
    local more = tonumber(x.moreExceptions) or 0
    local shown = #members + (more > 0 and 1 or 0)
    close = false
    for i = 1, shown do
      local last = i == shown
      if last then
        close = true
      end
      local title = i <= #members and tostring(i) or "..."
      out[#out + 1] = { indent() .. (i == 1 and "+-" or "  ") .. "+---------------- " .. title .. " ----------------", "frame" }
      depth = depth + 1
      if i <= #members then
        format(members[i])
      else
        emit("and " .. more .. " more exception" .. (more == 1 and "" or "s") .. "\n", "error")
      end
      if last and close then
        out[#out + 1] = { indent() .. "+------------------------------------", "frame" }
        close = false
      end
      depth = depth - 1
    end
    if top then
      depth = 0
    end
  end
  format = function(e)
    local chain = {}
    local x = e
    while x do
      local cause, context = nilify(x.cause), nilify(x.context)
      chain[#chain + 1] = { msg = cause and CAUSE or (context and CONTEXT or nil), e = x }
      x = cause or context
    end
    for i = #chain, 1, -1 do
      local c = chain[i]
      if c.msg then
        emit(c.msg, "frame")
      end
      local y = c.e
      if #(nilify(y.exceptions) or {}) == 0 and (tonumber(y.moreExceptions) or 0) == 0 then
        if #(nilify(y.traceback) or {}) > 0 then
          emit("Traceback (most recent call last):\n", "frame")
          emit(frames(y), "frame")
        end
        emit(exception_only(y), "error")
      elseif depth > MAX_GROUP_DEPTH then
        emit("... (max_group_depth is " .. MAX_GROUP_DEPTH .. ")\n", "frame")
      else
        group(y)
      end
    end
  end
  format(err)
  return out
end

--- err as text: the lines of traceback_lines, each ending in "\n".
---@param err table
---@param frame fun(f: table): string
---@return string
function M.traceback(err, frame)
  local s = ""
  for _, l in ipairs(M.traceback_lines(err, frame)) do
    s = s .. l[1] .. "\n"
  end
  return s
end

-- frame_text is a frame as the output shows it, on one line.
local function frame_text(f)
  local where = ""
  if (tonumber(f.line) or -1) >= 0 then
    where = "line " .. (f.line + 1) .. ", "
  elseif type(f.file) == "string" and f.file ~= "" then
    where = f.file .. ":" .. (tonumber(f.fileLine) or 0) .. ", " -- library code
  end
  local text = f.text and f.text ~= "" and (": " .. vim.trim(f.text)) or ""
  return "  " .. where .. "in " .. (f.name or "?") .. text .. "\n"
end

-- rich_note is the line under a display or value that names its MIME
-- types other than text/plain and images; rich (on the line) says what
-- :BackyardOutput opens or saves from it.
local function rich_note(data, out, ctx)
  local others = {}
  for mime in pairs(data) do
    if mime ~= "text/plain" and not vim.tbl_contains(image.mimes, mime) then
      others[#others + 1] = mime
    end
  end
  if #others == 0 then
    return
  end
  table.sort(others)
  -- What opens: HTML first (a browser shows it), else the first named.
  local pick = vim.tbl_contains(others, "text/html") and "text/html" or others[1]
  local hint = ctx.full and " · <CR> open · s save" or " — open with :BackyardOutput"
  out[#out + 1] = {
    "  [" .. table.concat(others, ", ") .. hint .. "]",
    "BackyardMore",
    rich = { mime = pick, data = data[pick] },
  }
end

-- image_lines adds the lines of an image: drawn (kitty, image.nvim) in
-- the inline output where the terminal can, else a placeholder line.
local function image_lines(mime, data, out, ctx)
  if ctx.inline and ctx.mode == "kitty" and mime == "image/png" then
    for _, l in ipairs(image.kitty_lines(data, ctx.cols, ctx.rows)) do
      out[#out + 1] = l
    end
    return
  end
  if ctx.inline and ctx.mode == "image.nvim" and ctx.bufnr and ctx.row then
    if image.image_nvim_draw(ctx.bufnr, ctx.key, ctx.gen, mime, data, ctx.row, 0) then
      out[#out + 1] = { "[" .. image.describe(mime, data) .. " — drawn by image.nvim]", "BackyardMore" }
      return
    end
  end
  local text = ctx.full and ("[" .. image.describe(mime, data) .. " · <CR> open · s save]")
    or image.placeholder(mime, data)
  out[#out + 1] = { text, "BackyardMore", rich = { mime = mime, data = data } }
end

-- is_payload: a display that is a kernel's payload (%load, %edit; its
-- metadata {"payload": {"source": ...}}) is no output: the server acts on
-- it, as Jupyter's front end does, and nothing shows it.
local function is_payload(d)
  local meta = nilify(d.metadata)
  local p = type(meta) == "table" and nilify(meta.payload) or nil
  return type(p) == "table" and type(p.source) == "string" and p.source ~= ""
end

-- display_lines adds the lines of one display output: its image, else its
-- text/plain form, then a note naming its other MIME types.
local function display_lines(d, out, ctx)
  if is_payload(d) then
    return
  end
  local data = nilify(d.data) or {}
  local mime = image.image_mime(data)
  if mime then
    image_lines(mime, data[mime], out, ctx)
    return
  end
  for _, l in ipairs(split(data["text/plain"])) do
    out[#out + 1] = { l, "BackyardResult" }
  end
  rich_note(data, out, ctx)
end

-- streams_and_displays adds stdout and stderr with the displays shown
-- before the value among them, as Jupyter orders them: each display after
-- the text printed before it (stdoutBefore, stderrBefore: bytes), stdout
-- before stderr between two displays.
local function streams_and_displays(stdout, stderr, displays, out, ctx)
  local text = { stdout = stdout or "", stderr = stderr or "" }
  local hl = { stdout = "BackyardStdout", stderr = "BackyardStderr" }
  local done = { stdout = 0, stderr = 0 }
  local function flush(upto)
    for _, st in ipairs({ "stdout", "stderr" }) do
      local stop = math.min(math.max(upto[st] or 0, done[st]), #text[st])
      if stop > done[st] then
        for _, l in ipairs(split(text[st]:sub(done[st] + 1, stop))) do
          out[#out + 1] = { l, hl[st] }
        end
        done[st] = stop
      end
    end
  end
  for _, d in ipairs(displays) do
    if d.afterResult ~= true then
      flush({ stdout = tonumber(d.stdoutBefore) or 0, stderr = tonumber(d.stderrBefore) or 0 })
      display_lines(d, out, ctx)
    end
  end
  flush({ stdout = #text.stdout, stderr = #text.stderr })
end

-- body lists {text, hl} of an execution: stdout, stderr and the displays
-- among them, the value, the displays shown after it, the error (its
-- message, then, with the traceback option, the whole exception as
-- CPython prints it), then the files it changed (paths relative to dir).
local function body(x, out, dir, ctx)
  ctx = ctx or {}
  local displays = nilify(x.displays) or {}
  streams_and_displays(x.stdout, x.stderr, displays, out, ctx)
  local res = nilify(x.result)
  if res then
    local value = split(res.text)
    for i, l in ipairs(value) do
      out[#out + 1] = { (i == 1 and "→ " or "  ") .. l, "BackyardResult" }
    end
    local mime = nilify(res.mime) or {}
    local img = image.image_mime(mime)
    if img then
      image_lines(img, mime[img], out, ctx)
    end
    rich_note(mime, out, ctx)
  end
  for _, d in ipairs(displays) do
    if d.afterResult == true then
      display_lines(d, out, ctx)
    end
  end
  local err = nilify(x.error)
  if err then
    -- The exception first, as IPython's header names it; then, with the
    -- traceback option, the whole exception as CPython prints it.
    for _, l in ipairs(split(exception_only(err))) do
      out[#out + 1] = { l, "BackyardError" }
    end
    local whole = #(nilify(err.traceback) or {}) > 0 or nilify(err.cause) or nilify(err.context) or #(nilify(err.exceptions) or {}) > 0
    if opts().traceback and whole then
      for _, l in ipairs(M.traceback_lines(err, frame_text)) do
        out[#out + 1] = { l[1], l[2] == "error" and "BackyardError" or "BackyardTraceback" }
      end
    end
  end
  for _, n in ipairs(nilify(x.notes) or {}) do
    out[#out + 1] = { "note: " .. n, "BackyardMore" }
  end
  for _, f in ipairs(nilify(x.files) or {}) do
    out[#out + 1] = { M.file_mark(f.state) .. " " .. M.relative(dir, f.path), "BackyardFiles" }
  end
  return out
end

-- lines is the full output of o as {text, hl}: the header first; file
-- paths relative to dir. ctx says where it goes: inline (images drawn
-- where the terminal can) or full (:BackyardOutput).
local function lines(o, dir, ctx)
  ctx = ctx or {}
  local out = {}
  local live = o.live
  if live and live.state == "running" then
    out[1] = { "[*] running…", "BackyardRunning" }
    streams_and_displays(live.stdout, live.stderr, live.displays, out, ctx)
    return out
  end
  local x = o.exec
  if live then -- queued: keep the previous output, dimmed, under the new state
    out[1] = { "[ ] queued", "BackyardRunning" }
    if x then
      for _, l in ipairs(body(x, {}, dir, { full = ctx.full })) do
        out[#out + 1] = { l[1], "BackyardStale", rich = l.rich }
      end
    end
    return out
  end
  if not x then
    return out
  end
  out[1] = { M.header(x), x.status == "ok" and "BackyardHeader" or "BackyardHeaderError" }
  return body(x, out, dir, ctx)
end

-- render draws o's lines (folded) under its region.
local function render(bufnr, o)
  if o.deleted or not api.nvim_buf_is_valid(bufnr) then
    return
  end
  local op = opts()
  local _, last = rows(bufnr, o)
  if not last then
    return
  end
  local stale = (o.stale or o.restarted) and not o.live
  local win = vim.fn.bufwinid(bufnr)
  local width = win ~= -1 and api.nvim_win_get_width(win) or vim.o.columns
  local ctx = {
    inline = true,
    mode = image.mode(op.images),
    bufnr = bufnr,
    row = last,
    key = tostring(o.start_mark),
    gen = {},
    cols = math.max(10, width - vim.fn.strdisplaywidth(op.prefix or "") - 1),
    rows = op.image_rows or 12,
  }
  local all = lines(o, vim.fn.fnamemodify(api.nvim_buf_get_name(bufnr), ":p:h"), ctx)
  if ctx.mode == "image.nvim" then
    image.image_nvim_sweep(bufnr, ctx.key, ctx.gen) -- the images no longer in it
  end
  if stale and all[1] then
    all[1] = { all[1][1] .. " · stale", all[1][2] }
  end
  -- Folded after max lines (the header and each image's rows after its
  -- first do not count; an image is not cut).
  local max = math.max(op.max_lines or 20, 1)
  local virt, shown = {}, 0
  for i, l in ipairs(all) do
    if i > 1 and l.image ~= "more" then
      shown = shown + 1
    end
    if shown > max then
      local more = 0
      for j = i, #all do
        more = more + ((all[j].image == "more") and 0 or 1)
      end
      virt[#virt + 1] = {
        { op.prefix, "BackyardPrefix" },
        { ("… %d more line%s (:BackyardOutput)"):format(more, more == 1 and "" or "s"), "BackyardMore" },
      }
      break
    end
    -- An image's rows keep their group: its colour is the image's id.
    virt[#virt + 1] = { { op.prefix, "BackyardPrefix" }, { l[1], (stale and not l.image) and "BackyardStale" or l[2] } }
  end
  if op.prefix == "" then
    for _, v in ipairs(virt) do
      table.remove(v, 1)
    end
  end
  o.end_mark = api.nvim_buf_set_extmark(bufnr, M.ns, last, 0, {
    id = o.end_mark,
    virt_lines = #virt > 0 and virt or nil,
  })
end

local scheduled = 0 -- renders waiting for their throttle timer

--- The number of throttled renders not yet done (for tests).
---@return integer
function M.pending()
  return scheduled
end

local function schedule_render(bufnr, o)
  if o.scheduled then
    return
  end
  o.scheduled = true
  scheduled = scheduled + 1
  vim.defer_fn(function()
    scheduled = scheduled - 1
    o.scheduled = false
    render(bufnr, o)
  end, opts().throttle_ms or 50)
end

--- Handles backyard/executionState.
---@param bufnr integer
---@param p table the notification's params
function M.on_state(bufnr, p)
  if not opts().enabled then
    return
  end
  local s = state(bufnr)
  local id = p.executionId
  local o = s.by_id[id]
  if o and o.deleted then
    o = nil
  end
  if not o then
    if p.state == "done" and not nilify(p.execution) then
      return -- dropped before we saw it queued: nothing to show
    end
    o = claim(bufnr, p.range)
    s.by_id[id] = o
  end
  if p.state == "queued" or p.state == "running" then
    o.live = { id = id, state = p.state, stdout = "", stderr = "", displays = {} }
    render(bufnr, o)
    return
  end
  -- done
  s.by_id[id] = nil
  if o.live and o.live.id == id then
    o.live = nil
  end
  local x = nilify(p.execution)
  if x then
    o.exec, o.restarted = x, false
    s.last = { id = id, o = o } -- output printed after it, between cells, shows under it
  elseif not o.exec then
    delete(bufnr, o)
    s.list = vim.tbl_filter(function(v)
      return v ~= o
    end, s.list)
    return
  end
  render(bufnr, o)
end

--- Handles backyard/output: streamed text of a running cell, or text a
--- thread printed after the last cell ended (idle), shown under that cell
--- as Jupyter shows it.
---@param bufnr integer
---@param p { executionId: string, stream: "stdout"|"stderr", text: string, idle: boolean? }
function M.on_output(bufnr, p)
  local s = bufs[bufnr]
  if p.idle == true then
    local last = s and s.last
    if last and last.id == p.executionId and last.o.exec and not last.o.deleted then
      local key = p.stream == "stderr" and "stderr" or "stdout"
      last.o.exec[key] = (last.o.exec[key] or "") .. (p.text or "")
      schedule_render(bufnr, last.o)
    end
    return
  end
  local o = s and s.by_id[p.executionId]
  if not o or o.deleted or not o.live or o.live.id ~= p.executionId then
    return
  end
  local key = p.stream == "stderr" and "stderr" or "stdout"
  o.live[key] = o.live[key] .. (p.text or "")
  schedule_render(bufnr, o)
end

--- Handles backyard/display: a display output of a running cell, shown
--- after the text printed before it; an update replaces the data of the
--- cell's outputs with its display id (of a cell that ran before too:
--- update_display in a later cell, as in Jupyter); a clear drops the
--- cell's displays so far (clear_output). The done record then has them all.
---@param bufnr integer
---@param p { executionId: string, display: table?, update: boolean?, clear: boolean? }
function M.on_display(bufnr, p)
  local s = bufs[bufnr]
  local o = s and s.by_id[p.executionId]
  if s and p.update == true and not (o and o.live and o.live.id == p.executionId) then
    local d = nilify(p.display)
    local id = type(d) == "table" and nilify(d.displayId) or nil
    for _, x in ipairs(id and s.list or {}) do
      if not x.deleted and x.exec and x.exec.id == p.executionId then
        for _, disp in ipairs(nilify(x.exec.displays) or {}) do
          if disp.displayId == id then
            disp.data, disp.metadata = d.data, d.metadata
          end
        end
        schedule_render(bufnr, x)
      end
    end
    return
  end
  if not o or o.deleted or not o.live or o.live.id ~= p.executionId then
    return
  end
  local live = o.live
  if p.clear == true then
    live.displays = {}
    schedule_render(bufnr, o)
    return
  end
  local d = nilify(p.display)
  if type(d) ~= "table" then
    return
  end
  if p.update == true then
    local id = nilify(d.displayId)
    for _, x in ipairs(id and live.displays or {}) do
      if x.displayId == id then
        x.data, x.metadata = d.data, d.metadata
      end
    end
  else
    -- Where it falls among the streams: after what this client was sent
    -- before it (the server sends that first).
    live.displays[#live.displays + 1] = {
      data = d.data,
      metadata = d.metadata,
      displayId = nilify(d.displayId),
      stdoutBefore = #live.stdout,
      stderrBefore = #live.stderr,
    }
  end
  schedule_render(bufnr, o)
end

--- Re-renders outputs whose region text changed (or changed back) since
--- they ran.
---@param bufnr integer
function M.check_stale(bufnr)
  local s = bufs[bufnr]
  if not s then
    return
  end
  local buf = buffer_cells(bufnr)
  for _, o in ipairs(s.list) do
    local a, b = rows(bufnr, o)
    if a then
      local stale = current_text(bufnr, o, a, b, buf) ~= o.snapshot
      if stale ~= o.stale then
        o.stale = stale
        render(bufnr, o)
      end
    end
  end
end

--- Marks every output of bufnr stale: its namespace is gone.
---@param bufnr integer
function M.restarted(bufnr)
  local s = bufs[bufnr]
  for _, o in ipairs(s and s.list or {}) do
    o.restarted = true
    render(bufnr, o)
  end
end

-- drop forgets bufnr's outputs. Each is marked deleted first: a pending
-- (throttled) render must not touch its marks, whose ids Neovim 0.11
-- hands out again once cleared.
local function drop(bufnr)
  local s = bufs[bufnr]
  bufs[bufnr] = nil
  for _, o in ipairs(s and s.list or {}) do
    o.deleted = true
  end
  for _, o in pairs(s and s.by_id or {}) do
    o.deleted = true
  end
end

--- Removes every output of bufnr.
---@param bufnr integer
function M.clear(bufnr)
  drop(bufnr)
  image.image_nvim_clear(bufnr)
  if api.nvim_buf_is_valid(bufnr) then
    api.nvim_buf_clear_namespace(bufnr, M.ns, 0, -1)
  end
end

--- The output for the cursor line: the one whose region holds it, else
--- the one in the same cell, else the nearest above.
---@param bufnr integer
---@param line integer 0-based
---@return table? output
function M.at(bufnr, line)
  local s = bufs[bufnr]
  if not s then
    return nil
  end
  local all = cells.parse(api.nvim_buf_get_lines(bufnr, 0, -1, false))
  local c = all[cells.at(all, line) or 0]
  local best, best_row
  for _, o in ipairs(s.list) do
    local a, b = rows(bufnr, o)
    if a and (o.exec or o.live) then
      if line >= a and line <= b then
        return o
      end
      if c and a >= cells.first(c) and b < c.stop then
        return o
      end
      if b < line and (not best_row or b > best_row) then
        best, best_row = o, b
      end
    end
  end
  return best
end

--- An output's whole text, unfolded, as {text, highlight group}; a line
--- of an image or another rich form has rich = {mime, data}.
---@param o table an output (see at)
---@return { [1]: string, [2]: string }[]
function M.full(o)
  local all = lines(o, nil, { full = true })
  if (o.stale or o.restarted) and all[1] then
    all[1] = { all[1][1] .. " · stale", all[1][2] }
  end
  return all
end

--- The virtual lines of bufnr as plain strings, in buffer order: {row,
--- lines} per output (for tests).
---@param bufnr integer
---@return { row: integer, lines: string[] }[]
function M.virtual_lines(bufnr)
  local out = {}
  local marks = api.nvim_buf_get_extmarks(bufnr, M.ns, 0, -1, { details = true })
  for _, m in ipairs(marks) do
    local d = m[4]
    if d and d.virt_lines then
      local ls = {}
      for _, chunks in ipairs(d.virt_lines) do
        local t = {}
        for _, ch in ipairs(chunks) do
          t[#t + 1] = ch[1]
        end
        ls[#ls + 1] = table.concat(t)
      end
      out[#out + 1] = { row = m[2], lines = ls }
    end
  end
  return out
end

--- Forgets bufnr's outputs (it was unloaded).
---@param bufnr integer
function M.forget(bufnr)
  drop(bufnr)
  image.image_nvim_clear(bufnr)
end

return M
