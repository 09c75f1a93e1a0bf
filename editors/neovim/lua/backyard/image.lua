-- Images of display outputs (image/png, image/svg+xml): drawn by
-- image.nvim when it is installed, else in a terminal that speaks kitty's
-- graphics protocol as Unicode placeholders (text cells the terminal
-- replaces by the image, so the image moves with the virtual lines it is
-- in), else a placeholder line naming the image and how to open it.
local api = vim.api
local M = {}

-- The MIME types shown as images, the first present wins.
M.mimes = { "image/png", "image/svg+xml", "image/jpeg", "image/gif" }

local exts = {
  ["image/png"] = "png",
  ["image/svg+xml"] = "svg",
  ["image/jpeg"] = "jpg",
  ["image/gif"] = "gif",
  ["text/html"] = "html",
  ["text/markdown"] = "md",
  ["text/latex"] = "tex",
  ["application/json"] = "json",
  ["text/plain"] = "txt",
}

--- The file extension of a MIME type ("bin" for one not known).
---@param mime string
---@return string
function M.ext(mime)
  return exts[mime] or "bin"
end

-- Text MIME types are sent as they are; the rest base64-encoded.
local function is_text(mime)
  return mime:find("^text/") ~= nil or mime == "image/svg+xml" or mime:find("json$") ~= nil
    or mime:find("javascript$") ~= nil
end

--- The image MIME type of a bundle, or nil.
---@param data table<string, string>
---@return string?
function M.image_mime(data)
  for _, m in ipairs(M.mimes) do
    if type(data[m]) == "string" and data[m] ~= "" then
      return m
    end
  end
end

local b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local b64val = {}
for i = 1, #b64 do
  b64val[b64:byte(i)] = i - 1
end

