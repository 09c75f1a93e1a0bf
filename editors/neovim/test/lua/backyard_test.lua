-- A small test harness for headless Neovim: each test file is run in its
-- own Neovim by run.sh through main(), which always exits (with 1 on any
-- failure) and prints one line per test.
local T = {}

local passed, failed = 0, 0
local file_label = "?"
local deprecated = {}

-- Record deprecation warnings raised from the plugin's code: the plugin
-- must pick APIs by feature, so a current Neovim warns about nothing.
local orig_deprecate = vim.deprecate
vim.deprecate = function(name, alt, ...)
  local tb = debug.traceback("", 2)
  if tb:find("lua/backyard/", 1, true) or tb:find("plugin/backyard.lua", 1, true) then
    deprecated[#deprecated + 1] = name .. " (use " .. tostring(alt) .. ")"
  end
  if orig_deprecate then
    return orig_deprecate(name, alt, ...)
  end
end

local function out(s)
  io.stdout:write(s .. "\n")
  io.stdout:flush()
end

-- test runs fn as one named test; an error fails it.
function T.test(name, fn)
  local ok, err = xpcall(fn, debug.traceback)
  if ok then
    passed = passed + 1
    out(("ok   %s: %s"):format(file_label, name))
  else
    failed = failed + 1
    out(("FAIL %s: %s\n     %s"):format(file_label, name, tostring(err):gsub("\n", "\n     ")))
  end
end

function T.eq(want, got, what)
  if not vim.deep_equal(want, got) then
    error(("%s: want %s, got %s"):format(what or "value", vim.inspect(want), vim.inspect(got)), 2)
  end
end

function T.ok(cond, what)
  if not cond then
    error(what or "assertion failed", 2)
  end
  return cond
end

function T.matches(pattern, s, what)
  if type(s) ~= "string" or not s:find(pattern) then
    error(("%s: %s does not match %q"):format(what or "text", vim.inspect(s), pattern), 2)
  end
end

-- wait polls cond (no fixed sleeps); on timeout it fails with what and
-- the current inline outputs, for a readable failure.
function T.wait(cond, what, timeout)
  local ok = vim.wait(timeout or 10000, function()
    local good, v = pcall(cond)
    return good and v
  end, 10)
  if not ok then
    local dump = ""
    if package.loaded["backyard.output"] then
      dump = "\n     outputs: " .. vim.inspect(T.outputs(0))
    end
    error("timed out waiting for " .. what .. dump, 2)
  end
end

-- float_text waits for the plugin's float (filetype backyard), which the
-- caller just asked for, and returns its text.
function T.float_text(what)
  T.wait(function()
    return vim.bo.filetype == "backyard"
  end, what)
  return table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
end

-- notified runs fn and returns the messages vim.notify was given meanwhile.
function T.notified(fn)
  local messages, notify = {}, vim.notify
  vim.notify = function(msg)
    messages[#messages + 1] = msg
  end
  local ok, err = pcall(fn)
  vim.notify = notify
  if not ok then
    error(err, 2)
  end
  return messages
end

local tmpdir
-- open writes lines to a new .py file, edits it and waits until the
-- server has it. It returns the buffer.
function T.open(lines, name)
  tmpdir = tmpdir or vim.fn.tempname()
  vim.fn.mkdir(tmpdir, "p")
  local path = tmpdir .. "/" .. (name or ("t" .. vim.loop.hrtime() .. ".py"))
  vim.fn.writefile(lines, path)
  vim.cmd("edit " .. vim.fn.fnameescape(path))
  local bufnr = vim.api.nvim_get_current_buf()
  T.wait(function()
    local c = require("backyard.client").get()
    return c and c.initialized and require("backyard.client").attached(bufnr)
  end, "the buffer to attach to backyard-ls")
  return bufnr
end

-- outputs are the inline outputs of bufnr: {row, lines} in buffer order.
function T.outputs(bufnr)
  return require("backyard.output").virtual_lines(bufnr == 0 and vim.api.nvim_get_current_buf() or bufnr)
end

-- output_at is the list of output lines under 0-based row, or nil.
function T.output_at(bufnr, row)
  for _, o in ipairs(T.outputs(bufnr)) do
    if o.row == row then
      return o.lines
    end
  end
end

-- wait_output waits until the output under row satisfies pred(lines)
-- and returns the lines.
function T.wait_output(bufnr, row, pred, what, timeout)
  local got
  T.wait(function()
    got = T.output_at(bufnr, row)
    return got and pred(got)
  end, what or ("output under line " .. (row + 1)), timeout)
  return got
end

-- done_header: the header of a finished execution with count n.
function T.done(n)
  return function(lines)
    return lines[1]:find("[" .. n .. "]", 1, true) ~= nil
  end
end

function T.cursor(line, col)
  vim.api.nvim_win_set_cursor(0, { line, col or 0 })
end

function T.main(file)
  file_label = vim.fn.fnamemodify(file, ":t:r")
  local ok, err = xpcall(dofile, debug.traceback, file)
  if not ok then
    failed = failed + 1
    out(("FAIL %s: (file) %s"):format(file_label, err))
  end
  if #deprecated > 0 then
    failed = failed + 1
    out(("FAIL %s: the plugin called deprecated APIs: %s"):format(file_label, table.concat(deprecated, ", ")))
  end
  out(("# %s: %d passed, %d failed"):format(file_label, passed, failed))
  pcall(function()
    require("backyard.client").stop()
  end)
  vim.cmd((failed > 0 and "cquit 1" or "qall!"))
end

return T
