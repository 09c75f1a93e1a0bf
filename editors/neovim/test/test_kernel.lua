-- Kernel control against the real server: streaming, interrupt (state
-- kept), restart (state cleared), variables, info, backend, status.
local T = require("backyard_test")
local backyard = require("backyard")

local buf = T.open({
  "# %% define", -- 1
  "x = 41", -- 2
  "# %% spin", -- 3
  "print('tick')", -- 4
  "n = 0", -- 5
  "while True:", -- 6
  "    n += 1", -- 7
  "# %% use", -- 8
  "x + 1", -- 9
}, "kernel.py")

local function finished(l)
  return l[1]:find("%[%d+%]") ~= nil
end

T.test("status before any run names the configured backend", function()
  T.eq("auto · no kernel", backyard.status(buf), "status")
  T.eq("", backyard.status(vim.api.nvim_create_buf(true, false)), "a buffer backyard does not handle")
end)

T.test("streaming output shows while a cell runs; interrupt stops it and keeps the state", function()
  T.cursor(2)
  vim.cmd("BackyardRunCell")
  T.wait_output(buf, 1, finished)
  T.cursor(4)
  vim.cmd("BackyardRunCell")
  T.wait_output(buf, 6, function(l)
    return l[1] == "│ [*] running…" and l[2] == "│ tick"
  end, "'tick' streamed while the loop runs")
  T.wait(function()
    return backyard.status(buf) == "monty · busy"
  end, "status busy")
  vim.cmd("BackyardInterrupt")
  local lines = T.wait_output(buf, 6, function(l)
    return l[1]:find("interrupted", 1, true)
  end, "the interrupted header")
  T.matches("^│ %[%d+%] ■ interrupted", lines[1], "header")
  T.matches("^│ note: the namespace was restored to its state before this cell", lines[#lines], "Monty's note")
  T.wait(function()
    return backyard.status(buf) == "monty · idle"
  end, "status idle")
  T.cursor(9)
  vim.cmd("BackyardRunCell")
  lines = T.wait_output(buf, 8, finished)
  T.eq("│ → 42", lines[2], "x survived the interrupt")
end)

T.test("variables float lists the namespace", function()
  vim.cmd("BackyardVariables")
  local text = T.float_text("the variables float")
  T.matches("\nx%s+int%s+41", text, "x in the variables")
  T.ok(vim.api.nvim_win_get_config(0).relative ~= "", "a float")
  vim.cmd("close")
end)

T.test("info float shows the backend and state", function()
  vim.cmd("BackyardInfo")
  local text = T.float_text("the info float")
  T.matches("backend%s+monty", text, "backend")
  T.matches("state%s+idle", text, "state")
  vim.cmd("close")
end)

T.test("restart clears the state; old outputs turn stale", function()
  vim.cmd("BackyardRestart")
  T.wait_output(buf, 1, function(l)
    return l[1]:find("stale", 1, true)
  end, "outputs marked stale")
  T.cursor(9)
  vim.cmd("BackyardRunCell")
  local lines = T.wait_output(buf, 8, function(l)
    return l[1]:find("✗", 1, true)
  end, "the NameError")
  T.matches("^│ %[1%] ✗", lines[1], "execution count back to 1")
  T.eq("│ NameError: name 'x' is not defined", lines[2], "x is gone")
  T.wait(function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.lnum == 8 then
        return true
      end
    end
  end, "the diagnostic on x + 1")
end)

T.test("restart! also clears the outputs", function()
  vim.cmd("BackyardRestart!")
  T.wait(function()
    return #T.outputs(buf) == 0
  end, "no outputs")
end)

T.test("when the server dies: status says so, outputs go stale, the next run starts a new one", function()
  local old = require("backyard.client").get()
  T.cursor(2)
  vim.cmd("BackyardRunCell")
  T.wait_output(buf, 1, finished)
  require("backyard.client").call(old, "stop", true) -- SIGTERM, no shutdown: as a crash
  T.wait(function()
    return backyard.status(buf) == "monty · stopped"
  end, "status stopped")
  T.wait_output(buf, 1, function(l)
    return l[1]:find("stale", 1, true)
  end, "stale output")
  vim.cmd("BackyardRunCell")
  T.wait_output(buf, 1, function(l)
    return l[1]:find("[1] ✓", 1, true) and not l[1]:find("stale", 1, true)
  end, "a fresh run on a new server")
  T.ok(require("backyard.client").get().id ~= old.id, "a new client")
end)

T.test("backend: completion, switching, and a wrong name", function()
  T.eq({ "auto", "monty", "container" }, vim.fn.getcompletion("BackyardBackend ", "cmdline"), "completion")
  T.eq({ "monty" }, vim.fn.getcompletion("BackyardBackend mo", "cmdline"), "completion with a prefix")
  local messages = {}
  local notify = vim.notify
  vim.notify = function(msg)
    messages[#messages + 1] = msg
  end
  vim.cmd("BackyardBackend monty")
  T.wait(function()
    return #messages > 0
  end, "the answer")
  vim.cmd("BackyardBackend nonsense")
  vim.notify = notify
  T.matches("backend monty", messages[1], "switched")
  T.matches("must be auto, monty or container", messages[2], "refused")
  T.cursor(2)
  vim.cmd("BackyardRunCell")
  T.wait_output(buf, 1, finished)
  T.wait(function()
    return backyard.status(buf) == "monty · idle"
  end, "status on the monty backend")
end)
