-- A plugin manager that loads the plugin on FileType python sources
-- plugin/backyard.lua after the buffer is open: it must attach then.
local T = require("backyard_test")

T.test("sourced after a Python buffer opened, the plugin attaches it", function()
  -- Undo the startup load, as if the plugin had not been on 'runtimepath'.
  vim.api.nvim_del_augroup_by_name("backyard_attach")
  vim.g.loaded_backyard = nil
  local path = vim.fn.tempname() .. ".py"
  vim.fn.writefile({ "# %%", "6 * 7" }, path)
  vim.cmd("edit " .. path)
  local buf = vim.api.nvim_get_current_buf()
  T.eq("python", vim.bo.filetype, "filetype")
  T.eq(nil, package.loaded["backyard.client"], "nothing attached it yet")
  vim.cmd("runtime plugin/backyard.lua")
  T.wait(function()
    local c = package.loaded["backyard.client"]
    return c and c.attached(buf)
  end, "the open buffer to attach")
  vim.cmd("BackyardRunCell")
  local lines = T.wait_output(buf, 1, function(l)
    return l[1]:find("✓", 1, true)
  end)
  T.eq("│ → 42", lines[2], "value")
end)