--- Decodes base64 (whitespace ignored); nil when it is not base64.
--- Arithmetic only: LuaJIT's bit library is not in every Neovim build.
---@param s string
---@return string?
function M.base64_decode(s)
  s = s:gsub("%s", "")
  if vim.base64 then
    local ok, out = pcall(vim.base64.decode, s)
    return ok and out or nil
  end
  s = s:gsub("=+$", "")
  local out, n, bits = {}, 0, 0
  local chunk = {}
  for i = 1, #s do
    local v = b64val[s:byte(i)]
    if not v then
      return nil
    end
    n, bits = n * 64 + v, bits + 6
    if bits >= 8 then
      bits = bits - 8
      local p = 2 ^ bits
      local byte = math.floor(n / p)
      n = n - byte * p
      chunk[#chunk + 1] = string.char(byte)
      if #chunk == 4096 then
        out[#out + 1] = table.concat(chunk)
        chunk = {}
      end
    end
  end
  out[#out + 1] = table.concat(chunk)
  return table.concat(out)
end

--- The bytes a bundle's data of mime stands for (base64 decoded unless it
--- is text).
---@param mime string
---@param data string
---@return string?
function M.bytes(mime, data)
  if is_text(mime) then
    return data
  end
  return M.base64_decode(data)
end

local function be32(s, i)
  local a, b, c, d = s:byte(i, i + 3)
  if not d then
    return nil
  end
  return ((a * 256 + b) * 256 + c) * 256 + d
end

-- svg_length reads an SVG length in pixels ("640", "640px", "6.4pt").
local function svg_length(v)
  local n, unit = (v or ""):match("^%s*([%d.]+)%s*(%a*)%s*$")
  n = tonumber(n)
  if not n then
    return nil
  end
  local scale = ({ [""] = 1, px = 1, pt = 4 / 3, pc = 16, ["in"] = 96, cm = 96 / 2.54, mm = 96 / 25.4 })[unit]
  return scale and math.floor(n * scale + 0.5) or nil
end

--- An image's size in pixels: width, height, or nil when unknown. PNG from
--- its header, SVG from its width/height (else its viewBox).
---@param mime string
---@param data string as the bundle holds it
---@return integer? width, integer? height
function M.size(mime, data)
  if mime == "image/png" then
    -- 8 bytes signature, then IHDR: length, type, width, height.
    local head = M.base64_decode(data:gsub("%s", ""):sub(1, 32))
    if head and head:sub(1, 8) == "\137PNG\r\n\26\n" and head:sub(13, 16) == "IHDR" then
      return be32(head, 17), be32(head, 21)
    end
    return nil
  end
  if mime == "image/svg+xml" then
    local tag = data:match("<svg[^>]*>")
    if not tag then
      return nil
    end
    local w = svg_length(tag:match('%swidth%s*=%s*"([^"]*)"') or tag:match("%swidth%s*=%s*'([^']*)'"))
    local h = svg_length(tag:match('%sheight%s*=%s*"([^"]*)"') or tag:match("%sheight%s*=%s*'([^']*)'"))
    if w and h then
      return w, h
    end
    local vb = tag:match('viewBox%s*=%s*"([^"]*)"') or tag:match("viewBox%s*=%s*'([^']*)'")
    if vb then
      local _, _, vw, vh = vb:match("([%d.%-]+)[%s,]+([%d.%-]+)[%s,]+([%d.]+)[%s,]+([%d.]+)")
      vw, vh = tonumber(vw), tonumber(vh)
      if vw and vh then
        return math.floor(vw + 0.5), math.floor(vh + 0.5)
      end
    end
  end
  return nil
end

--- "image/png 640×480" (the size left out when unknown).
---@param mime string
---@param data string
---@return string
function M.describe(mime, data)
  local w, h = M.size(mime, data)
  if w and h then
    return ("%s %d×%d"):format(mime, w, h)
  end
  return mime
end

--- The placeholder line of an image the editor cannot draw.
---@param mime string
---@param data string
---@return string
function M.placeholder(mime, data)
  return ("[%s — open with :BackyardOutput]"):format(M.describe(mime, data))
end

--- Writes raw bytes to the terminal the UI runs in: nvim_ui_send where
--- Neovim has it (0.12), else stderr (0.10 and 0.11 run the UI in its own
--- process, which leaves the server the terminal on stderr, as the OSC 52
--- clipboard does), else stdout (the UI runs in this process). Tests
--- replace it.
---@param data string
function M.write(data)
  if api.nvim_ui_send then
    api.nvim_ui_send(data)
  elseif vim.fn.has("nvim-0.10") == 1 then
    api.nvim_chan_send(2, data)
  else
    io.stdout:write(data)
    io.stdout:flush()
  end
end

--- Whether the environment is a terminal that draws kitty's Unicode
--- image placeholders: kitty or Ghostty, outside tmux or screen (which
--- would have to pass the sequences through).
---@param env? table<string, string?> default: the process environment
---@return boolean
function M.kitty_terminal(env)
  env = env or vim.env
  if (env.TMUX or "") ~= "" or (env.TERM or ""):find("^screen") or (env.TERM or ""):find("^tmux") then
    return false
  end
  local term, prog = env.TERM or "", env.TERM_PROGRAM or ""
  return term == "xterm-kitty" or (env.KITTY_WINDOW_ID or "") ~= "" or term == "xterm-ghostty"
    or prog == "ghostty"
end

local tried_image_nvim = false

-- image_nvim is image.nvim's module when it is loaded or loads; require
-- is tried once (a missing module costs a search of 'runtimepath'), then
-- a later load by a plugin manager is seen in package.loaded.
local function image_nvim()
  local mod = package.loaded["image"]
  if mod == nil and not tried_image_nvim then
    tried_image_nvim = true
    local ok, m = pcall(require, "image")
    mod = ok and m or nil
  end
  if type(mod) == "table" and type(mod.from_file) == "function" then
    return mod
  end
end

--- Whether a terminal UI is attached: Neovim's own TUI (channel 0 before
--- 0.10, a UI whose stdout is a terminal since). A GUI is not one.
---@return boolean
function M.tui()
  for _, ui in ipairs(api.nvim_list_uis()) do
    if ui.stdout_tty == true or ui.chan == 0 then
      return true
    end
  end
  return false
end

--- How images are drawn: "image.nvim", "kitty" or "placeholder". The
--- output.images option: "auto" picks image.nvim when it is installed,
--- else kitty in a terminal that has it (under Neovim's TUI), else the
--- placeholder.
---@param want? string the option (default "auto")
---@return "image.nvim"|"kitty"|"placeholder"
function M.mode(want)
  want = want or "auto"
  if want == "image.nvim" then
    return image_nvim() and "image.nvim" or "placeholder"
  elseif want == "kitty" or want == "placeholder" then
    return want
  elseif want ~= "auto" then
    return "placeholder"
  end
  if image_nvim() then
    return "image.nvim"
  end
  if M.kitty_terminal() and M.tui() then
    return "kitty"
  end
  return "placeholder"
end

-- Kitty's row (and column) diacritics: combining marks after a
-- placeholder character give its cell's row and column in the image. The
-- first 40 of the protocol's list: an image gets at most that many rows.
local diacritics = {
  0x0305, 0x030D, 0x030E, 0x0310, 0x0312, 0x033D, 0x033E, 0x033F, 0x0346, 0x034A,
  0x034B, 0x034C, 0x0350, 0x0351, 0x0352, 0x0357, 0x035B, 0x0363, 0x0364, 0x0365,
  0x0366, 0x0367, 0x0368, 0x0369, 0x036A, 0x036B, 0x036C, 0x036D, 0x036E, 0x036F,
  0x0483, 0x0484, 0x0485, 0x0486, 0x0487, 0x0592, 0x0593, 0x0594, 0x0595, 0x0597,
}
M.max_rows = #diacritics

-- utf8 encodes a code point.
local function utf8(cp)
  if cp < 0x80 then
    return string.char(cp)
  elseif cp < 0x800 then
    return string.char(0xC0 + math.floor(cp / 0x40), 0x80 + cp % 0x40)
  elseif cp < 0x10000 then
    return string.char(0xE0 + math.floor(cp / 0x1000), 0x80 + math.floor(cp / 0x40) % 0x40, 0x80 + cp % 0x40)
  end
  return string.char(0xF0 + math.floor(cp / 0x40000), 0x80 + math.floor(cp / 0x1000) % 0x40,
    0x80 + math.floor(cp / 0x40) % 0x40, 0x80 + cp % 0x40)
end

M.placeholder_char = utf8(0x10EEEE)

--- The cells an image of w×h pixels takes: at most max_cols columns and
--- max_rows rows, a cell taken as 10×20 pixels, the aspect kept.
---@param w? integer
---@param h? integer
---@param max_cols integer
---@param max_rows integer
---@return integer cols, integer rows
function M.cells(w, h, max_cols, max_rows)
  max_rows = math.max(1, math.min(max_rows, M.max_rows))
  max_cols = math.max(1, max_cols)
  if not w or not h or w <= 0 or h <= 0 then
    w, h = 640, 480
  end
  local cols = math.min(max_cols, math.max(1, math.ceil(w / 10)))
  local rows = math.max(1, math.ceil(cols * 10 * h / w / 20))
  if rows > max_rows then
    rows = max_rows
    cols = math.max(1, math.min(max_cols, math.ceil(rows * 20 * w / h / 10)))
  end
  return cols, rows
end

--- The escape sequences that send a PNG (base64) to kitty as image id
--- and put a virtual placement of cols×rows cells, shown where the
--- placeholder cells are. Quiet (q=2): the terminal answers nothing.
---@param id integer
---@param png_b64 string
---@param cols integer
---@param rows integer
---@return string
function M.kitty_sequence(id, png_b64, cols, rows)
  local data = png_b64:gsub("%s", "")
  local parts, size = {}, 4096
  local n = math.max(1, math.ceil(#data / size))
  for i = 1, n do
    local chunk = data:sub((i - 1) * size + 1, i * size)
    local more = i < n and 1 or 0
    if i == 1 then
      parts[i] = ("\27_Ga=T,f=100,t=d,i=%d,U=1,c=%d,r=%d,q=2,m=%d;%s\27\\"):format(id, cols, rows, more, chunk)
    else
      parts[i] = ("\27_Gm=%d;%s\27\\"):format(more, chunk)
    end
  end
  return table.concat(parts)
end

--- The placeholder text of an image's row: its first cell names the row
--- and column 0; the cells after it continue the row.
---@param row integer 0-based
---@param cols integer
---@return string
function M.kitty_row(row, cols)
  local first = M.placeholder_char .. utf8(diacritics[row + 1]) .. utf8(diacritics[1])
  return first .. string.rep(M.placeholder_char, cols - 1)
end

local next_id = 0
local sent = {} -- png base64 -> {id, cols, rows}

-- The image id is the placeholder's foreground colour: 24 bits with
-- 'termguicolors', else a 256-colour index.
local function new_id()
  next_id = next_id + 1
  if vim.o.termguicolors then
    return next_id % 0xFFFFFF + 1
  end
  return (next_id - 1) % 255 + 1
end

--- The highlight group whose foreground is image id's colour.
---@param id integer
---@return string
function M.kitty_group(id)
  local name = "BackyardImage" .. id
  vim.cmd(("highlight %s guifg=#%06x ctermfg=%d"):format(name, id, id % 256))
  return name
end

--- The lines of a PNG drawn in kitty: each {text, highlight group}. The
--- image is sent once (the first time it is drawn).
---@param png_b64 string
---@param max_cols integer
---@param max_rows integer
---@return { [1]: string, [2]: string }[]
function M.kitty_lines(png_b64, max_cols, max_rows)
  local s = sent[png_b64]
  if not s then
    local w, h = M.size("image/png", png_b64)
    local cols, rows = M.cells(w, h, max_cols, max_rows)
    s = { id = new_id(), cols = cols, rows = rows }
    sent[png_b64] = s
    M.write(M.kitty_sequence(s.id, png_b64, cols, rows))
  end
  local group = M.kitty_group(s.id)
  local out = {}
  for r = 0, s.rows - 1 do
    -- image: "first" or "more" (rows after the first, which folding
    -- does not count).
    out[#out + 1] = { M.kitty_row(r, s.cols), group, image = r == 0 and "first" or "more" }
  end
  return out
end

local cache_dir

--- Writes a bundle's data of mime to a file under Neovim's cache folder
--- (once per content) and returns its path, or nil and why not.
---@param mime string
---@param data string
---@return string? path, string? err
function M.cache_file(mime, data)
  local bytes = M.bytes(mime, data)
  if not bytes then
    return nil, "the " .. mime .. " data is not base64"
  end
  cache_dir = cache_dir or (vim.fn.stdpath("cache") .. "/backyard/outputs")
  vim.fn.mkdir(cache_dir, "p")
  -- Named by the data as sent (text, where the bytes may hold NULs).
  local path = ("%s/%s.%s"):format(cache_dir, vim.fn.sha256(data):sub(1, 16), M.ext(mime))
  if vim.fn.filereadable(path) == 0 then
    local ok, err = M.save_bytes(path, bytes)
    if not ok then
      return nil, err
    end
  end
  return path
end

--- Writes bytes to path as they are.
---@param path string
---@param bytes string
---@return boolean ok, string? err
function M.save_bytes(path, bytes)
  local f, err = io.open(path, "wb")
  if not f then
    return false, err
  end
  f:write(bytes)
  f:close()
  return true
end

--- Opens a file with the system's viewer (vim.ui.open on 0.10+).
---@param path string
---@return boolean ok, string? err
function M.open_file(path)
  if vim.ui.open then
    -- It returns nil and a message when it finds no opener.
    local ok, obj, err = pcall(vim.ui.open, path)
    if not ok or obj == nil then
      return false, tostring(ok and err or obj)
    end
    return true
  end
  local cmd
  if vim.fn.has("mac") == 1 then
    cmd = { "open", path }
  elseif vim.fn.has("win32") == 1 then
    cmd = { "cmd.exe", "/c", "start", "", path }
  elseif vim.fn.executable("xdg-open") == 1 then
    cmd = { "xdg-open", path }
  else
    return false, "no program to open files with (xdg-open)"
  end
  return vim.fn.jobstart(cmd, { detach = true }) > 0, nil
end

-- image.nvim images by key (bufnr, output, data): drawn once each.
local drawn = {}

--- Draws an image with image.nvim under row of bufnr's window, once per
--- (output, content); returns whether it did. gen marks the images of
--- this render (image_nvim_sweep clears the others).
---@param bufnr integer
---@param key string names the output it belongs to
---@param gen table
---@param mime string
---@param data string
---@param row integer 0-based buffer line it goes under
---@param col integer
---@return boolean
function M.image_nvim_draw(bufnr, key, gen, mime, data, row, col)
  local mod = image_nvim()
  local win = vim.fn.bufwinid(bufnr)
  if not mod or win == -1 then
    return false
  end
  local k = key .. "\0" .. vim.fn.sha256(data)
  if drawn[k] then
    drawn[k].gen = gen
    return true
  end
  local path = M.cache_file(mime, data)
  if not path then
    return false
  end
  local ok, img = pcall(mod.from_file, path, {
    window = win,
    buffer = bufnr,
    x = col,
    y = row,
    with_virtual_padding = true,
    inline = true,
  })
  if not ok or not img then
    return false
  end
  pcall(function()
    img:render()
  end)
  drawn[k] = { img = img, bufnr = bufnr, key = key, gen = gen }
  return true
end

--- Clears the image.nvim images for which gone(d) holds.
---@param gone fun(d: table): boolean
local function clear_drawn(gone)
  for k, d in pairs(drawn) do
    if gone(d) then
      pcall(function()
        d.img:clear()
      end)
      drawn[k] = nil
    end
  end
end

--- Clears the image.nvim images of an output (key) not drawn in its
--- render gen.
---@param bufnr integer
---@param key string
---@param gen table
function M.image_nvim_sweep(bufnr, key, gen)
  clear_drawn(function(d)
    return d.bufnr == bufnr and d.key == key and d.gen ~= gen
  end)
end

--- Clears the image.nvim images of an output (key), or all of bufnr's
--- (key nil).
---@param bufnr integer
---@param key? string
function M.image_nvim_clear(bufnr, key)
  clear_drawn(function(d)
    return d.bufnr == bufnr and (key == nil or d.key == key)
  end)
end

return M
