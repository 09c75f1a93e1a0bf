-- Every option off: the plugin still loads, attaches and runs, and sets
-- no keys, draws no output and asks for no lenses. Also: bad options are
-- refused with a message.
local T = require("backyard_test")

T.test("bad options are refused with a clear message", function()
  local ok, err = pcall(require("backyard").setup, { backend = "jupyter" })
  T.ok(not ok, "setup accepted backend = jupyter")
  T.matches("backend must be", err, "message")
  ok, err = pcall(require("backyard").setup, { output = { open = "tab" } })
  T.ok(not ok, "setup accepted output.open = tab")
  T.matches("output.open", err, "message")
end)

T.test("setup with everything off loads without errors", function()
  require("backyard").setup({
    keymaps = false,
    codelens = false,
    inlay_hints = false,
    output = { enabled = false, show_duration = false, show_backend = false, traceback = false, prefix = "" },
    limits = { timeout = 5, memory = 128 },
    backend = "monty",
  })
end)

local buf
T.test("a Python buffer still attaches, with no keys", function()
  buf = T.open({ "# %%", "x = 1", "# %%", "1 / 0" }, "off.py")
  for _, k in ipairs({ "<S-CR>", "<Leader>x", "]c", "[c", "<Leader>rc" }) do
    T.eq({}, vim.fn.maparg(k, "n", false, true), "normal " .. k)
  end
  T.eq({}, vim.fn.maparg("<S-CR>", "x", false, true), "visual <S-CR>")
end)

T.test("runs still work: no inline output, but the diagnostic and the status", function()
  T.cursor(4)
  vim.cmd("BackyardRunCell")
  T.wait(function()
    return #vim.diagnostic.get(buf) == 1
  end, "the diagnostic")
  T.eq(3, vim.diagnostic.get(buf)[1].lnum, "diagnostic line")
  T.eq({}, T.outputs(buf), "no inline output")
  T.eq("monty · idle", require("backyard").status(buf), "status on the configured backend")
end)

T.test("with no keys the <Plug> mappings stay, and work", function()
  local plug = require("backyard.plug")
  for _, m in ipairs(plug.maps) do
    for _, mode in ipairs(m.modes) do
      T.ok(vim.fn.maparg(plug.lhs(m.name), mode) ~= "", plug.lhs(m.name) .. " in mode " .. mode)
    end
  end
  local function feed(keys)
    vim.api.nvim_feedkeys(vim.api.nvim_replace_termcodes(keys, true, false, true), "mx", false)
  end
  feed("<Plug>(backyard-clear)")
  T.eq(0, #vim.diagnostic.get(buf), "clear took the diagnostic away")
  vim.api.nvim_buf_set_lines(buf, 3, 4, false, { "nope" })
  T.cursor(4)
  feed("<Plug>(backyard-run-cell)")
  T.wait(function()
    local d = vim.diagnostic.get(buf)[1]
    return d and d.message:find("NameError", 1, true)
  end, "the diagnostic of the run")
  T.cursor(1)
  feed("<Plug>(backyard-next-cell)")
  T.eq(3, vim.api.nvim_win_get_cursor(0)[1], "next cell")
end)

T.test("no code lenses are requested", function()
  T.eq({}, vim.lsp.codelens.get(buf), "lenses")
end)

T.test("each key can be turned off on its own; a list sets several", function()
  require("backyard").setup({
    keymaps = { run_cell = false, next_cell = false, run_cell_advance = { "<F5>" }, run_selection = false },
  })
  local b = T.open({ "# %%", "1" }, "some.py")
  T.eq({}, vim.fn.maparg("<Leader>rc", "n", false, true), "run_cell off")
  T.eq({}, vim.fn.maparg("]c", "n", false, true), "next_cell off")
  T.eq({}, vim.fn.maparg("<S-CR>", "n", false, true), "run_cell_advance replaced")
  T.eq(1, vim.fn.maparg("<F5>", "n", false, true).buffer, "run_cell_advance on <F5>")
  T.eq(1, vim.fn.maparg("[c", "n", false, true).buffer, "prev_cell kept")
  T.ok(b ~= buf, "another buffer")
end)

T.test("a missing server binary gives one message, not an error", function()
  require("backyard").setup({ cmd = { "/nonexistent/backyard-ls" } })
  require("backyard.client").stop()
  T.wait(function()
    return require("backyard.client").get() == nil
  end, "the client to stop")
  local messages = {}
  local notify = vim.notify
  vim.notify = function(msg)
    messages[#messages + 1] = msg
  end
  local path = vim.fn.tempname() .. ".py"
  vim.fn.writefile({ "1" }, path)
  vim.cmd("edit " .. path)
  vim.cmd("BackyardRunCell")
  vim.notify = notify
  T.matches("cannot start the server", messages[1], "message")
end)
