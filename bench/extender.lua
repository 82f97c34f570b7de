-- bench/extender.lua: wrk script for dra-extender (bench/extender.sh). Posts the body in the
-- file named by the BODY environment variable to PATH (default /filter); with RATE set (requests
-- per second per connection), waits between requests so that the load is a fixed rate rather
-- than a saturating loop. Counts answers that are not 200.
local body_file = os.getenv("BODY")
local path = os.getenv("URLPATH") or "/filter"
local rate = tonumber(os.getenv("RATE") or "0")
local f = assert(io.open(body_file, "rb"))
local body = f:read("*a")
f:close()

wrk.method = "POST"
wrk.path = path
wrk.body = body
wrk.headers["Content-Type"] = "application/json"

local bad = 0
function response(status, headers, resp)
  if status ~= 200 then
    bad = bad + 1
  end
end

function delay()
  if rate > 0 then
    return 1000 / rate
  end
  return 0
end

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    "requests %d  rps %.1f  p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  max %.3f ms  non200 %d  socket_errors %d\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1e3, latency:percentile(90) / 1e3, latency:percentile(99) / 1e3,
    latency.max / 1e3, errors.status,
    errors.connect + errors.read + errors.write + errors.timeout))
end
