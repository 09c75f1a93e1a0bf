-- backyard.nvim entry point: commands and one FileType autocommand. Nothing
-- else is loaded until a Python buffer opens or a command runs.
if vim.g.loaded_backyard then
  return
end
vim.g.loaded_backyard = true

if vim.fn.has("nvim-0.7") ~= 1 then
  vim.api.nvim_err_writeln("backyard.nvim needs Neovim 0.7 or later")
  return
end

local function cmds()
  return require("backyard.commands")
end

local function command(name, fn, opts)
  vim.api.nvim_create_user_command(name, fn, vim.tbl_extend("force", { force = true }, opts or {}))
end

command("BackyardRunCell", function()
  cmds().run_cell()
end, { desc = "Run the cell under the cursor" })
command("BackyardRunCellAdvance", function()
  cmds().run_cell_advance()
end, { desc = "Run the cell under the cursor and move to the next cell" })
command("BackyardRunAbove", function()
  cmds().run_above()
end, { desc = "Run every cell above the current one" })
command("BackyardRunBelow", function()
  cmds().run_below()
end, { desc = "Run the current cell and every cell below" })
command("BackyardRunAll", function()
  cmds().run_all()
end, { desc = "Run every cell" })
command("BackyardRun", function(a)
  cmds().run_range(a.line1, a.line2, a.range)
end, { range = true, desc = "Run the selected text (or the lines of the range)" })
command("BackyardInterrupt", function()
  cmds().interrupt()
end, { desc = "Interrupt the running cell (state is kept)" })
command("BackyardRestart", function(a)
  cmds().restart(a.bang)
end, { bang = true, desc = "Restart the kernel (! also clears the outputs)" })
command("BackyardBackend", function(a)
  cmds().backend(a.args)
end, {
  nargs = "?",
  complete = function(lead)
    return vim.tbl_filter(function(b)
      return b:sub(1, #lead) == lead
    end, require("backyard.contract").backend)
  end,
  desc = "Show or set the backend: auto, monty or container",
})
command("BackyardInfo", function()
  cmds().info()
end, { desc = "Show the kernel: backend, runtime, state, versions" })
command("BackyardVariables", function()
  cmds().variables()
end, { desc = "Show the kernel's variables in a float" })
command("BackyardFiles", function()
  cmds().files()
end, { desc = "Show the files the kernel wrote (kept apart from the workspace)" })
command("BackyardSaveFiles", function(a)
  cmds().save_files(a.fargs)
end, { nargs = "*", complete = "file", desc = "Write the kernel's files to the workspace (all, or the given ones)" })
command("BackyardClear", function()
  cmds().clear()
end, { desc = "Clear the inline outputs of this buffer" })
command("BackyardOutput", function(a)
  cmds().open_output(a.args)
end, {
  nargs = "?",
  complete = function()
    return { "float", "split" }
  end,
  desc = "Open the full output of the cell under the cursor",
})

command("BackyardSaveOutput", function(a)
  cmds().save_output(a.fargs[1], a.count > 0 and a.count or nil)
end, {
  nargs = 1,
  count = true,
  complete = "file",
  desc = "Save the cell's image (or other rich output; [N] the N-th) to a file",
})

-- <Plug>(backyard-…) for every key; the default keys map to them.
require("backyard.plug").define()

-- Which filetypes attach, without loading the plugin to find out.
local function wanted(ft)
  local config = package.loaded["backyard.config"]
  return vim.tbl_contains(config and config.options.filetypes or { "python" }, ft)
end

local group = vim.api.nvim_create_augroup("backyard_attach", { clear = true })
vim.api.nvim_create_autocmd("FileType", {
  group = group,
  callback = function(ev)
    if wanted(ev.match) then
      require("backyard").attach(ev.buf)
    end
  end,
})

-- Loaded late (a plugin manager's lazy load): attach what is already open.
vim.schedule(function()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and wanted(vim.bo[b].filetype) then
      require("backyard").attach(b)
    end
  end
end)
