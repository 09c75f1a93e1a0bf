-- display() outputs show their text/plain form inline.
local T = require("backyard_test")

T.test("display outputs show as text, in order, before the value", function()
  local path = vim.fn.tempname() .. ".py"
  vim.fn.writefile({ "# %%", "display(1, 'two')", "3" }, path)
  vim.cmd("edit " .. path)
  local buf = vim.api.nvim_get_current_buf()
  T.wait(function()
    local c = package.loaded["backyard.client"]
    return c and c.attached(buf)
  end, "the buffer to attach")
  vim.cmd("BackyardRunCell")
  local lines = T.wait_output(buf, 2, function(l)
    return l[1]:find("✓", 1, true)
  end)
  T.eq({ "│ 1", "│ 'two'", "│ → 3" }, { lines[2], lines[3], lines[4] }, "displays then value")
end)
