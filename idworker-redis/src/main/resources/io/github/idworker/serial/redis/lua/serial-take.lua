-- serial-take.lua: takes the next count numbers of one serial rule and period from its stock in Redis, or says
-- why it cannot. Redis runs one script at a time, so numbers strictly increase in the order calls arrive, across
-- all clients (first come, first served).
--
-- KEYS (all share the hash tag {<prefix>:serial:<rule>}, so the script runs on Redis Cluster):
--   KEYS[1]  stock  hash {lo, hi, run_id, installed_ms}: lo = last number issued, hi = last number of the stock,
--                   run_id = the identity of the Redis process that installed it
--   KEYS[2]  use    the demand counter of the current 5-minute bucket
-- ARGV:
--   ARGV[1]  count     how many numbers, at least 1
--   ARGV[2]  checkRun  '1' to refuse a stock installed by another Redis identity (default), '0' to skip the check
--   ARGV[3]  max       the rule's max: nothing past it is issued even when the stock reaches further
--   ARGV[4]  useTtlMs  life of a demand bucket
-- Reply:
--   {last, left}            (two integers) last - count + 1 .. last are now issued; left numbers remain in the
--                           stock below max
--   {'MISSING'}             no stock (new period, or Redis lost it)
--   {'MISSING', 'run_id'}   the stock was stamped by another Redis identity (a restart that restored a snapshot,
--                           a failover): lo may have gone back, so the stock is never used again
--   {'SHORT', left}         fewer than count numbers in the stock; nothing taken
--   {'MAX', lo}             the stock has reached the rule's max; nothing taken
-- Status codes drive the caller's refill and never reach users as numbers; only a take that issued replies with
-- an integer first. Numbers stay below 2^53, where Lua numbers are exact (rules are at most 15 digits wide).
--
-- Steps, the common one first: HMGET reads the stock (one command), INFO replication gives the identity (one
-- command, two plain finds, no pattern), HINCRBY issues (one command), INCRBY counts the demand that sizes the
-- refills (one command; PEXPIRE only when it created the bucket, once per 5 minutes): four commands, no string
-- built. MAX and SHORT come after it. Redis 6.2 and later replicate a script's effects, not the script, so INFO
-- before a write needs no redis.replicate_commands() (a 6.2 set to lua-replicate-commands no refuses the write
-- with an error, never a wrong number).

local r = redis.call('HMGET', KEYS[1], 'lo', 'hi', 'run_id')
if not r[1] or not r[2] then
  return {'MISSING'}
end
-- The identity of this Redis process in its present role: its replication id, which Redis draws anew at every
-- start (a snapshot or append-only file may have brought back older data) and at every promotion of a replica
-- (it may have lagged) -- also when a demoted master that resynced from its successor is promoted back, whose
-- run_id alone would not have changed. Data stamped with another identity may have gone back in time. Read on
-- every call, never cached: only INFO sees a promotion. Inline, not a function: no closure per call.
if ARGV[2] ~= '0' then
  local info = redis.call('INFO', 'replication')
  local i = string.find(info, 'master_replid:', 1, true)
  if r[3] ~= string.sub(info, i + 14, string.find(info, '\r', i, true) - 1) then
    return {'MISSING', 'run_id'}
  end
end
local count = tonumber(ARGV[1])
local lo = tonumber(r[1])
local max = tonumber(ARGV[3])
local hi = tonumber(r[2])
if hi > max then
  hi = max
end
-- count >= 1, so a stock that serves it has lo < hi <= max: the MAX check below cannot hold for it
if hi - lo >= count then
  local last = redis.call('HINCRBY', KEYS[1], 'lo', count)
  if redis.call('INCRBY', KEYS[2], count) == count then
    redis.call('PEXPIRE', KEYS[2], ARGV[4])
  end
  return {last, hi - last}
end
if lo >= max then
  return {'MAX', lo}
end
return {'SHORT', hi - lo}
