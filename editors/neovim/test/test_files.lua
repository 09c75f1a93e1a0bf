-- Files against the real server: the kernel runs in the buffer's folder,
-- the files a cell writes show under it, :BackyardFiles lists them and
-- :BackyardSaveFiles writes them to the disk.
local T = require("backyard_test")

local buf = T.open({
  "# %% read", -- 1
  "import os", -- 2
  "print(open('data.txt').read().strip())", -- 3
  "# %% write", -- 4
  "with open('out.txt', 'w') as f:", -- 5
  "    f.write('kept')", -- 6
}, "files.py")
local dir = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buf), ":p:h")
vim.fn.writefile({ "beside the notebook" }, dir .. "/data.txt")

local function finished(l)
  return l[1]:find("%[%d+%]") ~= nil
end

T.test("a cell reads the file beside the buffer", function()
  T.cursor(2)
  vim.cmd("BackyardRunCell")
  local lines = T.wait_output(buf, 2, finished)
  T.eq("│ beside the notebook", lines[2], "the file's text")
end)

T.test("the files a cell wrote show under it, and stay off the disk", function()
  T.cursor(5)
  vim.cmd("BackyardRunCell")
  local lines = T.wait_output(buf, 5, finished)
  T.eq("│ + out.txt", lines[#lines], "the change list under the cell")
  T.eq(0, vim.fn.filereadable(dir .. "/out.txt"), "not on the disk")
end)

T.test(":BackyardFiles lists the overlay in a float", function()
  vim.cmd("BackyardFiles")
  local text = T.float_text("the files float")
  T.matches("%+ out%.txt  %(4 B%)", text, "the file and its size")
  vim.cmd("close")
end)

T.test(":BackyardSaveFiles writes the chosen file to the disk", function()
  local msgs, notify = {}, vim.notify
  vim.notify = function(m)
    msgs[#msgs + 1] = m
  end
  vim.cmd("BackyardSaveFiles " .. vim.fn.fnameescape(dir .. "/out.txt"))
  local ok, err = pcall(T.wait, function()
    return #msgs > 0
  end, "a message")
  vim.notify = notify
  assert(ok, err)
  T.matches("saved 1 file to the workspace", msgs[#msgs], "the message")
  T.eq({ "kept" }, vim.fn.readfile(dir .. "/out.txt"), "its content")
end)

T.test(":BackyardInfo says where files go", function()
  vim.cmd("BackyardInfo")
  local text = T.float_text("the info float")
  T.matches("files%s+kept in the kernel", text, "files line")
  vim.cmd("close")
end)

T.done()
