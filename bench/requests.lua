-- Replays pre-signed requests from a file, each once: line = "path\tsignature\tbody", or
-- "path\tsignature\ttoken\tbody" when the line names its own bearer token (a body, JSON, holds no raw tab).
-- Each wrk thread takes every n-th line, so no two requests share an id.
local threads = {}
local counter = 0

function setup(thread)
  thread:set("index", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

function init(args)
  local file = os.getenv("WAGERLINK_BENCH_REQUESTS")
  local total = tonumber(os.getenv("WAGERLINK_BENCH_THREADS") or "1")
  token = os.getenv("WAGERLINK_BENCH_TOKEN")
  -- Every request is formatted here, once, and the garbage of reading them is
  -- collected before the run: request() then allocates nothing, so Lua's
  -- collector never runs during a run. (Marking a table of 400,000 requests
  -- stalls wrk for a hundred milliseconds or more, and those stalls would
  -- count as the server's latency.)
  requests = {}
  local n = 0
  for line in io.lines(file) do
    if n % total == index then
      local path, sig, own, body = line:match("^([^\t]+)\t([^\t]+)\t([^\t{]+)\t(.*)$")
      if path == nil then
        path, sig, body = line:match("^([^\t]+)\t([^\t]+)\t(.*)$")
        own = token
      end
      requests[#requests + 1] = wrk.format("POST", path, {
        ["Content-Type"] = "application/json",
        ["Authorization"] = "Bearer " .. own,
        ["X-Server-Authorization"] = sig,
      }, body)
    end
    n = n + 1
  end
  count = #requests
  position = 0
  statuses = {}
  collectgarbage("collect")
  -- The bench opens its CPU window here (run-bench.ts, WRK_READY).
  io.stderr:write("wagerlink-bench: requests ready\n")
  io.stderr:flush()
end

function request()
  position = position + 1
  return requests[((position - 1) % count) + 1]
end

function response(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
end

function done(summary, latency, requests_)
  for _, thread in ipairs(threads) do
    local s = thread:get("statuses")
    for code, count in pairs(s) do
      io.write(string.format("status %d %d\n", code, count))
    end
  end
  for _, p in ipairs({ 50, 90, 99 }) do
    io.write(string.format("latency_us p%d %d\n", p, latency:percentile(p)))
  end
end
