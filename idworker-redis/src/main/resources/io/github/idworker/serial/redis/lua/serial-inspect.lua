-- serial-inspect.lua: what a refill needs to know about one serial rule and period: the stock left and the
-- demand of the last 30 and 60 minutes.
--
-- KEYS (all share the hash tag {<prefix>:serial:<rule>}):
--   KEYS[1]       stock  hash {lo, hi, run_id}
--   KEYS[2..13]   use    the demand buckets of the last hour, newest first (5 minutes each)
-- ARGV:
--   ARGV[1]  checkRun  '1' to treat a stock installed by another Redis process as missing
--   ARGV[2]  max       the rule's max: numbers of the stock past it do not count as left
-- Reply: {left, use30, use60}; left = -1 when there is no usable stock.

-- The identity of this Redis process in its present role: its replication id, which Redis draws anew at every
-- start (a snapshot or append-only file may have brought back older data) and at every promotion of a replica
-- (it may have lagged) -- also when a demoted master that resynced from its successor is promoted back, whose
-- run_id alone would not have changed. Data stamped with another identity may have gone back in time. A plain
-- find, not a pattern: this runs on every call.
local function server_identity()
  local info = redis.call('INFO', 'replication')
  local i = string.find(info, 'master_replid:', 1, true)
  local j = string.find(info, '\r', i, true)
  return string.sub(info, i + 14, j - 1)
end

if redis.replicate_commands then
  pcall(redis.replicate_commands)
end

local left = -1
local r = redis.call('HMGET', KEYS[1], 'lo', 'hi', 'run_id')
if r[1] and r[2] then
  local usable = true
  if ARGV[1] ~= '0' then
    usable = r[3] == server_identity()
  end
  if usable then
    left = math.max(0, math.min(tonumber(r[2]), tonumber(ARGV[2])) - tonumber(r[1]))
  end
end
local use30 = 0
local use60 = 0
for i = 2, #KEYS do
  local v = tonumber(redis.call('GET', KEYS[i]) or '0')
  if i <= 7 then
    use30 = use30 + v
  end
  use60 = use60 + v
end
return {left, use30, use60}
