-- Display outputs: their text/plain form inline, in Jupyter's order; live
-- as a container cell shows them (backyard/display: new, updated by
-- display id, cleared); images as a placeholder line, or in kitty's
-- graphics; opening and saving them.
local T = require("backyard_test")
local image = require("backyard.image")

local docker_image = os.getenv("BACKYARD_TEST_IMAGE") or "backyard-python:test"

-- A 64×48 red PNG.
local PNG = "iVBORw0KGgoAAAANSUhEUgAAAEAAAAAwCAIAAAAuKetIAAAAXElEQVR4nO3PAQkAQBCEwO1f+j6GyAsGGHebOl7QgDxe0IA8XtCA"
  .. "PF7QgDxe0IA8XtCAPF7QgDxe0IA8XtCAPF7QgDxe0IA8XtCAPF7QgDxe0IA8XtCAPF7w+8ADpcH0po8sVC8AAAAASUVORK5CYII="

T.test("display outputs show as text, in order, before the value", function()
  local buf = T.open({ "# %%", "display(1, 'two')", "3" })
  vim.cmd("BackyardRunCell")
  local lines = T.wait_output(buf, 2, function(l)
    return l[1]:find("✓", 1, true)
  end)
  T.eq({ "│ 1", "│ 'two'", "│ → 3" }, { lines[2], lines[3], lines[4] }, "displays then value")
end)

T.test("a display goes where it was shown among the printed lines", function()
  local buf = T.open({ "# %%", "print('a')", "display('b')", "print('c')" })
  vim.cmd("BackyardRunCell")
  local lines = T.wait_output(buf, 3, T.done(1))
  T.eq({ "│ a", "│ 'b'", "│ c" }, { lines[2], lines[3], lines[4] }, "stdout, display, stdout")
end)

-- The rest runs in containers: they stream displays as a cell runs.
require("backyard").setup({ backend = "container", settings = { container = { image = docker_image } } })

T.test("the other MIME types of a display are named", function()
  local buf = T.open({ "# %%", "from IPython.display import Markdown", "display(Markdown('**hi**'))" })
  vim.cmd("BackyardRunCell")
  local lines = T.wait_output(buf, 2, T.done(1), nil, 120000)
  T.eq("│ <IPython.core.display.Markdown object>", lines[2], "text/plain")
  T.eq("│   [text/markdown — open with :BackyardOutput]", lines[3], "the note")
  -- <CR> on its line in :BackyardOutput opens it (here: a stand-in for
  -- the system's opener) from a file holding it.
  T.cursor(3)
  vim.cmd("BackyardOutput")
  T.float_text("the output float")
  local row
  for i, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    if l:find("text/markdown", 1, true) then
      row = i
    end
  end
  T.eq("  [text/markdown · <CR> open · s save]", vim.api.nvim_buf_get_lines(0, row - 1, row, false)[1], "in the float")
  vim.api.nvim_win_set_cursor(0, { row, 0 })
  local opened, open = nil, vim.ui.open
  vim.ui.open = function(path)
    opened = path
    return {}
  end
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes("<CR>", true, false, true), "x", false)
  vim.ui.open = open
  vim.cmd("close")
  T.matches("%.md$", opened, "a Markdown file")
  T.eq({ "**hi**" }, vim.fn.readfile(opened), "holding the Markdown")
end)

-- asked answers input() questions once the output under row satisfies
-- the prompt's predicate (or after 30 s), keeping the lines it saw.
local function ask_when(buf, row, preds)
  local seen = {}
  vim.ui.input = function(opts, on_confirm)
    local deadline = vim.loop.now() + 30000
    local function poll()
      local lines = T.output_at(buf, row)
      local pred = preds[opts.prompt]
      local ready = lines and pred and pred(lines) and require("backyard.output").pending() == 0
      if ready or vim.loop.now() > deadline then
        seen[opts.prompt] = lines or {}
        on_confirm("")
      else
        vim.defer_fn(poll, 10)
      end
    end
    poll()
  end
  return seen
end

local function has(lines, text)
  for _, l in ipairs(lines) do
    if l == text then
      return true
    end
  end
  return false
end

