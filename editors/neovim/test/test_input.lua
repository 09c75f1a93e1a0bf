-- input() in a cell is asked with vim.ui.input (the client advertises
-- backyard/input), and library frames and a run's notes are shown.
local T = require("backyard_test")

local buf = T.open({
  "# %% ask", -- 1
  "name = input('name? ')", -- 2
  "print('hello', name)", -- 3
  "name", -- 4
  "# %% frame", -- 5
  'eval("1/0")', -- 6
}, "input.py")

local asked = {}
local answer
vim.ui.input = function(opts, on_confirm)
  asked[#asked + 1] = opts.prompt
  -- Answered later, as an asynchronous input UI does.
  vim.defer_fn(function()
    on_confirm(answer)
  end, 50)
end

T.test("the client advertises backyard/input", function()
  local c = require("backyard.client").get()
  T.eq(true, c.config.capabilities.experimental.backyard.input, "experimental.backyard.input")
end)

T.test("input() asks with vim.ui.input; the prompt and the answer are in the output", function()
  answer = "Ada"
  T.cursor(2)
  vim.cmd("BackyardRunCell")
  local lines = T.wait_output(buf, 3, T.done(1))
  T.eq({ "│ name? Ada", "│ hello Ada", "│ → 'Ada'" }, { lines[2], lines[3], lines[4] }, "output")
  T.eq({ "name? " }, asked, "the prompt")
end)

T.test("a dismissed question interrupts the cell", function()
  answer = nil
  T.cursor(2)
  vim.cmd("BackyardRunCell")
  local lines = T.wait_output(buf, 3, function(l)
    return l[1]:find("interrupted", 1, true)
  end, "the interrupted header")
  T.matches("■ interrupted", lines[1], "header")
end)

T.test("a frame outside the notebook shows its file and line", function()
  T.cursor(6)
  vim.cmd("BackyardRunCell")
  local lines = T.wait_output(buf, 5, function(l)
    return l[1]:find("%[%d+%]") ~= nil
  end)
  T.eq("│ ZeroDivisionError: division by zero", lines[2], "error")
  T.eq("│ Traceback (most recent call last):", lines[3], "the traceback, as CPython prints it")
  T.eq("│   <string>:1, in <module>", lines[5], "the eval'd frame")
end)
