-- Cell markers, motions and UTF-16 columns; no server needed. The shared
-- vectors compare parse with the server's own parser (Go).
local T = require("backyard_test")
local cells = require("backyard.cells")

T.test("markers: code, markdown, raw and non-markers as the server reads them", function()
  local cases = {
    ["# %%"] = "code",
    ["#%%"] = "code",
    ["# %% Load data"] = "code",
    ["# %%\tT  x \t"] = "code",
    ["# %%  "] = "code",
    ["# In[ ]:"] = "code",
    ["# In[12]:"] = "code",
    ["# In[]:"] = "code",
    ["#In[ ]"] = "code",
    ["# In[3]"] = "code",
    ["# <codecell>"] = "code",
    ["#<codecell>"] = "code",
    ["# %% [markdown]"] = "markdown",
    ["# %% [markdown] Notes"] = "markdown",
    ["# %% Plan [markdown]"] = "markdown",
    ["#%% [md]"] = "markdown",
    ["# %% x [md]"] = "markdown",
    ["# <markdowncell>"] = "markdown",
    ["# %% [Markdown]"] = "code", -- tags are lowercase only
    ["# %% [markdown]x"] = "markdown", -- Jupytext: the tag anywhere in the title
    ["# %% [raw]"] = "raw",
    ["# %% Notes [raw] k=\"v\""] = "raw",
    ["# %% t active=\"py\""] = "raw",
    ["# %% {\"active\": \"py,R\"}"] = "raw",
    ["# %% active=\"ipynb,py\""] = "code",
    ["# %% t x=\"[raw]\""] = "code",
  }
  for line, want in pairs(cases) do
    T.eq(want, cells.marker(line), line)
  end
  for _, line in ipairs({
    "# %%x", "# %%%", " # %%", "\t# %%", "## %%", "# In[x]:", "# In[1]: y", "x = 1  # %%",
    "# <codecell> z", "# [markdown]", "", "print(1)",
  }) do
    T.eq(nil, cells.marker(line), line)
  end
end)

