-- The <Plug>(backyard-…) mappings: one per key option, the default keys
-- map to them, and each does what its key did, on the real server.
local T = require("backyard_test")
local plug = require("backyard.plug")

local function feed(keys)
  vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), "mx", false)
end

local function finished(l)
  return l[1]:find("%[%d+%]") ~= nil
end

local buf = T.open({
  "# %% a", -- 1
  "x = 41", -- 2
  "# %% b", -- 3
  "x + 1", -- 4
  "# %% [markdown]", -- 5
  "# notes", -- 6
  "# %% c", -- 7
  "y = x * 2", -- 8
  "y", -- 9
  "# %% sel", -- 10
  'print("whole line"); 6 * 7', -- 11
}, "plug.py")

T.test("one <Plug> mapping per key option, global, in the key's modes", function()
  local names = {}
  for _, m in ipairs(plug.maps) do
    names[#names + 1] = m.name
    for _, mode in ipairs(m.modes) do
      local map = vim.fn.maparg(plug.lhs(m.name), mode, false, true)
      T.eq(0, map.buffer, plug.lhs(m.name) .. " in mode " .. mode .. " is global")
      T.eq(1, map.noremap, plug.lhs(m.name) .. " is not remapped")
    end
  end
  local options = vim.tbl_keys(require("backyard.config").defaults.keymaps)
  table.sort(names)
  table.sort(options)
  T.eq(options, names, "key options with a <Plug> mapping")
  T.eq("<Plug>(backyard-run-cell-advance)", plug.lhs("run_cell_advance"), "name")
end)

T.test(":help backyard-keys lists each mapping with its default keys and modes", function()
  local doc = vim.api.nvim_get_runtime_file("doc/backyard.txt", false)[1]
  local rows = {}
  for _, l in ipairs(vim.fn.readfile(doc)) do
    local name, keys, modes, lhs = l:match("^    (%l[%l_]+)%s+(.-)%s+(%l+)%s+(<Plug>%S+)$")
    if name then
      rows[name] = { keys = keys, modes = modes, lhs = lhs }
    end
  end
  local defaults = require("backyard.config").defaults.keymaps
  for _, m in ipairs(plug.maps) do
    local keys = defaults[m.name]
    local want = { keys = table.concat(type(keys) == "table" and keys or { keys }, ", "), modes = table.concat(m.modes),
      lhs = plug.lhs(m.name) }
    T.eq(want, rows[m.name], "doc row of " .. m.name)
    rows[m.name] = nil
  end
  T.eq({}, rows, "doc rows of no mapping")
end)

T.test("every default key maps to its <Plug> mapping in this buffer", function()
  local defaults = require("backyard.config").defaults.keymaps
  for _, m in ipairs(plug.maps) do
    local keys = defaults[m.name]
    for _, k in ipairs(type(keys) == "table" and keys or { keys }) do
      for _, mode in ipairs(m.modes) do
        local map = vim.fn.maparg(k, mode, false, true)
        T.eq(plug.lhs(m.name), map.rhs, k .. " in mode " .. mode)
        T.eq(1, map.buffer, k .. " is buffer-local")
        T.eq(0, map.noremap, k .. " remaps to the <Plug>")
      end
    end
  end
end)

T.test("run-cell runs the cell under the cursor and stays", function()
  T.cursor(2)
  feed("<Plug>(backyard-run-cell)")
  T.wait_output(buf, 1, T.done(1))
  T.eq(2, vim.api.nvim_win_get_cursor(0)[1], "cursor")
end)

T.test("run-cell-advance runs it and moves to the next code cell", function()
  T.cursor(4)
  feed("<Plug>(backyard-run-cell-advance)")
  T.eq(8, vim.api.nvim_win_get_cursor(0)[1], "cursor skips the markdown cell")
  T.eq("│ → 42", T.wait_output(buf, 3, finished)[2], "value")
end)

T.test("run-selection runs exactly the visual selection", function()
  T.cursor(11, #'print("whole line"); ')
  feed("v$<Plug>(backyard-run-selection)")
  T.eq("│ → 42", T.wait_output(buf, 10, finished)[2], "only 6 * 7 ran")
end)

T.test("clear removes the outputs", function()
  feed("<Plug>(backyard-clear)")
  T.eq({}, T.outputs(buf), "outputs")
end)

local function rows()
  local r = {}
  for _, o in ipairs(T.outputs(buf)) do
    if finished(o.lines) then
      r[#r + 1] = o.row
    end
  end
  return r
end

T.test("run-above runs the cells above the cursor's", function()
  T.cursor(8)
  feed("<Plug>(backyard-run-above)")
  T.wait(function()
    return #rows() == 2
  end, "two outputs")
  T.eq({ 1, 3 }, rows(), "rows with output")
  feed("<Plug>(backyard-clear)")
end)

T.test("run-below runs the cursor's cell and those below", function()
  T.cursor(4)
  feed("<Plug>(backyard-run-below)")
  T.wait(function()
    return #rows() == 3
  end, "three outputs")
  T.eq({ 3, 8, 10 }, rows(), "rows with output")
  feed("<Plug>(backyard-clear)")
end)

T.test("run-all runs every code cell", function()
  feed("<Plug>(backyard-run-all)")
  T.wait(function()
    return #rows() == 4
  end, "four outputs")
  T.eq({ 1, 3, 8, 10 }, rows(), "rows with output")
end)

T.test("output opens the cell's full output", function()
  T.cursor(9)
  feed("<Plug>(backyard-output)")
  T.eq("backyard", vim.bo.filetype, "the output float")
  T.matches("→ 82", table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n"), "y")
  vim.cmd("close")
end)

T.test("variables shows the namespace", function()
  feed("<Plug>(backyard-variables)")
  T.matches("\ny%s+int%s+82", T.float_text("the variables float"), "y")
  vim.cmd("close")
end)

T.test("interrupt stops the running cell", function()
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "# %% spin", "print('tick')", "while True:", "    pass" })
  local last = vim.api.nvim_buf_line_count(buf)
  T.cursor(last - 2)
  feed("<Plug>(backyard-run-cell)")
  T.wait_output(buf, last - 1, function(l)
    return l[1] == "│ [*] running…" and l[2] == "│ tick"
  end, "the loop running")
  feed("<Plug>(backyard-interrupt)")
  T.wait_output(buf, last - 1, function(l)
    return l[1]:find("interrupted", 1, true)
  end, "the interrupted header")
end)

T.test("restart empties the namespace", function()
  feed("<Plug>(backyard-restart)")
  T.wait_output(buf, 1, function(l)
    return l[1]:find("stale", 1, true)
  end, "outputs marked stale")
  T.cursor(4)
  feed("<Plug>(backyard-run-cell)")
  T.eq("│ NameError: name 'x' is not defined", T.wait_output(buf, 3, function(l)
    return l[1]:find("✗", 1, true)
  end)[2], "x is gone")
end)

T.test("next-cell and prev-cell move with a count, in normal, visual and operator-pending mode", function()
  T.cursor(1)
  feed("<Plug>(backyard-next-cell)")
  T.eq(3, vim.api.nvim_win_get_cursor(0)[1], "next")
  feed("2<Plug>(backyard-next-cell)")
  T.eq(7, vim.api.nvim_win_get_cursor(0)[1], "2 next")
  feed("3<Plug>(backyard-prev-cell)")
  T.eq(1, vim.api.nvim_win_get_cursor(0)[1], "3 prev")
  feed("V<Plug>(backyard-next-cell)y")
  T.eq({ "# %% a", "x = 41", "# %% b" }, vim.fn.getreg('"', 1, true), "visual selection to the next cell")
  T.cursor(1)
  feed("y<Plug>(backyard-next-cell)")
  -- An exclusive motion to column 1 becomes linewise (:h exclusive-linewise):
  -- y]c yanks the cell.
  T.eq({ "# %% a", "x = 41" }, vim.fn.getreg('"', 1, true), "yank to the next cell")
  T.eq("V", vim.fn.getregtype('"'), "linewise")
  vim.wo.diff = true
  feed("<Plug>(backyard-next-cell)") -- no diff partner: the diff motion does nothing
  vim.wo.diff = false
  T.eq(1, vim.api.nvim_win_get_cursor(0)[1], "in diff mode it is the diff motion")
end)
