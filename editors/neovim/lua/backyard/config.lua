-- Options: defaults, merging and validation. Kept free of other requires so
-- that `require("backyard").setup()` stays cheap in an init file.
local M = {}

---@alias backyard.Backend "auto"|"monty"|"container"

--- A key option: a key, a list of keys, or false for none.
---@alias backyard.Key string|string[]|false

--- Per-cell limits; nil keeps the server's own default.
---@class backyard.Limits
---@field timeout? number seconds per cell
---@field memory? integer MiB per kernel
---@field recursion? integer recursion depth
---@field max_output_bytes? integer per stream and execution

--- The inline output under each cell.
---@class backyard.OutputOptions
---@field enabled? boolean
---@field max_lines? integer longer output is folded to this many lines
---@field show_duration? boolean
---@field show_backend? boolean
---@field traceback? boolean traceback frames under the error line
---@field prefix? string put before every output line
---@field throttle_ms? integer at most one redraw per this while output streams
---@field open? "float"|"split" how :BackyardOutput opens the full output
---@field images? "auto"|"image.nvim"|"kitty"|"placeholder" how images are drawn inline
---@field image_rows? integer an inline image is at most this many rows high

--- Buffer-local keys, each mapped to its <Plug>(backyard-…) mapping.
---@class backyard.Keymaps
---@field run_cell? backyard.Key
---@field run_cell_advance? backyard.Key
---@field run_selection? backyard.Key visual mode
---@field run_above? backyard.Key
---@field run_below? backyard.Key
---@field run_all? backyard.Key
---@field interrupt? backyard.Key
---@field restart? backyard.Key
---@field clear? backyard.Key
---@field output? backyard.Key
---@field variables? backyard.Key
---@field next_cell? backyard.Key
---@field prev_cell? backyard.Key

--- The options of setup() (:help backyard-options). Every field is
--- optional there; the defaults below fill the rest.
---@class backyard.Options
---@field cmd? string[] how to start the server (argv)
---@field filetypes? string[] filetypes whose buffers attach
---@field root_dir? string root sent to the server; nil: the current directory
---@field backend? backyard.Backend backend of new kernels
---@field limits? backyard.Limits
---@field settings? table<string, any> further backyard.* server settings, sent as they are
---@field output? backyard.OutputOptions
---@field codelens? boolean
---@field inlay_hints? boolean
---@field keymaps? backyard.Keymaps|false false: no keys

--- The options in effect: backyard.Options merged over the defaults, so
--- these fields are always set.
---@class backyard.Config: backyard.Options
---@field cmd string[]
---@field filetypes string[]
---@field backend backyard.Backend
---@field limits backyard.Limits
---@field settings table<string, any>
---@field output backyard.OutputOptions
---@field codelens boolean
---@field inlay_hints boolean
---@field keymaps backyard.Keymaps|false

---@type backyard.Config
local defaults = {
  -- How to start the server: a list (argv), not a shell string. A bare
  -- name is looked up in the active virtualenv, then on $PATH (find_server).
  cmd = { "backyard-ls", "serve" },
  -- Filetypes whose buffers attach to the server.
  filetypes = { "python" },
  -- Root directory sent to the server (the container backend mounts it);
  -- nil means the current directory when the server starts.
  root_dir = nil,
  -- Backend of new kernels: "auto", "monty" or "container".
  backend = "auto",
  -- Per-cell limits; nil keeps the server's own default.
  limits = {
    timeout = nil, -- seconds
    memory = nil, -- MiB per kernel
    recursion = nil, -- recursion depth
    max_output_bytes = nil, -- per stream and execution
  },
  -- Any further backyard.* settings, sent as they are, e.g.
  -- { container = { image = "python:3.13-slim" }, autoInstall = false }.
  settings = {},
  -- Inline output under each cell.
  output = {
    enabled = true,
    max_lines = 20, -- longer output is folded to this many lines
    show_duration = true,
    show_backend = true,
    traceback = true, -- show traceback frames under the error line
    prefix = "│ ", -- put before every output line ("" for none)
    throttle_ms = 50, -- at most one redraw per this while output streams
    open = "float", -- how :BackyardOutput opens the full output: "float" or "split"
    -- How images (image/png, image/svg+xml) are drawn inline: "auto"
    -- (image.nvim when installed, else kitty's graphics in kitty or
    -- Ghostty, else a placeholder line), or one of "image.nvim", "kitty",
    -- "placeholder".
    images = "auto",
    image_rows = 12, -- an inline image is at most this many rows high
  },
  -- Code lenses (▶ Run Cell …) on cell headers.
  codelens = true,
  -- Inlay hints (the value at the end of a cell) where Neovim has them
  -- (0.10+); off by default because the inline output already shows it.
  inlay_hints = false,
  -- Buffer-local keys. Set `keymaps = false` to define none, or any key to
  -- false; a key may also be a list of keys.
  keymaps = {
    run_cell = "<leader>rc",
    run_cell_advance = { "<S-CR>", "<leader>x" },
    run_selection = { "<S-CR>", "<leader>x" }, -- visual mode
    run_above = "<leader>ra",
    run_below = "<leader>rb",
    run_all = "<leader>rA",
    interrupt = "<leader>ri",
    restart = "<leader>rR",
    clear = "<leader>rC",
    output = "<leader>ro",
    variables = "<leader>rv",
    next_cell = "]c",
    prev_cell = "[c",
  },
}

