-- A cell's next input (IPython's %load): the server sends the edit
-- (workspace/applyEdit) and Neovim's LSP client applies it, so the cell's
-- code becomes "# %load ARGS" and the file's code, as Jupyter replaces
-- the cell; the cells around it stay.
local T = require("backyard_test")

local docker_image = os.getenv("BACKYARD_TEST_IMAGE") or "backyard-python:test"
require("backyard").setup({ backend = "container", settings = { container = { image = docker_image } } })

local helper = { "def double(n):", "    return 2 * n", "", "print(double(21))" }

T.test("%load replaces the cell's code with the file's", function()
  -- helper.py beside the notebook, on disk before its kernel starts.
  T.open(helper, "helper.py")
  local buf = T.open({ "# %%", "x = 1", "# %%", "%load helper.py", "", "# %%", "x" }, "load.py")
  T.cursor(4)
  vim.cmd("BackyardRunCell")
  local want = { "# %%", "x = 1", "# %%", "# %load helper.py", "def double(n):", "    return 2 * n", "", "print(double(21))", "", "# %%", "x" }
  T.wait(function()
    return vim.deep_equal(want, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  end, "the loaded code in the cell", 90000)
  T.ok(vim.bo[buf].modified, "the buffer is modified, not written")
  -- The server has the new text: the cell runs the loaded code.
  T.cursor(5)
  vim.cmd("BackyardRunCell")
  local lines = T.wait_output(buf, 7, function(l)
    return l[1]:find("✓", 1, true) and l[1]:find("[2]", 1, true)
  end, nil, 60000)
  T.eq("│ 42", lines[2], "the loaded code ran")
end)

T.test("%load -r loads those lines only", function()
  local buf = T.open({ "# %%", "%load -r 1-2 helper.py" }, "range.py")
  T.cursor(2)
  vim.cmd("BackyardRunCell")
  local want = { "# %%", "# %load -r 1-2 helper.py", "def double(n):", "    return 2 * n" }
  T.wait(function()
    return vim.deep_equal(want, vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  end, "the loaded lines in the cell", 60000)
end)

T.test("%edit opens its file at the line; neither payload shows as an output", function()
  local buf = T.open({ "# %%", "print('shown')", "%edit -n 2 helper.py", "# %%", "%load -r 1 helper.py" }, "edit.py")
  T.cursor(2)
  vim.cmd("BackyardRunAll")
  -- The server's window/showDocument: Neovim 0.8+ answers it, the plugin on 0.7.
  T.wait(function()
    return vim.fn.fnamemodify(vim.api.nvim_buf_get_name(0), ":t") == "helper.py"
  end, "helper.py shown", 90000)
  T.eq(2, vim.api.nvim_win_get_cursor(0)[1], "the cursor on the payload's line")
  T.wait(function()
    return vim.api.nvim_buf_get_lines(buf, 4, 6, false)[2] == "def double(n):"
  end, "the loaded line in the cell", 60000)
  local outs
  T.wait(function()
    outs = T.outputs(buf)
    return #outs == 2 and outs[1].lines[1]:find("✓", 1, true) and outs[2].lines[1]:find("✓", 1, true)
  end, "both cells done", 60000)
  T.eq({ "│ shown" }, vim.list_slice(outs[1].lines, 2), "the %edit cell shows its print only")
  T.eq(1, #outs[2].lines, "the %load cell shows its header only")
end)
