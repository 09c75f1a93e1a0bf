-- luacheck: the plugin and its tests run inside Neovim's LuaJIT. `vim` is
-- written to (vim.bo, vim.g, vim.notify in tests); any other global is an
-- error.
std = "luajit"
globals = { "vim" }
max_line_length = 120
exclude_files = { "test/testdata" }
