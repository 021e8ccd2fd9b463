-- Replays pre-signed requests from a file, each once: line = "path\tsignature\tbody".
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
  requests = {}
  local n = 0
  for line in io.lines(file) do
    if n % total == index then
      local path, sig, body = line:match("^([^\t]+)\t([^\t]+)\t(.*)$")
      table.insert(requests, { path = path, sig = sig, body = body })
    end
    n = n + 1
  end
  position = 0
  statuses = {}
end

function request()
  position = position + 1
  local r = requests[((position - 1) % #requests) + 1]
  return wrk.format("POST", r.path, {
    ["Content-Type"] = "application/json",
    ["Authorization"] = "Bearer " .. token,
    ["X-Server-Authorization"] = r.sig,
  }, r.body)
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