T.test("displays show live: new, updated by display id, cleared", function()
  local buf = T.open({
    "# %% live", -- 1
    "from IPython.display import display, update_display, clear_output, HTML", -- 2
    "print('before')", -- 3
    "display('first', display_id='a')", -- 4
    "input('one')", -- 5
    "update_display('second', display_id='a')", -- 6
    "display(HTML('<b>x</b>'))", -- 7
    "input('two')", -- 8
    "clear_output()", -- 9
    "display('third')", -- 10
    "_ = input('three')", -- 11
  }, "live.py")
  local seen = ask_when(buf, 10, {
    one = function(l)
      return has(l, "│ 'first'")
    end,
    two = function(l)
      return has(l, "│ 'second'") and has(l, "│ <IPython.core.display.HTML object>")
    end,
    three = function(l)
      return has(l, "│ 'third'")
    end,
  })
  T.cursor(3)
  vim.cmd("BackyardRunCell")
  local final = T.wait_output(buf, 10, function(l)
    return l[1]:find("✓", 1, true)
  end, "the cell to finish", 120000)
  T.eq({ "│ [*] running…", "│ before", "│ 'first'", "│ one" }, seen.one, "the first display, live")
  T.eq({
    "│ [*] running…",
    "│ before",
    "│ 'second'", -- in place of 'first'
    "│ one",
    "│ <IPython.core.display.HTML object>",
    "│   [text/html — open with :BackyardOutput]",
    "│ two",
  }, seen.two, "updated in place, then a new one")
  T.eq({ "│ [*] running…", "│ before", "│ one", "│ two", "│ 'third'", "│ three" }, seen.three,
    "cleared, then a new one")
  T.eq({ "│ before", "│ one", "│ two", "│ 'third'", "│ three" }, vim.list_slice(final, 2), "the record")
end)

T.test("an image shows a placeholder line; :BackyardOutput opens or saves it", function()
  local buf = T.open({
    "# %% img", -- 1
    "import base64", -- 2
    "from IPython.display import Image, SVG, display", -- 3
    ("display(Image(data=base64.b64decode('%s')))"):format(PNG), -- 4
    "display(SVG('<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"50\"></svg>'))", -- 5
  }, "img.py")
  T.cursor(4)
  vim.cmd("BackyardRunCell")
  local lines = T.wait_output(buf, 4, function(l)
    return l[1]:find("✓", 1, true)
  end, "the cell to finish", 120000)
  T.eq({
    "│ [image/png 64×48 — open with :BackyardOutput]",
    "│ [image/svg+xml 100×50 — open with :BackyardOutput]",
  }, vim.list_slice(lines, 2), "placeholders")

  -- Saved with the command: the PNG's bytes.
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  vim.fn.writefile({ PNG }, dir .. "/png.b64")
  vim.fn.system({ "sh", "-c", "cd " .. vim.fn.shellescape(dir) .. " && base64 -d png.b64 > want.png" })
  T.eq(0, vim.v.shell_error, "base64 -d")
  T.notified(function()
    vim.cmd("BackyardSaveOutput " .. vim.fn.fnameescape(dir .. "/saved.png"))
  end)
  vim.fn.system({ "cmp", dir .. "/want.png", dir .. "/saved.png" })
  T.eq(0, vim.v.shell_error, ":BackyardSaveOutput wrote the PNG's bytes")
  T.notified(function()
    vim.cmd("2BackyardSaveOutput " .. vim.fn.fnameescape(dir .. "/saved.svg"))
  end)
  T.matches('^<svg .*width="100"', table.concat(vim.fn.readfile(dir .. "/saved.svg"), "\n"), "the second: the SVG")

  -- In :BackyardOutput, s on the image's line saves it.
  vim.cmd("BackyardOutput")
  local text = T.float_text("the output float")
  T.matches("%[image/png 64×48 · <CR> open · s save%]", text, "the float names the keys")
  local row
  for i, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
    if l:find("image/png", 1, true) then
      row = i
    end
  end
  vim.api.nvim_win_set_cursor(0, { row, 0 })
  vim.ui.input = function(_, on_confirm)
    on_confirm(dir .. "/from-float.png")
  end
  T.notified(function()
    vim.api.nvim_feedkeys("s", "x", false)
  end)
  vim.cmd("close")
  vim.fn.system({ "cmp", dir .. "/want.png", dir .. "/from-float.png" })
  T.eq(0, vim.v.shell_error, "s in the float wrote the PNG's bytes")
end)

T.test("kitty: the terminal is recognised; not inside tmux, not without a UI", function()
  T.eq(true, image.kitty_terminal({ TERM = "xterm-kitty" }), "TERM=xterm-kitty")
  T.eq(true, image.kitty_terminal({ TERM = "xterm-256color", KITTY_WINDOW_ID = "3" }), "KITTY_WINDOW_ID")
  T.eq(true, image.kitty_terminal({ TERM = "xterm-ghostty" }), "Ghostty")
  T.eq(false, image.kitty_terminal({ TERM = "xterm-256color" }), "another terminal")
  T.eq(false, image.kitty_terminal({ TERM = "xterm-kitty", TMUX = "/tmp/tmux-0/default,1,0" }), "in tmux")
  T.eq(false, image.kitty_terminal({ TERM = "tmux-256color", KITTY_WINDOW_ID = "3" }), "tmux's TERM")
  local env = vim.env.KITTY_WINDOW_ID
  vim.env.KITTY_WINDOW_ID = "3"
  T.eq("placeholder", image.mode("auto"), "headless: no UI to draw in")
  vim.env.KITTY_WINDOW_ID = env
end)

