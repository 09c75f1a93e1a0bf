-- Minimal init for the headless tests: this plugin and the test helpers on
-- 'runtimepath', nothing of the user's. run.sh puts backyard-ls on $PATH.
local here = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h")
local plugin = vim.fn.fnamemodify(here, ":h")
vim.opt.runtimepath:prepend(plugin)
vim.opt.runtimepath:append(here)
vim.opt.swapfile = false
vim.opt.shadafile = "NONE"
vim.opt.more = false
vim.opt.updatetime = 100
-- Python's ftplugin probes for the python3 provider (about a second);
-- the plugin needs no provider.
vim.g.loaded_python3_provider = 0
vim.cmd("filetype on")
