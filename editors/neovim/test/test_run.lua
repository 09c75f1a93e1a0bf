-- Running cells, selections and files against the real server; the
-- inline output is read back from the extmarks Neovim draws.
local T = require("backyard_test")

local demo = {
  "# %% setup", -- 1
  "x = 41", -- 2
  'print("hello")', -- 3
  "x + 1", -- 4
  "", -- 5
  "# %% [markdown]", -- 6
  "# Some notes", -- 7
  "", -- 8
  "# %% loop", -- 9
  "for i in range(3):", -- 10
  "    print(i)", -- 11
  "", -- 12
  "# %% error", -- 13
  "a = 1", -- 14
  "", -- 15
  "b = a / 0", -- 16
}

local buf = T.open(demo, "demo.py")

T.test("run a cell: header, stdout and value under the cell's last line", function()
  T.cursor(2)
  vim.cmd("BackyardRunCell")
  local lines = T.wait_output(buf, 3, T.done(1))
  T.matches("^│ %[1%] ✓ %d+%.?%d* m?s · monty$", lines[1], "header")
  T.eq({ "│ hello", "│ → 42" }, { lines[2], lines[3] }, "stdout and value")
  T.eq(1, #T.outputs(buf), "one output")
end)

T.test("rerun replaces the output", function()
  T.cursor(3)
  vim.cmd("BackyardRunCell")
  T.wait_output(buf, 3, T.done(2))
  T.eq(1, #T.outputs(buf), "still one output")
end)

T.test("editing the cell marks its output stale; undoing clears it", function()
  -- "x = 41" -> "x = 40", as typing would (set_lines would move the marks)
  vim.api.nvim_buf_set_text(buf, 1, 5, 1, 6, { "0" })
  vim.cmd("doautocmd TextChanged")
  local lines = T.wait_output(buf, 3, function(l)
    return l[1]:find("stale", 1, true)
  end, "the stale marker")
  T.matches("· stale$", lines[1], "header")
  local marks = vim.api.nvim_buf_get_extmarks(buf, require("backyard.output").ns, 0, -1, { details = true })
  local hl
  for _, m in ipairs(marks) do
    if m[4].virt_lines then
      hl = m[4].virt_lines[2][2][2]
    end
  end
  T.eq("BackyardStale", hl, "stale lines are dimmed")
  vim.api.nvim_buf_set_text(buf, 1, 5, 1, 6, { "1" })
  vim.cmd("doautocmd TextChanged")
  T.wait_output(buf, 3, function(l)
    return not l[1]:find("stale", 1, true)
  end, "the stale marker to go")
end)

T.test("a line added at the end of the cell marks its output stale too", function()
  vim.api.nvim_buf_set_lines(buf, 4, 4, false, { "print(x)" })
  vim.cmd("doautocmd TextChanged")
  T.wait_output(buf, 3, function(l)
    return l[1]:find("stale", 1, true)
  end, "the stale marker")
  vim.api.nvim_buf_set_lines(buf, 4, 5, false, {})
  vim.cmd("doautocmd TextChanged")
  T.wait_output(buf, 3, function(l)
    return not l[1]:find("stale", 1, true)
  end, "the stale marker to go")
end)

T.test("run and advance moves to the next code cell, skipping markdown", function()
  T.cursor(2)
  vim.cmd("BackyardRunCellAdvance")
  T.eq(10, vim.api.nvim_win_get_cursor(0)[1], "cursor line")
  T.wait_output(buf, 3, T.done(3))
end)

T.test("run a characterwise selection with UTF-16 columns", function()
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "", "# %% sel", 't = "😀é"; 6 * 7' })
  local row = vim.api.nvim_buf_line_count(buf)
  T.cursor(row, #'t = "😀é"; ')
  vim.cmd("normal! v$\27")
  vim.cmd("'<,'>BackyardRun")
  local lines = T.wait_output(buf, row - 1, function(l)
    return l[1]:find("✓", 1, true) or l[1]:find("✗", 1, true)
  end, "the selection's output")
  T.eq("│ → 42", lines[2], "only the selected expression ran")
end)

T.test("the visual-mode key runs the selection", function()
  local row = vim.api.nvim_buf_line_count(buf)
  vim.api.nvim_buf_set_lines(buf, row - 1, row, false, { 't = "😀é"; 7 * 6 + 1' })
  T.cursor(row, #'t = "😀é"; ')
  local keys = vim.api.nvim_replace_termcodes("v$<Leader>x", true, false, true)
  vim.api.nvim_feedkeys(keys, "x", false)
  T.wait_output(buf, row - 1, function(l)
    return l[2] == "│ → 43"
  end, "the selection's value")
end)

T.test("run a linewise range", function()
  vim.cmd("10,11BackyardRun")
  local lines = T.wait_output(buf, 10, function(l)
    return l[1]:find("✓", 1, true)
  end)
  T.eq({ "│ 0", "│ 1", "│ 2" }, { lines[2], lines[3], lines[4] }, "stdout")
end)

T.test("an error cell: error line in the error group and a diagnostic on its line", function()
  T.cursor(14)
  vim.cmd("BackyardRunCell")
  local lines = T.wait_output(buf, 15, function(l)
    return l[1]:find("✗", 1, true)
  end)
  T.eq("│ ZeroDivisionError: division by zero", lines[2], "error line")
  local ns = require("backyard.output").ns
  local marks = vim.api.nvim_buf_get_extmarks(buf, ns, { 15, 0 }, { 15, -1 }, { details = true })
  T.eq("BackyardError", marks[1][4].virt_lines[2][2][2], "error highlight")
  T.wait(function()
    return #vim.diagnostic.get(buf) > 0
  end, "a diagnostic")
  local d = vim.diagnostic.get(buf)[1]
  T.eq(15, d.lnum, "diagnostic line (0-based) of b = a / 0")
  T.eq("backyard", d.source, "source")
  T.eq(vim.diagnostic.severity.ERROR, d.severity, "severity")
end)

T.test("run all: an output under every code cell, none under markdown", function()
  vim.cmd("BackyardClear")
  vim.cmd("BackyardRunAll")
  T.wait(function()
    local x = T.output_at(buf, 15)
    return x and x[1]:find("✗", 1, true) and T.output_at(buf, 10)[1]:find("✓", 1, true)
  end, "all cells")
  T.eq(nil, T.output_at(buf, 6), "markdown cell")
  T.ok(T.output_at(buf, 3)[1]:find("✓"), "first cell ran")
end)

T.test("run above and run below", function()
  T.cursor(10)
  vim.cmd("BackyardClear")
  vim.cmd("BackyardRunAbove")
  T.wait_output(buf, 3, function(l)
    return l[1]:find("✓", 1, true)
  end)
  T.eq(1, #T.outputs(buf), "only the cell above ran: " .. vim.inspect(T.outputs(buf)))
  vim.cmd("BackyardClear")
  vim.cmd("BackyardRunBelow")
  T.wait_output(buf, 15, function(l)
    return l[1]:find("✗", 1, true)
  end)
  T.eq(nil, T.output_at(buf, 3), "the cell above did not run")
  T.ok(T.output_at(buf, 10), "this cell ran")
end)

T.test("code lenses are shown and refreshed by the plugin", function()
  local lens = function()
    local titles = {}
    for _, l in ipairs(vim.lsp.codelens.get(buf)) do
      titles[#titles + 1] = l.command and l.command.title or ""
    end
    return table.concat(titles, " | ")
  end
  T.wait(function()
    return lens():find("▶ Run Cell", 1, true) and lens():find("✓", 1, true)
  end, "lenses with a status lens")
  vim.cmd("BackyardClear")
  T.cursor(2)
  vim.cmd("BackyardRunCell")
  local want
  T.wait(function()
    local o = T.output_at(buf, 3)
    want = o and o[1]:match("%[(%d+)%] ✓")
    return want
  end, "the run")
  T.wait(function()
    return lens():find("[" .. want .. "] ✓", 1, true)
  end, "the status lens of run " .. want)
end)

T.test("long output is folded, the full output opens in a float and a split", function()
  vim.api.nvim_buf_set_lines(buf, -1, -1, false, { "", "# %% long", "for i in range(50):", "    print('line', i)" })
  local last = vim.api.nvim_buf_line_count(buf)
  T.cursor(last)
  vim.cmd("BackyardRunCell")
  local lines = T.wait_output(buf, last - 1, function(l)
    return l[1]:find("✓", 1, true)
  end)
  T.eq(22, #lines, "header + 20 lines + the fold line")
  T.eq("│ line 19", lines[21], "last shown line")
  T.eq("│ … 30 more lines (:BackyardOutput)", lines[22], "fold line")
  local win = vim.api.nvim_get_current_win()
  vim.cmd("BackyardOutput")
  local fwin = vim.api.nvim_get_current_win()
  T.ok(fwin ~= win, "a float opened")
  T.ok(vim.api.nvim_win_get_config(fwin).relative ~= "", "it is a float")
  local text = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  T.eq(51, #text, "header + 50 lines")
  T.eq("line 49", text[51], "last line")
  vim.cmd("close")
  vim.cmd("BackyardOutput split")
  T.eq("", vim.api.nvim_win_get_config(0).relative, "a split")
  T.eq(51, vim.api.nvim_buf_line_count(0), "split holds the full output")
  vim.cmd("close")
end)

T.test("a throttled redraw due after :BackyardClear draws nothing", function()
  local output = require("backyard.output")
  local o = require("backyard.config").options.output
  local throttle = o.throttle_ms
  o.throttle_ms = 300
  vim.cmd("BackyardClear")
  T.cursor(2)
  vim.cmd("BackyardRunCell") -- prints: a redraw is due in 300 ms
  T.wait_output(buf, 3, function(l)
    return l[1]:find("✓", 1, true)
  end)
  vim.cmd("BackyardClear")
  T.cursor(14)
  vim.cmd("BackyardRunCell") -- prints nothing: no redraw of its own
  T.wait_output(buf, 15, function(l)
    return l[1]:find("✗", 1, true)
  end)
  T.wait(function()
    return output.pending() == 0
  end, "the throttled redraws")
  o.throttle_ms = throttle
  local rows = {}
  for _, x in ipairs(T.outputs(buf)) do
    rows[#rows + 1] = x.row
  end
  T.eq({ 15 }, rows, "only the new output")
  T.eq("│ ZeroDivisionError: division by zero", T.output_at(buf, 15)[2], "its text")
end)

T.test("clear removes outputs and diagnostics", function()
  vim.cmd("BackyardClear")
  T.eq({}, T.outputs(buf), "outputs")
  T.eq({}, vim.diagnostic.get(buf), "diagnostics")
end)
