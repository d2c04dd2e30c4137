-- wrk script of the idworker bench: counts responses by status and prints one summary line; with BENCH_SIGNED set
-- to a file prefix, sends each pre-signed request of <prefix>.<thread> exactly once (sign.py wrote them).
local signed = os.getenv("BENCH_SIGNED")
if signed == "" then signed = nil end
local threads = {}
local counter = 0

function setup(thread)
  thread:set("tid", counter)
  counter = counter + 1
  table.insert(threads, thread)
end

function init(args)
  statuses = {}
  used = 0
  exhausted = 0
  if signed then
    local file = assert(io.open(signed .. "." .. tid, "r"))
    nextLine = file:lines()
    done_reading = false
  end
end

if signed then
  function request()
    local line = nil
    if not done_reading then
      line = nextLine()
      if line == nil then done_reading = true end
    end
    if line == nil then
      -- out of signatures: an unsigned call, refused with 401, so the shortage shows in the table
      exhausted = exhausted + 1
      return wrk.format("GET", wrk.path)
    end
    used = used + 1
    local ts, nonce, sig = line:match("^(%S+) (%S+) (%S+)$")
    return wrk.format("GET", wrk.path, {
      ["X-App-Key"] = "demo", ["X-Timestamp"] = ts, ["X-Nonce"] = nonce, ["X-Signature"] = sig })
  end
end

function response(status, headers, body)
  if status < 200 or status > 299 then
    statuses[status] = (statuses[status] or 0) + 1
  end
end

function done(summary, latency, requests)
  local refusals, total_used, total_exhausted = {}, 0, 0
  for _, t in ipairs(threads) do
    for status, n in pairs(t:get("statuses") or {}) do
      refusals[status] = (refusals[status] or 0) + n
    end
    total_used = total_used + (t:get("used") or 0)
    total_exhausted = total_exhausted + (t:get("exhausted") or 0)
  end
  local parts = {}
  for status, n in pairs(refusals) do table.insert(parts, status .. "x" .. n) end
  table.sort(parts)
  local e = summary.errors
  io.write(string.format("BENCH requests=%d duration_us=%d p50_us=%d p99_us=%d non2xx=%d refusals=%s "
      .. "socket_errors=%d signed_used=%d signed_missing=%d\n",
      summary.requests, summary.duration, latency:percentile(50), latency:percentile(99), e.status,
      #parts > 0 and table.concat(parts, ",") or "-", e.connect + e.read + e.write + e.timeout,
      total_used, total_exhausted))
end
