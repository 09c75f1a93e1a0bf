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
