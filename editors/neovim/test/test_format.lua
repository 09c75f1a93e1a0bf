-- The output header formats durations exactly as the server's status
-- lens does (Go's strconv.FormatFloat), so the two never disagree.
local T = require("backyard_test")
local output = require("backyard.output")

T.test("durations match the server's lens format, ties included", function()
  -- want: what the server's formatDuration prints for the same value
  local cases = {
    { 0.04, "0.04 ms" }, { 0.125, "0.12 ms" }, { 0.375, "0.38 ms" }, { 0.625, "0.62 ms" }, { 0.635, "0.64 ms" },
    { 0.999, "1.00 ms" }, { 1.25, "1.2 ms" }, { 1.35, "1.4 ms" }, { 2.25, "2.2 ms" }, { 2.75, "2.8 ms" },
    { 9.95, "9.9 ms" }, { 10, "10 ms" }, { 120.5, "120 ms" }, { 121.5, "122 ms" }, { 999.4, "999 ms" },
    { 1500, "1.5 s" }, { 59999, "60.0 s" }, { 125000, "2 min 5 s" },
  }
  for _, c in ipairs(cases) do
    T.eq(c[2], output.format_duration(c[1]), tostring(c[1]) .. " ms")
  end
end)

T.test("header: count, status, duration, backend", function()
  require("backyard.config").set({})
  T.eq("[3] ✓ 0.12 ms · monty", output.header({ executionCount = 3, status = "ok", durationMs = 0.12, backend = "monty",
    runtime = "monty" }), "ok")
  T.eq("[ ] ■ interrupted 62 ms · container/runsc", output.header({ executionCount = 0, status = "interrupted",
    durationMs = 62, backend = "container", runtime = "runsc" }), "interrupted in a container")
  require("backyard.config").set({ output = { show_duration = false, show_backend = false } })
  T.eq("[4] ✗", output.header({ executionCount = 4, status = "error", durationMs = 1, backend = "monty" }), "bare")
end)

-- The shared tracebacks: errors and the text the server's renderer (Go)
-- gives them, written by `go test ./notebook -run TestTracebackVectors
-- -update-tracebacks`, every frame written the canonical way.
T.test("tracebacks: chains, notes and groups laid out as the server (and CPython) lays them out", function()
  local src = debug.getinfo(1, "S").source:sub(2)
  local file = vim.fn.fnamemodify(src, ":p:h:h:h:h") .. "/notebook/testdata/tracebacks.json"
  T.ok(vim.fn.filereadable(file) == 1, file .. " is missing")
  local vs = vim.json.decode(table.concat(vim.fn.readfile(file, "b"), "\n"))
  T.ok(#vs >= 8, ("only %d vectors"):format(#vs))
  local function canonical(f)
    return "  line " .. (f.line + 1) .. ", in " .. f.name .. "\n    " .. f.text .. "\n"
  end
  for _, v in ipairs(vs) do
    T.eq(v.text, output.traceback(v.error, canonical), v.name)
  end
end)

T.test("the output of an error shows its cause before it, and its notes", function()
  require("backyard.config").set({})
  local bufnr = vim.api.nvim_create_buf(true, false)
  vim.api.nvim_buf_set_lines(bufnr, 0, -1, false, { "# %%", "f()", "" })
  local range = { start = { line = 1, character = 0 }, ["end"] = { line = 1, character = 3 } }
  output.on_state(bufnr, { executionId = "e1", range = range, state = "queued" })
  output.on_state(bufnr, { executionId = "e1", range = range, state = "done", execution = {
    id = "e1", executionCount = 1, status = "error", stdout = "started\n", stderr = "", durationMs = 1, backend = "container",
    error = { ename = "ValueError", evalue = "bad", notes = { "see the docs" }, traceback = { { line = 1, name = "<module>", text = "f()" } },
      cause = { ename = "ZeroDivisionError", evalue = "division by zero", traceback = {} } },
  } })
  local function texts()
    local out = {}
    for _, l in ipairs(output.full(output.at(bufnr, 1))) do
      out[#out + 1] = l[1]
    end
    return table.concat(out, "\n")
  end
  local got = texts()
  T.ok(got:find("ZeroDivisionError: division by zero\n\nThe above exception was the direct cause of the following exception:\n\nTraceback", 1, true), got)
  T.ok(got:find("ValueError: bad\nsee the docs", 1, true), got)
  -- What a thread prints after the cell ended shows under it, as in Jupyter.
  output.on_output(bufnr, { executionId = "e1", stream = "stdout", text = "tick\n", idle = true })
  T.ok(texts():find("started\ntick", 1, true), texts())
end)