M.defaults = defaults
--- The options in effect.
---@type backyard.Config
M.options = vim.deepcopy(defaults)

-- A list (e.g. cmd, a key list) replaces; a table of options merges.
local function is_list(t)
  return type(t) == "table" and t[1] ~= nil
end

local function merge(base, user)
  if type(base) ~= "table" or type(user) ~= "table" or is_list(base) or is_list(user) then
    return user
  end
  local out = vim.deepcopy(base)
  for k, v in pairs(user) do
    out[k] = merge(base[k], v)
  end
  return out
end

local backends = {}
for _, b in ipairs(require("backyard.contract").backend) do
  backends[b] = true
end

-- expect checks an option's type (vim.validate changed form in 0.11).
local function expect(name, value, ...)
  local t = type(value)
  for _, want in ipairs({ ... }) do
    if t == want then
      return
    end
  end
  error(("backyard: %s must be a %s, got %s"):format(name, table.concat({ ... }, " or "), vim.inspect(value)), 0)
end

local function check(o)
  expect("cmd", o.cmd, "table")
  expect("filetypes", o.filetypes, "table")
  expect("backend", o.backend, "string")
  expect("limits", o.limits, "table")
  expect("settings", o.settings, "table")
  expect("output", o.output, "table")
  expect("keymaps", o.keymaps, "table", "boolean")
  if not backends[o.backend] then
    error("backyard: backend must be \"auto\", \"monty\" or \"container\", got " .. vim.inspect(o.backend), 0)
  end
  if #o.cmd == 0 then
    error("backyard: cmd must name the server executable, e.g. { \"backyard-ls\", \"serve\" }", 0)
  end
  if o.output.open ~= "float" and o.output.open ~= "split" then
    error("backyard: output.open must be \"float\" or \"split\"", 0)
  end
  local images = { auto = true, ["image.nvim"] = true, kitty = true, placeholder = true }
  if not images[o.output.images] then
    error("backyard: output.images must be \"auto\", \"image.nvim\", \"kitty\" or \"placeholder\", got "
      .. vim.inspect(o.output.images), 0)
  end
end

--- Merges user options over the defaults and validates them; an invalid
--- option is an error with a message naming it.
---@param user? backyard.Options
---@return backyard.Config
function M.set(user)
  local o = merge(defaults, user or {})
  check(o)
  M.options = o
  return o
end

-- find_server resolves o.cmd[1]: a path is taken as it is; a bare name is
-- looked up in the active virtualenv ($VIRTUAL_ENV/bin, Scripts on
-- Windows: where `pip install backyard-ls` puts it), then on $PATH. It
-- returns the argv to start, or nil, and the places tried, in order.
function M.find_server(o)
  o = o or M.options
  local name = o.cmd[1]
  local tried, found = {}, nil
  local function try(where, path)
    tried[#tried + 1] = ("%s (%s)"):format(where, path)
    local full = vim.fn.exepath(path)
    if full ~= "" then
      found = full
    end
  end
  if name:find("[/\\]") then
    try("cmd", name)
  else
    local venv = vim.env.VIRTUAL_ENV
    if venv and venv ~= "" then
      local win = vim.fn.has("win32") == 1
      try("$VIRTUAL_ENV", venv .. (win and "\\Scripts\\" or "/bin/") .. name)
    end
    if not found then
      tried[#tried + 1] = ("$PATH (%s)"):format(vim.env.PATH or "")
      local full = vim.fn.exepath(name)
      found = full ~= "" and full or nil
    end
  end
  if not found then
    return nil, tried
  end
  local argv = vim.deepcopy(o.cmd)
  argv[1] = found
  return argv, tried
end

--- What the server reads under backyard.* (its names).
---@param o? backyard.Config default: the options in effect
---@return { backyard: table<string, any> }
function M.server_settings(o)
  o = o or M.options
  local s = vim.deepcopy(o.settings)
  s.backend = o.backend
  local l = o.limits
  if l.timeout then s.timeout = l.timeout end
  if l.memory then s.memory = l.memory end
  if l.recursion then s.recursionLimit = l.recursion end
  if l.max_output_bytes then s.maxOutputBytes = l.max_output_bytes end
  return { backyard = s }
end

return M