-- Runs a container cell that displays PNG with output.images = mode, in
-- a buffer named after title; the buffer and its output lines once done.
local function run_image_cell(mode, title)
  require("backyard").setup({
    backend = "container",
    settings = { container = { image = docker_image } },
    output = { images = mode },
  })
  local buf = T.open({
    "# %% " .. title, -- 1
    "import base64", -- 2
    "from IPython.display import Image, display", -- 3
    ("display(Image(data=base64.b64decode('%s')))"):format(PNG), -- 4
  }, title:gsub("%W", "") .. ".py")
  T.cursor(4)
  vim.cmd("BackyardRunCell")
  local lines = T.wait_output(buf, 3, function(l)
    return l[1]:find("✓", 1, true)
  end, "the cell to finish", 120000)
  return buf, lines
end

T.test("kitty: the image is sent once with the graphics protocol and shown as placeholder cells", function()
  local written = {}
  image.write = function(data)
    written[#written + 1] = data
  end
  vim.o.termguicolors = true
  local buf, lines = run_image_cell("kitty", "kitty")
  T.eq(1, #written, "one write")
  local id, cols, rows, data = written[1]:match("^\27_Ga=T,f=100,t=d,i=(%d+),U=1,c=(%d+),r=(%d+),q=2,m=0;(.-)\27\\$")
  T.ok(id, "an escape sequence of kitty's graphics protocol: " .. vim.inspect(written[1]:sub(1, 60)))
  T.eq(PNG, data, "the PNG, base64, in one chunk")
  -- 64×48 pixels at 10×20 per cell: 7 columns, 3 rows.
  T.eq({ "7", "3" }, { cols, rows }, "its cells")
  local P = image.placeholder_char
  -- Row r: the placeholder with the r-th and the 0-th diacritic, then 6 more.
  T.eq({
    "│ " .. P .. "\204\133\204\133" .. P:rep(6),
    "│ " .. P .. "\204\141\204\133" .. P:rep(6),
    "│ " .. P .. "\204\142\204\133" .. P:rep(6),
  }, vim.list_slice(lines, 2), "the placeholder rows")
  -- Their colour is the image id.
  local marks = vim.api.nvim_buf_get_extmarks(buf, require("backyard.output").ns, 0, -1, { details = true })
  local group
  for _, m in ipairs(marks) do
    for _, chunks in ipairs(m[4].virt_lines or {}) do
      if chunks[2] and chunks[2][1]:find(P, 1, true) then
        group = chunks[2][2]
      end
    end
  end
  T.eq("BackyardImage" .. id, group, "the rows' highlight group")
  local hl = vim.api.nvim_get_hl and vim.api.nvim_get_hl(0, { name = group }).fg
    or vim.api.nvim_get_hl_by_name(group, true).foreground
  T.eq(tonumber(id), hl, "its colour is the id")

  -- Drawn again (an edit elsewhere re-renders): not sent again.
  vim.cmd("BackyardRunCell")
  T.wait_output(buf, 3, T.done(2), "the second run", 120000)
  T.eq(1, #written, "the same image is sent once")
end)

T.test("image.nvim, when installed, is asked to draw the image under the cell", function()
  local calls = {}
  package.loaded["image"] = {
    from_file = function(path, o)
      calls[#calls + 1] = { path = path, o = o }
      return {
        render = function() end,
        clear = function() end,
      }
    end,
  }
  local buf, lines = run_image_cell("auto", "image.nvim")
  package.loaded["image"] = nil
  T.eq("│ [image/png 64×48 — drawn by image.nvim]", lines[2], "the line under it")
  T.eq(1, #calls, "one image")
  T.eq(3, calls[1].o.y, "under the cell's last line")
  T.eq(buf, calls[1].o.buffer, "in its buffer")
  T.matches("%.png$", calls[1].path, "a PNG file")
  vim.fn.writefile({ PNG }, calls[1].path .. ".b64")
  local sh = vim.fn.shellescape
  vim.fn.system({ "sh", "-c", "base64 -d " .. sh(calls[1].path .. ".b64") .. " | cmp - " .. sh(calls[1].path) })
  T.eq(0, vim.v.shell_error, "the file holds the PNG's bytes")
end)

-- A child Neovim with its TUI in a pseudo-terminal (script(1)), as if in
-- kitty: what reaches the terminal is the image's escape sequence (written
-- by the plugin) and the placeholder cells in the image's colour (drawn by
-- the TUI from the virtual lines).
T.test("kitty, through Neovim's TUI: the sequence and the placeholder cells reach the terminal", function()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir, "p")
  local file, quit, typescript = dir .. "/tui.py", dir .. "/quit", dir .. "/typescript"
  vim.fn.writefile({
    "# %% tui",
    "import base64",
    "from IPython.display import Image, display",
    ("display(Image(data=base64.b64decode('%s')))"):format(PNG),
  }, file)
  local child = dir .. "/child.lua"
  vim.fn.writefile({
    ("local file, quit = %q, %q"):format(file, quit),
    ("require('backyard').setup({ backend = 'container', settings = { container = { image = %q } } })")
      :format(docker_image),
    "vim.cmd('edit ' .. vim.fn.fnameescape(file))",
    "local buf = vim.api.nvim_get_current_buf()",
    "vim.wait(60000, function()",
    "  local c = require('backyard.client')",
    "  return c.get() and c.get().initialized and c.attached(buf)",
    "end, 20)",
    "vim.api.nvim_win_set_cursor(0, { 4, 0 })",
    "vim.cmd('BackyardRunCell')",
    "vim.wait(120000, function()",
    "  local o = require('backyard.output').virtual_lines(buf)[1]",
    "  return o and o.lines[1]:find('[1]', 1, true) ~= nil",
    "end, 20)",
    "vim.cmd('redraw')", -- vim.wait does not redraw the screen on 0.7
    "vim.wait(120000, function() return vim.loop.fs_stat(quit) ~= nil end, 20)",
    "vim.cmd('qa!')",
  }, child)
  local init = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h") .. "/minimal_init.lua"
  local sh = vim.fn.shellescape
  local nvim = vim.loop.exepath()
  local cmd = ("%s -i NONE -u %s -c %s"):format(sh(nvim), sh(init), sh("luafile " .. child))
  local exited
  local job = vim.fn.jobstart({ "script", "-qfc", cmd, typescript }, {
    env = { TERM = "xterm-256color", KITTY_WINDOW_ID = "1", TMUX = "", TERM_PROGRAM = "" },
    on_exit = function(_, code)
      exited = code
    end,
  })
  T.ok(job > 0, "script(1) started")
  local P = image.placeholder_char
  local first = P .. "\204\133\204\133" -- row 0, column 0
  local data = ""
  local ok = pcall(T.wait, function()
    local f = io.open(typescript, "rb")
    data = f and f:read("*a") or ""
    if f then
      f:close()
    end
    return data:find(first, 1, true) ~= nil
  end, "the placeholder cells on the terminal", 60000)
  vim.fn.writefile({}, quit)
  T.wait(function()
    return exited ~= nil
  end, "the child Neovim to quit", 30000)
  T.ok(ok, "the placeholder cells reached the terminal: " .. vim.inspect(data:sub(-400)))
  T.ok(data:find("\27_Ga=T,f=100,t=d,i=1,U=1,c=7,r=3,q=2,m=0;" .. PNG .. "\27\\", 1, true),
    "the image's escape sequence reached the terminal")
  -- The colour set before the first cell is the image id (1, 256 colours).
  local at = data:find(first, 1, true)
  local sgr = data:sub(1, at - 1):match(".*\27%[([%d;]*)m")
  T.ok(sgr == "31" or sgr == "38;5;1" or (sgr or ""):find(";31$") or (sgr or ""):find(";38;5;1$"),
    "the cells' colour is the image id: " .. vim.inspect(sgr))
end)

T.test("update_display in a later cell updates an earlier cell's display", function()
  local buf = T.open({
    "# %% shows", -- 1
    "from IPython.display import display, update_display", -- 2
    "display('first', display_id='progress')", -- 3
    "# %% updates", -- 4
    "update_display('second', display_id='progress')", -- 5
  }, "later.py")
  T.cursor(2)
  vim.cmd("BackyardRunCell")
  T.wait_output(buf, 2, T.done(1), "the first cell", 120000)
  T.cursor(5)
  vim.cmd("BackyardRunCell")
  T.wait_output(buf, 4, T.done(2), "the second cell", 120000)
  local lines = T.wait_output(buf, 2, function(l)
    return has(l, "│ 'second'")
  end, "the update of the first cell's display", 30000)
  T.eq("│ 'second'", lines[2], "the first cell shows the update")
end)
