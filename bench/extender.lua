-- bench/extender.lua: wrk script for dra-extender (bench/extender.sh). Posts the body in the
-- file named by the BODY environment variable to URLPATH (default /filter).
--
-- RATE (requests per second per connection; run wrk with one connection per thread, -t N -c N)
-- makes the load a constant rate: request k of a connection is due at start + k / RATE, and
-- delay() waits until then (not a fixed pause after each answer, which would add the answer's
-- time to the period: 50 req/s asked gave 40). A request whose due time has passed (the
-- previous answer came late) goes at once. Without RATE, a saturating loop. done() prints the
-- rate achieved, so that a run that could not keep up says so.
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

-- A monotonic clock in milliseconds (wrk's Lua is LuaJIT: its FFI reaches clock_gettime).
local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } extbench_timespec;
int clock_gettime(int clk, extbench_timespec *ts);
]]
local ts = ffi.new("extbench_timespec")
local function now_ms()
  ffi.C.clock_gettime(1, ts) -- CLOCK_MONOTONIC
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end

local start, sent = nil, 0
function delay()
  if rate <= 0 then
    return 0
  end
  local t = now_ms()
  if not start then
    start = t
  end
  sent = sent + 1
  local wait = start + sent * 1000 / rate - t
  if wait <= 0 then
    return 0
  end
  return math.floor(wait + 0.5) -- wrk takes whole milliseconds
end

local bad = 0
function response(status, headers, resp)
  if status ~= 200 then
    bad = bad + 1
  end
end

function done(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    "requests %d  rps %.1f  p50 %.3f ms  p90 %.3f ms  p99 %.3f ms  max %.3f ms  non200 %d" ..
    "  socket_errors %d\n",
    summary.requests, summary.requests / (summary.duration / 1e6),
    latency:percentile(50) / 1e3, latency:percentile(90) / 1e3, latency:percentile(99) / 1e3,
    latency.max / 1e3, errors.status,
    errors.connect + errors.read + errors.write + errors.timeout))
end