T.test("parse: implicit first cell only when it holds code", function()
  local c = cells.parse({ "import os", "", "# %%", "x" })
  T.eq({ kind = "code", header = -1, start = 0, stop = 2 }, c[1], "implicit cell")
  T.eq({ kind = "code", header = 2, start = 3, stop = 4 }, c[2], "marked cell")
  c = cells.parse({ "", " \t", "# %%", "x" })
  T.eq(1, #c, "blank prefix is no cell")
  c = cells.parse({ "#!/usr/bin/env python", "# coding: utf-8", "", "# In[1]:", "x" })
  T.eq({ { kind = "code", header = 3, start = 4, stop = 5 } }, c, "nbconvert header is no cell")
  c = cells.parse({ '"""Doc."""', "# %%", "x" })
  T.eq({ kind = "code", header = -1, start = 0, stop = 1 }, c[1], "a docstring is code")
  c = cells.parse({ "x = 1", "y = 2" })
  T.eq({ { kind = "code", header = -1, start = 0, stop = 2 } }, c, "no markers: one cell")
end)

-- The shared vectors: texts and the cells the server's parser (Go) finds in
-- them, written by `go test ./cells -run TestVectors -update`.
local function vectors()
  local src = debug.getinfo(1, "S").source:sub(2)
  local file = vim.fn.fnamemodify(src, ":p:h:h:h:h") .. "/cells/testdata/vectors.json"
  T.ok(vim.fn.filereadable(file) == 1, file .. " is missing")
  return vim.json.decode(table.concat(vim.fn.readfile(file, "b"), "\n"))
end

T.test("parse agrees with the server's parser (Go) on the shared vectors", function()
  local vs = vectors()
  T.ok(#vs > 300, ("only %d vectors"):format(#vs))
  local bad = {}
  for _, v in ipairs(vs) do
    local got = cells.parse(vim.split(v.text, "\n", { plain = true }))
    if not vim.deep_equal(v.cells, got) then
      bad[#bad + 1] = ("%q: want %s, got %s"):format(v.text, vim.inspect(v.cells), vim.inspect(got))
    end
  end
  T.ok(#bad == 0, ("%d of %d vectors differ, first: %s"):format(#bad, #vs, bad[1]))
end)

T.test("parse: no markers inside string literals", function()
  local c = cells.parse({ "# %%", 's = """', "# %%", '"""', "t = rb'''", "# %% [md]", "'''", "# %%", "y" })
  local want = {
    { kind = "code", header = 0, start = 1, stop = 7 },
    { kind = "code", header = 7, start = 8, stop = 9 },
  }
  T.eq(want, c, "triple-quoted")
  c = cells.parse({ "# %%", 's = """', "# %%", "x = 1" })
  T.eq(2, #c, "an unclosed quote hides nothing")
  -- motions see the same cells
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { "# %%", "s = '''", "# %%", "'''", "# %%", "y" })
  T.eq(4, cells.next_start(buf, 0, 1), "]c skips the marker in the string")
  T.eq(5, cells.next_code_line(buf, 1), "advance skips it too")
end)

T.test("at, motions and run-and-advance targets", function()
  local buf = vim.api.nvim_create_buf(false, true)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, {
    "import os", -- 0 implicit cell
    "# %% a", -- 1
    "x = 1", -- 2
    "# %% [markdown]", -- 3
    "# text", -- 4
    "# %% b", -- 5
    "y = 2", -- 6
    "# %% empty at end", -- 7
  })
  local all = cells.parse(vim.api.nvim_buf_get_lines(buf, 0, -1, false))
  T.eq(1, cells.at(all, 0), "line 0")
  T.eq(2, cells.at(all, 2), "line 2")
  T.eq(4, cells.at(all, 6), "line 6")
  T.eq(1, cells.next_start(buf, 0, 1), "]c from 0")
  T.eq(5, cells.next_start(buf, 1, 2), "2]c from 1")
  T.eq(7, cells.next_start(buf, 6, 1), "]c from 6")
  T.eq(nil, cells.next_start(buf, 7, 1), "]c from the last cell")
  T.eq(5, cells.prev_start(buf, 6, 1), "[c from 6")
  T.eq(1, cells.prev_start(buf, 5, 2), "2[c from 5")
  T.eq(0, cells.prev_start(buf, 5, 9), "9[c from 5 stops at the first")
  T.eq(6, cells.next_code_line(buf, 2), "advance skips the markdown cell")
  T.eq(7, cells.next_code_line(buf, 6), "advance to a cell without body lands on its header")
  T.eq(nil, cells.next_code_line(buf, 7), "no cell after the last")
end)

T.test("UTF-16 columns", function()
  T.eq(0, cells.utf16("abc", 0), "empty prefix")
  T.eq(3, cells.utf16("abc", 3), "ascii")
  T.eq(1, cells.utf16("é", 2), "2-byte char is 1 unit")
  T.eq(1, cells.utf16("€", 3), "3-byte char is 1 unit")
  T.eq(2, cells.utf16("😀", 4), "4-byte char is 2 units")
  T.eq(8, cells.utf16('t = "😀é"; y', 11), "mixed")
end)

T.test("selection range: characterwise in UTF-16, linewise whole lines", function()
  vim.cmd("enew")
  local buf = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, { 't = "😀é"; y = 6 * 7', "z = 1" })
  -- select "y = 6 * 7" characterwise
  local col = ('t = "😀é"; '):len()
  vim.api.nvim_win_set_cursor(0, { 1, col })
  vim.cmd("normal! v$\27")
  local cmds = require("backyard.commands")
  local r = cmds.selection_range(buf, 1, 1)
  T.eq({ line = 0, character = 11 }, r.start, "start")
  T.eq({ line = 0, character = 20 }, r["end"], "end")
  -- :BackyardRun without a range after that selection: the whole line
  r = cmds.selection_range(buf, 1, 1, 0)
  T.eq({ line = 0, character = 0 }, r.start, "no range: line start")
  T.eq({ line = 0, character = 20 }, r["end"], "no range: line end")
  vim.cmd("normal! ggVj\27")
  r = cmds.selection_range(buf, 1, 2)
  T.eq({ line = 0, character = 0 }, r.start, "linewise start")
  T.eq({ line = 1, character = 5 }, r["end"], "linewise end")
end)
