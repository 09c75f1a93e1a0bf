-- Loading with the default options: lazy loading, one shared client,
-- commands, keys, help tags.
local T = require("backyard_test")

local plugin = vim.fn.fnamemodify(vim.api.nvim_get_runtime_file("plugin/backyard.lua", false)[1], ":h:h")

T.test("startup loads no plugin module until a Python buffer opens", function()
  T.eq(true, vim.g.loaded_backyard, "plugin/backyard.lua ran")
  for _, m in ipairs({ "backyard", "backyard.client", "backyard.output", "backyard.commands", "backyard.config" }) do
    T.eq(nil, package.loaded[m], m .. " loaded at startup")
  end
  T.eq(2, vim.fn.exists(":BackyardRunCell"), ":BackyardRunCell")
  vim.cmd("edit " .. vim.fn.tempname() .. ".txt")
  T.eq(nil, package.loaded["backyard.client"], "a text file loads nothing")
end)

T.test("a command in a buffer backyard does not run says so and attaches nothing", function()
  local messages = {}
  local notify = vim.notify
  vim.notify = function(msg)
    messages[#messages + 1] = msg
  end
  vim.cmd("BackyardRunCell")
  vim.cmd("enew")
  vim.bo.filetype = "python"
  vim.cmd("BackyardRunCell")
  vim.notify = notify
  T.matches("runs python buffers only", messages[1], "text buffer")
  T.matches("save the buffer to a file first", messages[2], "unnamed Python buffer")
  T.eq(nil, require("backyard.client").get(), "no server started")
end)

local a, b
T.test("Python buffers attach to one shared backyard-ls client", function()
  a = T.open({ "# %%", "1" }, "a.py")
  b = T.open({ "# %%", "2" }, "b.py")
  local get = vim.lsp.get_clients or vim.lsp.get_active_clients
  local clients = get({ name = "backyard-ls" })
  T.eq(1, #clients, "clients named backyard-ls")
  local attached = vim.lsp.buf_is_attached
  T.ok(attached(a, clients[1].id) and attached(b, clients[1].id), "both buffers on it")
  T.eq("function", type(clients[1].commands[""]), "a no-op for the status lens's empty command")
end)

T.test("every command exists", function()
  for _, c in ipairs({
    "BackyardRunCell", "BackyardRunCellAdvance", "BackyardRunAbove", "BackyardRunBelow", "BackyardRunAll",
    "BackyardRun", "BackyardInterrupt", "BackyardRestart", "BackyardBackend", "BackyardInfo", "BackyardVariables",
    "BackyardClear", "BackyardOutput", "BackyardSaveOutput",
  }) do
    T.eq(2, vim.fn.exists(":" .. c), c)
  end
end)

T.test("default keys are buffer-local", function()
  local function map(lhs, mode)
    local m = vim.fn.maparg(lhs, mode, false, true)
    return m.buffer == 1 and m or nil
  end
  vim.api.nvim_set_current_buf(b)
  for _, k in ipairs({ "<S-CR>", "<Leader>x", "<Leader>rc", "<Leader>ra", "<Leader>rb", "<Leader>rA", "<Leader>ri",
    "<Leader>rR", "<Leader>rC", "<Leader>ro", "<Leader>rv", "]c", "[c" }) do
    T.ok(map(k, "n"), "normal " .. k)
  end
  T.ok(map("<S-CR>", "x"), "visual <S-CR>")
  T.ok(map("]c", "o"), "operator-pending ]c")
  vim.cmd("edit " .. vim.fn.tempname() .. ".txt")
  T.eq({}, vim.fn.maparg("]c", "n", false, true), "no keys in a text buffer")
  vim.api.nvim_set_current_buf(b)
end)

T.test("]c and [c move between cells; in diff mode they stay diff motions", function()
  vim.api.nvim_buf_set_lines(b, 0, -1, false, { "# %%", "1", "# %% [markdown]", "# x", "# %%", "2" })
  T.cursor(1)
  vim.cmd("normal ]c")
  T.eq(3, vim.api.nvim_win_get_cursor(0)[1], "]c")
  vim.cmd("normal ]c")
  T.eq(5, vim.api.nvim_win_get_cursor(0)[1], "]c again")
  vim.cmd("normal 2[c")
  T.eq(1, vim.api.nvim_win_get_cursor(0)[1], "2[c")
  vim.wo.diff = true
  T.eq("<Plug>(backyard-next-cell)", vim.fn.maparg("]c", "n"), "]c maps to its <Plug>")
  T.eq(1, vim.fn.maparg("<Plug>(backyard-next-cell)", "n", false, true).expr, "an expr map (it checks 'diff')")
  vim.cmd("normal ]c") -- no diff partner: the native ]c just does nothing
  T.eq(1, vim.api.nvim_win_get_cursor(0)[1], "]c in diff mode is the diff motion")
  vim.wo.diff = false
end)

T.test("status is a short string", function()
  vim.api.nvim_set_current_buf(a)
  T.eq("auto · no kernel", require("backyard").status(), "before a run")
  vim.cmd("BackyardRunCell")
  T.wait(function()
    return require("backyard").status() == "monty · idle"
  end, "monty · idle")
end)

T.test("help file: tags are valid and :help finds them", function()
  local dir = vim.fn.tempname()
  vim.fn.mkdir(dir .. "/doc", "p")
  vim.fn.writefile(vim.fn.readfile(plugin .. "/doc/backyard.txt"), dir .. "/doc/backyard.txt")
  vim.cmd("helptags " .. vim.fn.fnameescape(dir .. "/doc")) -- errors on duplicate tags
  local tags = vim.fn.readfile(dir .. "/doc/tags")
  local names = {}
  for _, l in ipairs(tags) do
    names[#names + 1] = l:match("^(%S+)")
  end
  for _, want in ipairs({ "backyard.txt", "backyard", "backyard-options", "backyard-commands", "backyard-keys",
    ":BackyardRunCell", ":BackyardRun", ":BackyardBackend", ":BackyardOutput", "backyard.status()",
    "backyard-statusline", "backyard-health", "<Plug>(backyard-run-cell)", "<Plug>(backyard-prev-cell)" }) do
    T.ok(vim.tbl_contains(names, want), "tag " .. want)
  end
  -- Every |link| in the file points at a tag the file defines or Neovim has.
  local text = table.concat(vim.fn.readfile(dir .. "/doc/backyard.txt"), "\n")
  vim.opt.runtimepath:append(dir)
  for link in text:gmatch("|([^|%s]+)|") do
    T.ok(pcall(vim.cmd, "help " .. link), "|" .. link .. "| resolves")
  end
  vim.cmd("help backyard-options")
  T.eq("help", vim.bo.buftype, "opened the help")
  vim.cmd("close")
end)
