-- serial-take.lua: takes the next count numbers of one serial rule and period from its stock in Redis, or says
-- why it cannot. Redis runs one script at a time, so numbers strictly increase in the order calls arrive, across
-- all clients (first come, first served).
--
-- KEYS (all share the hash tag {<prefix>:serial:<rule>}, so the script runs on Redis Cluster):
--   KEYS[1]  stock  hash {lo, hi, run_id, installed_ms}: lo = last number issued, hi = last number of the stock,
--                   run_id = the Redis process that installed it
--   KEYS[2]  use    the demand counter of the current 5-minute bucket
-- ARGV:
--   ARGV[1]  count     how many numbers, at least 1
--   ARGV[2]  checkRun  '1' to refuse a stock installed by another Redis process, '0' to skip the check
--   ARGV[3]  max       the rule's max: nothing past it is issued even when the stock reaches further
--   ARGV[4]  useTtlMs  life of a demand bucket
-- Reply:
--   {'OK', first, left}     first..first+count-1 are now issued; left numbers remain in the stock
--   {'MISSING'}             no stock (new period, or Redis lost it)
--   {'MISSING', 'run_id'}   the stock was installed by another Redis process (a restart that restored a snapshot,
--                           a failover): lo may have gone back, so the stock is never used again
--   {'SHORT', left}         fewer than count numbers in the stock; nothing taken
--   {'MAX', lo}             the stock has reached the rule's max; nothing taken
-- Status codes drive the caller's refill and never reach users as numbers. Numbers stay below 2^53, where Lua
-- numbers are exact (rules are at most 15 digits wide).

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

local count = tonumber(ARGV[1])
local r = redis.call('HMGET', KEYS[1], 'lo', 'hi', 'run_id')
if not r[1] or not r[2] then
  return {'MISSING'}
end
if ARGV[2] ~= '0' then
  local run_id = server_identity()
  if r[3] ~= run_id then
    return {'MISSING', 'run_id'}
  end
end
local lo = tonumber(r[1])
local hi = math.min(tonumber(r[2]), tonumber(ARGV[3]))
if lo >= tonumber(ARGV[3]) then
  return {'MAX', lo}
end
if hi - lo < count then
  return {'SHORT', hi - lo}
end
local last = redis.call('HINCRBY', KEYS[1], 'lo', count)
if redis.call('INCRBY', KEYS[2], count) == count then
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
end
return {'OK', last - count + 1, hi - last}
